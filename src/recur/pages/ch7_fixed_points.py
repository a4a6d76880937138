"""Chapter 7's glued values: from the code and the study tables (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

from functools import partial

import pandas as pd

from recur.chapters.ch7_fixed_points import (
    PAPER_MEMORY_SAVING,
    cap_words,
    iterations_words,
    restart_words,
    seeds_above,
    settle_words,
    solve_words,
)
from recur.chapters.ch7_pondernet import (
    comparison_words,
    ponder_settings,
    ranking_words,
    seeds_that_wait,
    study_summary,
)
from recur.chapters.ch7_pondernet import (
    study_values as ponder_study_values,
)
from recur.core.carry import RUNNING_EXAMPLE, parallel_add
from recur.pages.glue import plain, prefixed, read_table
from recur.studies import live as lt
from recur.views.bench_view import chapter_time
from recur.views.explorers import PAGE_MAX_BITS
from recur.views.text import small_number

WIDEST = 1024  # the widest sums the DEQ is tested on in the page
CHAIN = 32  # the chain length at which the page sets the two solvers side by side
MEMORY_ROUNDS = (9, 36)  # the fewest and most rounds of the memory figure
# the loops of the settling figure, in its order: glue key, and name for a sentence
LOOPS = {"injected": "the injected cell", "uninjected": "the cell without injection",
         "deq": "the DEQ cell", "act": "ACT's Transformer",
         "ponder": "PonderNet's Transformer"}  # fmt: skip


def code_values(bench="data/bench.jsonl") -> dict:
    """What the page states from the code: the running time (``make bench``), the
    round at which the running example's carries settle, the explorer's limit,
    PonderNet's settings (``pn_set_``) and the memory saving the DEQ paper reports."""
    trace = parallel_add(*RUNNING_EXAMPLE, n_rounds=6)
    values = {"run_time": chapter_time("07_fixed_points", bench),
              "fp_settle": trace.rounds_to_settle,
              "try_bits": PAGE_MAX_BITS["deq"]}  # fmt: skip
    values |= prefixed("pn_set", ponder_settings())
    return values | {"mem_paper_saving": PAPER_MEMORY_SAVING}  # quoted, not measured


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
        "finds it without being told how many rounds to run"
        if found
        else "found it for only part of the sums in this run"
    )
    stop = "the state had settled" if at["converged"] else "it had reached its cap"
    return values | {"deq_stop_1024": stop, "deq_cap_words": cap_words(widths)}


def iterations_values(iterations: pd.DataFrame) -> dict:
    """From the page's ``iterations_by_chain`` table: plain iteration's growth with the
    chain (``it_slope``, ``it_words``), both solvers at a chain of 32 and how
    Anderson's solve ended there, and the shares right (``it_``)."""
    it = iterations.pivot(index="longest chain", columns="method")
    plain_it, anderson = it["iterations"]["iteration"], it["iterations"]["anderson"]
    values = iterations_words(plain_it)
    values |= {"plain_32": plain_it[CHAIN], "anderson_32": anderson[CHAIN]}
    values["anderson_exact_32"] = it["exact"]["anderson"][CHAIN]
    values["plain_exact_min"] = it["exact"]["iteration"].min()
    converged = it["converged"]["anderson"][CHAIN]
    values["anderson_words"] = solve_words(anderson[CHAIN], converged)
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
    and settled (``settle_``), and the seeds above the tolerance (``settle_seeds_``)."""
    last = [float(values[-1]) for values in changes.values()]
    shown = {k: small_number(v) for k, v in zip(LOOPS, last, strict=True)}
    moved = settle_words(dict(zip(LOOPS.values(), last, strict=True)), tol)
    values = prefixed("settle", shown | moved)
    return values | prefixed("settle_seeds", seeds_above(settle, tol))
