"""Chapter 7's glued values: from the code and the study tables (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from recur.chapters.ch7_fixed_points import (
    DEQ_CHECK_CAP,
    DEQ_TRAINING,
    PAPER_MEMORY_SAVING,
    seeds_above,
)
from recur.chapters.ch7_pondernet import (
    RANKED,
    ponder_settings,
    seeds_that_wait,
    study_summary,
)
from recur.chapters.ch7_pondernet import (
    study_values as ponder_study_values,
)
from recur.core.carry import RUNNING_EXAMPLE, parallel_add
from recur.core.tasks import twice_width_plus_one
from recur.models.deq import SOLVER_TOL
from recur.pages.glue import plain, prefixed, read_table
from recur.studies import live as lt
from recur.training.config import TrainConfig
from recur.training.loop import SCREEN_PAIRS
from recur.views.bench_view import chapter_time
from recur.views.explorers import PAGE_MAX_BITS
from recur.views.text import listed, more_word, small_number

WIDEST = 1024  # the widest sums the DEQ is tested on in the page
CHAIN = 32  # the chain length at which the page sets the two solvers side by side
MEMORY_ROUNDS = (9, 36)  # the fewest and most rounds of the memory figure
# the loops of the settling figure, in its order: glue key, and name for a sentence
LOOPS = {"injected": "the injected cell", "uninjected": "the cell without injection",
         "deq": "the DEQ cell", "act": "ACT's Transformer",
         "ponder": "PonderNet's Transformer"}  # fmt: skip


def code_values(bench="data/bench.jsonl") -> dict:
    """What the page states from the code: the running time (``make bench``), the
    round at which the running example's carries settle, the explorer's limit, the DEQ
    cell's training (``deq_set_``), PonderNet's settings (``pn_set_``) and the memory
    saving the DEQ paper reports."""
    trace = parallel_add(*RUNNING_EXAMPLE, n_rounds=6)
    values = {"run_time": chapter_time("07_fixed_points", bench),
              "fp_settle": trace.rounds_to_settle,
              "try_bits": PAGE_MAX_BITS["deq"]}  # fmt: skip
    values |= prefixed("deq_set", deq_settings())
    values |= prefixed("pn_set", ponder_settings())
    return values | {"mem_paper_saving": PAPER_MEMORY_SAVING}  # quoted, not measured


def deq_settings() -> dict:
    """The DEQ cell's solver and training as the page states them: its tolerance, its
    solver cap in training and in the check, the held-out pairs the check tries first
    and the steps a run may take."""
    return {"tol": small_number(SOLVER_TOL), "cap": DEQ_TRAINING["n_rounds"],
            "check_cap": DEQ_CHECK_CAP, "screen": SCREEN_PAIRS,
            "max_steps": TrainConfig().n_steps}  # fmt: skip


def deq_seed_values(seeds: pd.DataFrame, one_run: pd.DataFrame) -> dict:
    """The DEQ's live-seed study (``live_seeds.csv``, ``seeds_deq_``), the same with
    one run per seed (``live_seeds_first_100.csv``, ``seeds_deq_one_run_``), and what
    the restart and the check each did (``deq_restart_``)."""
    checked = lt.live_counts(seeds, lt.CHAPTER7_DEQ)
    first = lt.live_counts(one_run, lt.CHAPTER7_DEQ)
    values = prefixed("seeds_deq", checked) | prefixed("seeds_deq_one_run", first)
    return values | prefixed("deq_restart", restart_words(checked, first))


def ponder_values(length: pd.DataFrame, distance: pd.DataFrame) -> dict:
    """The PonderNet study (``ch7_length.csv``, ``ch7_distance.csv``): its numbers
    (``pn_``), words comparing PonderNet with ACT (``pn_words_``, ``pn_rank``) and
    each method's least and most seed slope (``slopes_``)."""
    values = ponder_study_values(study_summary(length), distance)
    fits = distance.groupby(["method", "seed"])["slope"].first()  # a line per seed
    ranges = fits.groupby("method").agg(["min", "max"])  # over the seeds
    slopes = {f"{m}_{e}": v for (m, e), v in ranges.stack().items()}
    glued = prefixed("pn", values) | prefixed("pn_words", comparison_words(values))
    return glued | {"pn_rank": ranking_words(values)} | prefixed("slopes", slopes)


def pondernet_seed_values(seeds: pd.DataFrame) -> dict:
    """PonderNet's live-seed study (``live_seeds.csv``): its counts, the share of
    8-bit sums it is asked to learn, and its seeds that learned and waited
    (``seeds_pn_``)."""
    counts = lt.live_counts(seeds, lt.CHAPTER7_PONDERNET) | {"bar": lt.UT_EXACT}
    runs = seeds[seeds["model"] == lt.CHAPTER7_PONDERNET.name]
    counts |= seeds_that_wait(runs, lt.UT_EXACT, lt.PONDER_SLOPE)
    return prefixed("seeds_pn", counts)


def study_values(data="data") -> dict:
    """Every value of the page the study tables in ``data`` (``book/data``) give."""
    read = partial(read_table, data)  # read("live_seeds"): data/live_seeds.csv
    seeds = read("live_seeds")
    values = deq_seed_values(seeds, read("live_seeds_first_100"))
    values |= ponder_values(read("ch7_length"), read("ch7_distance"))
    values |= pondernet_seed_values(seeds)
    return {key: plain(value) for key, value in values.items()}


def training_values(deq_training, cell_run) -> dict:
    """From the page's DEQ training (a ``CheckedRun``) and its unrolled cell's run:
    what each did and whether it passed, the seconds to the DEQ's passing check, and
    the DEQ's solves that stopped at the cap while training (``deq_failed_``)."""
    deq, run = deq_training.model, deq_training.run
    values = {"deq_words": deq_training.words(),
              "deq_to_pass_s": float(run.history["seconds"].iloc[-1]),
              "deq_ok": deq_training.passed, "cell_words": cell_run.words(),
              "cell_ok": cell_run.reached}  # fmt: skip
    failed = deq.failed_solves | {"solves": deq.training_solves}
    return values | prefixed("deq_failed", failed)


def widths_values(widths: pd.DataFrame, sizes: dict) -> dict:
    """From the page's DEQ and cell on wider sums (a ``by_width`` table) with
    ``sizes`` sums per width: the DEQ's share right at 8 and 1,024 bits, its solve
    there, and words for what it found and where the solver stopped."""
    at = widths.loc[WIDEST]
    values = prefixed("deq", {"exact_8": widths.loc[8, "DEQ exact"],
                              "exact_1024": at["DEQ exact"],
                              "iters_1024": int(at["solver iterations"]),
                              "chain_1024": int(at["longest chain"]),
                              "sums_1024": sizes[WIDEST]})  # fmt: skip
    found = at["DEQ exact"] == 1.0
    values["deq_found"] = (
        "finds it without being told how many rounds to run, within a cap of 2(n + 1)"
        if found
        else "found it for only part of the sums in this run"
    )
    stop = "the state had settled" if at["converged"] else "it had reached its cap"
    return values | {"deq_stop_1024": stop, "deq_cap_words": cap_words(widths)}


def iterations_values(iterations: pd.DataFrame) -> dict:
    """From the page's ``iterations_by_chain`` table: plain iteration's growth with the
    chain (``it_slope``, ``it_words``), plain iteration at the shortest chain tried,
    both solvers at a chain of 32 and how
    Anderson's solve ended there, the chain lengths at which Anderson needed more
    iterations than plain iteration, and the shares right (``it_``)."""
    it = iterations.pivot(index="longest chain", columns="method")
    plain_it, anderson = it["iterations"]["iteration"], it["iterations"]["anderson"]
    values = iterations_words(plain_it)
    values |= {
        "plain_32": plain_it[CHAIN],
        "anderson_32": anderson[CHAIN],
        "plain_1": plain_it[plain_it.index.min()],
    }  # the shortest chain tried
    values["anderson_exact_32"] = it["exact"]["anderson"][CHAIN]
    values["plain_exact_min"] = it["exact"]["iteration"].min()
    converged = it["converged"]["anderson"][CHAIN]
    values["anderson_words"] = solve_words(anderson[CHAIN], converged)
    values["anderson_more"] = int((anderson > plain_it).sum())  # chain lengths
    values["anderson_capped"] = capped_words(it["converged"]["anderson"])
    values["lengths"] = len(it)
    return prefixed("it", values)


def memory_values(memory: pd.DataFrame) -> dict:
    """From the page's ``training_memory`` table: the memory each way of training keeps
    at 36 rounds, in MiB, and as a multiple of what it keeps at 9 (``mem_``)."""
    kept = memory.pivot(index="rounds", columns="method", values="bytes")
    fewest, most = MEMORY_ROUNDS
    ratio, mib = kept.loc[most] / kept.loc[fewest], kept.loc[most] / 2**20
    return prefixed("mem", {"implicit_ratio": ratio["implicit"],
                            "implicit_36": mib["implicit"],
                            "unrolled_ratio": ratio["unrolled backprop"],
                            "unrolled_36": mib["unrolled backprop"]})  # fmt: skip


def settle_values(changes: dict, settle: pd.DataFrame, tol: float) -> dict:
    """From the settling figure's curves (``changes``: a loop's change per round, in
    :data:`LOOPS`'s order), the settling study (``ch7_settle.csv`` at 8 bits) and the
    DEQ solver's tolerance: each loop's last change as words, the loops still moving
    and settled and the tolerance (``settle_``), and the seeds above it
    (``settle_seeds_``)."""
    last = [float(values[-1]) for values in changes.values()]
    shown = {k: small_number(v) for k, v in zip(LOOPS, last, strict=True)}
    moved = settle_words(dict(zip(LOOPS.values(), last, strict=True)), tol)
    values = prefixed("settle", shown | moved | {"tol": small_number(tol)})
    return values | prefixed("settle_seeds", seeds_above(settle, tol))


def capped_words(converged: pd.Series) -> str:
    """The chain lengths (``converged``'s index) whose solve stopped at its cap, as
    words: "at chains of 24 and 32", or "at no chain length"."""
    capped = [str(length) for length, done in converged.items() if not done]
    if not capped:
        return "at no chain length"
    return f"at {'a chain' if len(capped) == 1 else 'chains'} of {listed(capped)}"


def solve_words(n_iter: int, converged: bool) -> str:
    """How a solve ended, for the page: a solve that did not converge stopped at its
    cap, which is then ``n_iter``."""
    if converged:
        return f"converges after {n_iter} iterations"
    return f"stops at its cap of {n_iter} iterations without converging"


def iterations_words(chain: pd.Series) -> dict:
    """How plain iteration's solver iterations depend on the longest chain, for the
    page, from a series indexed by the chain length: the fitted ``slope`` (iterations
    per position of the chain) and ``words`` that follow from it."""
    if len(chain) < 2:
        raise ValueError("need iterations for at least two chain lengths")
    slope = float(np.polyfit(chain.index.to_numpy(float), chain.to_numpy(float), 1)[0])
    if slope >= 0.5:
        words = f"grow with the chain, by about {slope:.1f} per position of it"
    else:
        low, high = int(chain.min()), int(chain.max())
        words = (
            f"hardly depend on the chain in this run (a fitted {slope:.1f} per "
            f"position): {low} to {high} at every length tried"
        )
    return {"slope": slope, "words": words}


def cap_words(widths: pd.DataFrame) -> str:
    """What the solver did at each width of a :func:`by_width` table, for the page: the
    widths at which it stopped at its cap before every sum had settled, and whether the
    readout was right on every sum there all the same."""
    capped = widths[~widths["converged"].astype(bool)]
    if capped.empty:
        return "At every width the solver stopped because the state had settled."
    listed = " and ".join(f"{n_bits:,}" for n_bits in capped.index)
    caps = " and ".join(f"{twice_width_plus_one(n_bits):,}" for n_bits in capped.index)
    right = bool((capped["DEQ exact"] == 1.0).all())
    tail = ", though the readout was already right on every sum" if right else ""
    return (
        f"At {listed} bits the solver reached its cap of {caps} iterations, 2(n + 1), "
        f"before every sum had settled{tail}."
    )


def restart_words(checked: dict, one_run: dict) -> dict:
    """What the DEQ's restart and its check each did over the seeds, from two
    :func:`recur.studies.live.live_counts`: the chapter's procedure (``checked``) and
    one run per seed that stops at the first check with every held-out pair right
    (``one_run``, whose first run is the procedure's first attempt). A seed that never
    got there in one run passed the procedure only after a restart, so ``restarted``
    is a lower bound; ``rejected`` counts the one-run models that got there and yet
    missed a 1,024-bit sum, the ones a check at a longer solve could catch."""
    restarted = max(checked["reached"] - one_run["reached"], 0)
    rejected = one_run["reached"] - one_run["met"]
    if rejected == 0 and restarted > 0:
        words = "in this study the restart, not the check, made the difference"
    elif rejected > 0:
        words = f"{rejected} of them missed a sum, which is what the check is for"
    else:
        words = "neither the restart nor the check changed the count"
    return {"restarted": restarted, "rejected": rejected, "words": words}


def settle_words(last_change: dict[str, float], tol: float) -> dict:
    """Which loops still move in the last round measured, for the page: ``last_change``
    maps a loop's name to its state's change between the last two rounds (a share of
    its size); ``moving`` names those above ``tol``, ``settled`` the others."""
    if not last_change:
        raise ValueError("no loops to sort")

    def listed(names: list[str]) -> str:
        if len(names) < 2:
            return "".join(names) or "none"
        return ", ".join(names[:-1]) + " and " + names[-1]

    moving = [name for name, change in last_change.items() if change > tol]
    settled = [name for name, change in last_change.items() if change <= tol]
    return {"moving": listed(moving), "settled": listed(settled)}


def comparison_words(values: dict) -> dict:
    """Words for Chapter 7's comparison, from :func:`study_values`: whether PonderNet
    kept more or fewer of the random and the long-chain 64-bit sums than ACT (worst
    seed each), and how fast its steps grow with the carry distance beside ACT's."""
    return {
        "exact_64": more_word(values["PonderNet_exact_64"], values["ACT_exact_64"]),
        "chains_64": more_word(values["PonderNet_chains_64"], values["ACT_chains_64"]),
        "rate": values["PonderNet_slope"] / values["ACT_slope"],
    }


def ranking_words(values: dict) -> str:
    """Where ACT stands beside PonderNet, for the page, from :func:`study_values`: on
    how many of three measures ACT is ahead (more random and more long-chain 64-bit
    sums exact on the worst seed, fewer steps beyond the carry at 8 bits)."""
    ahead = [
        values["ACT_exact_64"] > values["PonderNet_exact_64"],
        values["ACT_chains_64"] > values["PonderNet_chains_64"],
        values["ACT_beyond_8"] < values["PonderNet_beyond_8"],
    ]
    if all(ahead):
        return f"came out ahead on all three measures above ({RANKED})"
    return f"came out ahead on {sum(ahead)} of the three measures above ({RANKED})"
