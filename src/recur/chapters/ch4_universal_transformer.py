"""Chapter 4: a small Universal Transformer on binary addition
(:func:`recur.training.ut_recipe.train_ut`), Chapter 4's local UT with its restart
(:func:`train_local_ut`) and its full-attention UT (:func:`train_full_ut`), both at
once (:func:`train_both_uts`), and exact match after each round
(:func:`rounds_table`)."""

from __future__ import annotations

import pandas as pd

from recur.core.device import beside
from recur.core.tasks import AdditionBatch
from recur.training.checked import CheckedRun
from recur.training.config import restarting
from recur.training.evaluate import evaluate
from recur.training.ut_recipe import FULL_UT, LOCAL_UT, train_ut
from recur.views.text import percent_text


def train_local_ut(seed: int = 0, max_attempts: int = 2, **changes) -> CheckedRun:
    """Chapter 4's training procedure: :data:`LOCAL_UT`, and if 1,500 steps do not get
    every held-out pair right, again from the next seed of
    :func:`recur.training.config.attempt_seeds`, at most ``max_attempts`` runs
    (:func:`recur.training.config.restarting`); its check asks no more than every
    held-out pair right. The restart and the step cap rest on the live
    study's seeds (``data/live_seeds.csv``) and on seeds 820-859, used for nothing else,
    where every run got every held-out pair right by step 1,100. ``changes`` change
    the recipe (:meth:`UTRecipe.but`: ``device``, ``progress``, ...)."""
    recipe = LOCAL_UT.but(**changes)
    (model, run), n_runs, seconds = restarting(
        lambda attempt_seed: train_ut(recipe, attempt_seed),
        lambda result: result[1].reached,
        seed,
        max_attempts,
    )
    return CheckedRun(model, run, [], n_runs, seconds, extra_check=None)


def train_full_ut(seed: int = 0, **changes) -> tuple:
    """Chapter 4's full-attention UT: one run of :data:`FULL_UT`, (model, run);
    ``changes`` change the recipe (:meth:`UTRecipe.but`)."""
    return train_ut(FULL_UT.but(**changes), seed)


def train_both_uts(seed: int = 0, jobs: int = 1, **changes) -> tuple:
    """Chapter 4's two trainings, from the same ``seed``: (:func:`train_local_ut`'s
    run, :func:`train_full_ut`'s model and run). With ``jobs=2`` the full-attention UT
    trains in a second process (no progress bar there) while the local one trains
    here: on two cores, in the time of the longer one, with the same numbers, as each
    training is seeded by itself."""
    if jobs not in (1, 2):
        raise ValueError(f"jobs must be 1 or 2, got {jobs}")
    if jobs == 1:
        return train_local_ut(seed, **changes), train_full_ut(seed, **changes)
    with beside(train_full_ut, seed, **(changes | {"progress": False})) as full:
        local = train_local_ut(seed, **changes)
        return local, full.result()


def rounds_table(models: dict, batch: AdditionBatch, n_rounds: int) -> pd.DataFrame:
    """Exact match after each round for several fixed-round models (name -> model)."""
    return pd.DataFrame(
        {
            name: evaluate(model, batch, n_rounds).exact.numpy()
            for name, model in models.items()
        },
        index=pd.RangeIndex(1, n_rounds + 1, name="round"),
    )


SAME = 1e-6  # two shares of the same sums closer than this are the same count


def curve_words(model: pd.Series, rule: pd.Series, last: int) -> str:
    """Where a local model's exact match after each round lies against the exact
    rule's in rounds 1 .. ``last`` (both indexed by round), for the sentence "The local
    UT ...": above it after some round, on it in every round, or below it and then on
    it from some round (or never) through ``last``."""
    model, rule = model.loc[1:last], rule.loc[1:last]
    above = model.index[(model > rule + SAME).to_numpy()]
    if len(above):
        r = above[0]
        return (
            f"is above the rule's curve after round {r} ({percent_text(model[r])} "
            f"against {percent_text(rule[r])}): it guessed carries that had not yet "
            "arrived, and these sums rewarded the guesses"
        )
    gap = rule - model  # (rounds,): how far below the rule, >= 0
    below = gap.index[(gap > SAME).to_numpy()]
    if not len(below):
        return (
            f"is on the rule's curve in every round from 1 to {last}: it passes the "
            "carry one position per round, as the rule does"
        )
    worst = gap.idxmax()
    lag = f"{100 * gap[worst]:.1f} percentage points (after round {worst})"
    if below[-1] == last:
        return (
            f"stays below the rule's curve through round {last}, by up to {lag}: it "
            "passes the carry more slowly than the rule"
        )
    return (
        f"is below the rule's curve through round {below[-1]}, by up to {lag}, and on "
        f"it from round {below[-1] + 1} to round {last}: it learned to pass the carry "
        "one position per round"
    )


def example_words(first: dict, local: str, full: str, rule: str = "exact rule") -> str:
    """Two sentences on the running example from the first rounds of
    :func:`recur.chapters.ch2_shared_update.first_right_round` (``None``: wrong at the
    last listed round) of the ``local`` and ``full`` models and of the ``rule``, which
    is right from the round that the sum's longest carry chain needs."""
    needed = first[rule]
    return (
        f"{_local_example(first[local], needed)} {_full_example(first[full], needed)}"
    )


def _local_example(k: int | None, needed: int) -> str:
    if k is None:
        return "The local UT is still wrong on this sum after the last listed round."
    if k > needed:
        return f"The local UT is right only from round {k} of those listed: later."
    if k == needed:
        return (
            f"The local UT is right from round {k}, like the rule: its carry walks one "
            "place per round too."
        )
    return (
        f"The local UT is right from round {k}, before the rule: before round "
        f"{needed} the position that the longest carry must reach has not seen the "
        "bit where it starts, so its answer there is a guess that a carry is coming. "
        "This sum rewards the guess; the same propagating bits above a kill would "
        "not."
    )


def _full_example(k: int | None, needed: int) -> str:
    if k is None:
        return "The full-attention UT is still wrong on it after the last listed round."
    if k >= needed:
        return (
            f"The full-attention UT is right from round {k}: reading all the bits "
            "below at once did not make it faster than the rule on this sum."
        )
    return (
        f"The full-attention UT is right from round {k}, before a carry walking one "
        "place per round could arrive: it reads all the bits below at once, and this "
        "sum is one it gets right."
    )


def full_words(full: pd.Series, rule: pd.Series, bar: float, trained: int) -> dict:
    """Words for the full-attention UT's exact match after each round (``full``)
    against the rule's (``rule``): ``early``, whether it beats the rule after rounds 2
    and 3 (``shows`` and ``early``); whether it reaches ``bar`` after any round
    (``exact``, with its share after round ``trained``, the last its loss read, and
    ``reach``, with where it ended if it fell back)."""
    beats = [r for r in (2, 3) if full[r] > rule[r] + SAME]  # rounds it is ahead
    ahead = len(beats) == 2
    reached = full.index[(full >= bar).to_numpy()]
    last = full.index[-1]
    if len(reached):
        exact = f"It reaches {bar:.0%} of the sums after round {reached[0]}"
    else:
        exact = (
            f"{'But fast is not exact: it' if ahead else 'It'} does not reach "
            f"{bar:.0%} of the sums after any of the {last} rounds"
        )
    return {
        "shows": _shows_words(beats),
        "early": _early_words(beats),
        "exact": f"{exact} ({percent_text(full[trained])} after round {trained}, the "
        "last it was trained on)",
        "reach": _reach_words(full, bar, reached),
    }


def _shows_words(beats: list[int]) -> str:
    """Whether this run shows full attention ahead of the rule, after which of rounds
    2 and 3 (``beats``)."""
    if not beats:
        return "though this run does not show it"
    if len(beats) == 2:
        return "and here it shows"
    return f"and here it shows after round {beats[0]}"


def _early_words(beats: list[int]) -> str:
    """How the full-attention UT compared with the rule after rounds 2 and 3."""
    if len(beats) == 2:
        return "was right on more sums than the rule after rounds 2 and 3"
    if not beats:
        return "was right on no more sums than the rule after round 2 or round 3"
    other = 5 - beats[0]  # the other of rounds 2 and 3
    return (
        f"was right on more sums than the rule after round {beats[0]}, and on no "
        f"more after round {other}"
    )


def _reach_words(full: pd.Series, bar: float, reached: pd.Index) -> str:
    """Whether ``full`` reached ``bar`` after some round, and where it ended if it
    fell below ``bar`` again by its last round."""
    if not len(reached):
        return f"did not reach {bar:.0%} of the sums after any round"
    words = f"reached {bar:.0%} of the sums after round {reached[0]}"
    last = full.index[-1]
    if full[last] < bar:
        words += f", then fell to {percent_text(full[last])} by round {last}"
    return words
