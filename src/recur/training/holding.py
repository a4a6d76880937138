"""The holding recipe: three pieces that make a learned cell keep "no carry yet" and
its answer however long it waits, each a switch so that a study can count each one's
worth (with it and without it).

- ``snap``: each entry of the state is snapped to -1 or +1 every round
  (:func:`recur.models.cell.snapped`), so a state cannot drift by small steps;
- ``hold``: the hold cost (:func:`recur.models.cell.hold_loss`, weight
  :data:`HOLD_COST`), which asks a position's state to change only when its news
  arrives, so that waiting is a fixed point;
- ``chains``: a quarter of every training batch is 8-bit sums with one long carry
  chain, half of them with no carry at the bottom (``TrainConfig.chain_share``,
  ``chain_kill_share``), so the longest waits of the trained width are trained often;
- ``saturate``, for the DEQ cell only: the saturation cost
  (:func:`recur.models.cell.saturation_loss`, weight :data:`SATURATION_COST`), which
  keeps each entry near -1 or +1 before snapping, so that no entry flips back and forth
  and the solver's state settles.

Chosen on the registry's "holding recipe" seeds (:mod:`recur.core.seeds`) and the
skeptic's sums of 16 to 256 bits.
"""

from __future__ import annotations

PIECES = ("snap", "hold", "chains", "saturate")
HOLD_COST = 1.0  # weight of the hold cost beside the task loss
SATURATION_COST = 0.1  # weight of the DEQ's saturation cost
CHAIN_TRAINING = {"chain_share": 0.25, "chain_kill_share": 0.5}
# runs at most: one run in three passed no check on the "holding recipe" seeds
MAX_ATTEMPTS = 5


def check_pieces(without: tuple[str, ...]) -> None:
    unknown = set(without) - set(PIECES)
    if unknown:
        raise ValueError(f"unknown pieces {sorted(unknown)}: the pieces are {PIECES}")


def model_options(without: tuple[str, ...] = ()) -> dict:
    """The cell's options (snap, hold_cost) with every piece but ``without``."""
    check_pieces(without)
    return {
        "snap": "snap" not in without,
        "hold_cost": 0.0 if "hold" in without else HOLD_COST,
    }


def deq_options(without: tuple[str, ...] = ()) -> dict:
    """The DEQ cell's options: the cell's, and the saturation cost (``saturate``)."""
    saturation = 0.0 if "saturate" in without else SATURATION_COST
    return model_options(without) | {"saturation_cost": saturation}


def training_options(without: tuple[str, ...] = ()) -> dict:
    """The :class:`~recur.training.config.TrainConfig` settings the recipe adds."""
    check_pieces(without)
    return {} if "chains" in without else dict(CHAIN_TRAINING)


def page_settings() -> dict:
    """The recipe in the page trainer's names (``cell_model.js``'s ``HOLDING``)."""
    return {
        "snap": True,
        "holdCost": HOLD_COST,
        "chainShare": CHAIN_TRAINING["chain_share"],
        "chainKillShare": CHAIN_TRAINING["chain_kill_share"],
        "maxAttempts": MAX_ATTEMPTS,
    }
