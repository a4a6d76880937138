"""Chapter 6's training procedure: :func:`train_book_act` trains the recipe
:data:`recur.training.ut_recipe.BOOK_ACT` with its check and restarts;
:func:`book_settings` gives the settings a page glues."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from recur.chapters.ch6_check import (
    CHECK_SUMS,
    DELAY,
    MAX_BEYOND,
    MAX_BUDGET_USED,
    MAX_RING_BUDGET,
    MIN_DELAYED,
    RING_ROUNDS,
    ActCheck,
    act_check,
)
from recur.models.ut import UniversalTransformer
from recur.training.config import (
    GiveUp,
    TrainResult,
    attempt_seeds,
    restarting,
)
from recur.training.ut_recipe import (
    BOOK_ACT,
    FIRST_ACT,
    TUNED_ACT,
    UTRecipe,
    train_ut,
)

# A run that has not passed its check by this step gives up when another run may
# follow, since one from a new seed is likelier to pass. Chosen on the first runs of
# seeds 860-899 (used for nothing else; book/data/act_give_up.csv): every run that
# passed its check had passed by step 900; the others never passed in 1,200 steps.
GIVE_UP_STEP = 1000
# The first step with a check: the first held-out check (every 100 steps) after the
# ponder cost's ramp (ACT_RAMP_STEPS), so every check sees the loss at its full weight.
FIRST_CHECK_STEP = 600


@dataclass
class BookRun:
    """What :func:`train_book_act` returns: the model (the best checkpoint of the last
    attempt), that attempt's training run, every check of every attempt, the check of
    the checkpoint kept, the number of attempts and the seconds of all of them."""

    model: UniversalTransformer
    run: TrainResult
    checks: list[ActCheck]
    kept: ActCheck | None
    attempts: int
    seconds: float

    @property
    def passed(self) -> bool:
        return self.kept is not None and self.kept.passed

    def words(self) -> str:
        """What happened, for the page: derived from the checks, never assumed."""
        runs = "one training run" if self.attempts == 1 else f"{self.attempts} runs"
        if self.kept is None:
            return f"made no check in {runs} (too few steps)"
        if self.passed:
            return f"passed the check at step {self.kept.step:,}, in {runs}"
        return (
            f"passed no check in {runs}; the page goes on with the best checkpoint "
            f"(step {self.kept.step:,}), which fails the check"
        )


def _attempt(
    seed: int, checks: list, min_step: int, give_up_step: int | None, recipe: UTRecipe
):
    """One training run of ``recipe`` (BOOK_ACT) that keeps its best checkpoint and
    stops at the first check (from ``min_step`` on) that passes, or gives up at the
    first check from ``give_up_step`` on that fails (None: never); the model, the run
    and the check of the checkpoint kept (``None`` if no check was made)."""
    best: dict = {}

    def done(model, row) -> bool:
        if row["step"] < min_step:
            return False
        check = act_check(model, row, seed)
        checks.append(check)
        if not best or check.score() > best["check"].score():
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best.update(check=check, state=state)
        late = give_up_step is not None and row["step"] >= give_up_step
        if late and not check.passed:
            raise GiveUp  # another run from a new seed is likelier to pass
        return check.passed

    model, run = train_ut(recipe, seed, done)
    if best:
        model.load_state_dict(best["state"])
    return model, run, best.get("check")


def train_book_act(
    seed: int = 0,
    max_attempts: int = 3,
    min_step: int = FIRST_CHECK_STEP,
    give_up_step: int = GIVE_UP_STEP,
    recipe: UTRecipe = BOOK_ACT,
    **changes,
) -> BookRun:
    """Chapter 6's training procedure: :data:`BOOK_ACT` with :func:`act_check` from
    step ``min_step`` on (after the ponder cost's ramp), keeping the best checkpoint
    and stopping once one passes; if none passes by step ``give_up_step``, it starts
    again with the next seed of :func:`recur.training.config.attempt_seeds`, at most
    ``max_attempts`` runs in all (the last run never gives up: it trains all its
    steps and keeps its best checkpoint). Only sums of at most 8 bits are used.
    ``changes`` change ``recipe`` (:meth:`UTRecipe.but`: ``device``, ``progress``,
    ...)."""
    recipe = recipe.but(**changes)
    checks: list[ActCheck] = []
    last = attempt_seeds(seed, max_attempts)[-1]

    def train_once(attempt_seed: int):
        give_up = None if attempt_seed == last else give_up_step
        return _attempt(attempt_seed, checks, min_step, give_up, recipe)

    (model, run, kept), n_runs, seconds = restarting(
        train_once,
        lambda result: result[2] is not None and result[2].passed,
        seed,
        max_attempts,
    )
    return BookRun(model, run, checks, kept, n_runs, seconds)


def train_first_act(seed: int = 0, **changes) -> tuple:
    """One run of :data:`FIRST_ACT`, the first recipe, (model, run): what the page's
    explorer shows beside the chapter's model. ``changes`` change the recipe."""
    return train_ut(FIRST_ACT.but(**changes), seed)


def simpler_settings() -> dict:
    """The simpler procedure's numbers a page glues (:data:`TUNED_ACT`)."""
    return {"cap": TUNED_ACT.n_rounds, "steps": TUNED_ACT.n_steps}


def book_settings() -> dict:
    """Chapter 6's procedure in numbers a page can glue: :data:`BOOK_ACT`'s training
    settings, :func:`train_book_act`'s defaults and :class:`ActCheck`'s limits."""
    defaults = inspect.signature(train_book_act).parameters
    return {
        "steps": BOOK_ACT.n_steps, "lr": BOOK_ACT.lr,
        "tau": BOOK_ACT.model.halting.ponder_weight,
        "cap": BOOK_ACT.n_rounds, "chain_share": BOOK_ACT.chain_share,
        "kill_share": BOOK_ACT.chain_kill_share, "noise": BOOK_ACT.model.halting.noise,
        "pause": BOOK_ACT.model.pause, "every": BOOK_ACT.eval_every,
        "first_check": defaults["min_step"].default,
        "attempts": defaults["max_attempts"].default, "give_up": GIVE_UP_STEP,
        "check_sums": CHECK_SUMS, "beyond": MAX_BEYOND, "budget": MAX_BUDGET_USED,
        "delay": DELAY, "delayed": MIN_DELAYED, "ring_rounds": RING_ROUNDS,
        "ring_budget": MAX_RING_BUDGET, "ramp": BOOK_ACT.config(0).aux_warmup,
    }  # fmt: skip
