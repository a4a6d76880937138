"""Chapter 6's glued values from its settings and its study tables (``book/data``):
one function per table, each returning ``{glue key: value}``, and :func:`study_values`
reading them all. The values of the page's own training run are in
:mod:`recur.pages.ch6_live`."""

from __future__ import annotations

from functools import partial

import pandas as pd

from recur.chapters.ch6_act_ut import book_settings, simpler_settings
from recur.chapters.ch6_check import (
    MAX_BUDGET_USED,
    MAX_RING_BUDGET,
    RING_ROUNDS,
    restart_counts,
    restart_words,
)
from recur.chapters.ch6_measures import (
    HALT_AT,
    KILL_WAITS,
    SMALL_H,
    TRAINED_WAIT,
    clock_kind,
    halted_early_by_variant,
)
from recur.core.bars import HARDEST_PAST, WIDE_BAR
from recur.core.hardest import hardest_sums
from recur.core.intervals import interval_range, interval_text
from recur.models.act import ACT_TARGET
from recur.pages.glue import plain, prefixed, read_table
from recur.pages.machines import pins_note
from recur.studies import hardest_study as hs
from recur.studies import seed_study as ss
from recur.training.ut_recipe import FIRST_ACT
from recur.views.bench_view import chapter_time
from recur.views.explorers import MAX_BITS, PAGE_MAX_BITS

CHAINS = "exact, long chains"
# the position signals of the positions study (act_positions.csv), by glue key
POSITIONS = {
    "sin": "sinusoid (positions 0-8)",
    "none": "no position signal",
    "rel": "relative attention bias",
    "shift": "sinusoid, random shift 0-16",
}
# the variants of the simpler procedure's study (act_recipe.csv), by glue key
VARIANTS = {"base": "the recipe", "nofloor": "no floor", "nopos": "no position signal",
            "round": "with the round signal", "random": "random sums only"}  # fmt: skip
# the variants of the waiting study (act_waiting.csv), by glue key
WAITING = {"recipe": "the recipe", "clock": "with the round signal",
           "quiet": "no halting noise"}  # fmt: skip
WAITING_BITS = 32  # the width whose waiting positions the page reads
# the parts of the check (act_give_up.csv), by glue key
PARTS = {"held": "held-back carries", "rings": "rings", "chains": "long chains",
         "budget": "halting budget", "beyond": "steps beyond the carry"}  # fmt: skip
RECIPES = {"book": "BOOK_ACT", "tuned": "TUNED_ACT"}  # the seeds study's, by glue key


def settings_values(bench="data/bench.jsonl") -> dict:
    """The numbers the prose states that the code sets: the procedures' settings
    (``set_``, ``simple_``, ``first_``), the bar, the halting threshold and what the
    check's limits allow, the hardest sums, the tests' sizes, the explorer's limits and
    the page's running time (``make bench``'s ``bench``)."""
    values = prefixed("set", book_settings()) | prefixed("simple", simpler_settings())
    values |= {"first_tau": FIRST_ACT.model.halting.ponder_weight,
               "first_cap": FIRST_ACT.n_rounds, "first_steps": FIRST_ACT.n_steps,
               "act_target": ACT_TARGET}  # fmt: skip
    values |= prefixed("bar", ss.the_bar()) | {"halt_at": HALT_AT}
    # how many times as long a waiting position could wait at the check's limits
    values["budget_times"] = round(HALT_AT / MAX_BUDGET_USED)
    values["ring_reach"] = round(RING_ROUNDS * HALT_AT / MAX_RING_BUDGET)
    hardest = {"n": len(hardest_sums(8).names), "past": HARDEST_PAST}
    values |= prefixed("hardest", hardest)
    values |= prefixed("tested", {"random": ss.TEST_SUMS, "chains": ss.TEST_CHAINS})
    values |= {"try_bits": PAGE_MAX_BITS["act"], "try_bits_kernel": MAX_BITS // 2}
    return values | {"run_time": chapter_time("06_act_ut", bench)}


def position_values(positions: pd.DataFrame) -> dict:
    """From the positions study (``act_positions.csv``): per position signal, the
    mean share of random sums right and mean steps at 8 and 24 bits (``pos_sin_8``,
    ``pos_sin_steps_24``, ...)."""
    by_width = positions.groupby(["variant", "bits"])
    mean, steps = by_width["exact"].mean(), by_width["mean steps"].mean()
    values = {}
    for key, name in POSITIONS.items():
        at = {8: mean[name, 8], 24: mean[name, 24]}
        at |= {"steps_8": steps[name, 8], "steps_24": steps[name, 24]}
        values |= prefixed(f"pos_{key}", at)
    return values


def tau_values(sweep: pd.DataFrame) -> dict:
    """From the tau sweep (``act_tau.csv``): per tau the mean share right, mean steps
    and mean steps beyond the carry over its runs, and its worst run's share right
    (``tau_0.1_exact``, ``tau_0.1_steps``, ``tau_0.1_carry``, ``tau_0.1_min``)."""
    columns = ["exact", "mean steps", "steps beyond the carry"]
    by_tau = sweep.groupby("tau")[columns].mean()
    by_tau = by_tau.rename(columns=lambda c: c.split()[-1])  # exact, steps, carry
    by_tau["min"] = sweep.groupby("tau")["exact"].min()  # the worst run
    values = {}
    for tau, row in by_tau.iterrows():
        values |= prefixed(f"tau_{tau:g}", row.to_dict())
    return values


def warmup_values(warm: pd.DataFrame) -> dict:
    """From the ramp study (``act_warmup.csv``): words for how many runs with the
    ponder cost at full weight from step 1, and how many with it ramped, reached
    ``ACT_TARGET`` (a run that did not has no ``seconds to 99%``)."""
    reached = warm.groupby("variant")["seconds to 99%"].agg(["count", "size"])
    full = reached.loc["full weight from step 1"]
    ramped = reached.loc["ramped over 500 steps"]
    return {"warm_words": ramp_words(full["count"], ramped["count"], full["size"])}


def length_values(length: pd.DataFrame) -> dict:
    """From the length study (``act_length.csv``): the variant with the most random
    64-bit sums right on average, its mean share at 8 and 64 bits, and the most
    long-chain 16-bit sums any variant got right on average."""
    mean = length.groupby(["variant", "bits"])[["exact", CHAINS]].mean()
    best = mean["exact"].unstack("bits")[64].idxmax()
    values = {"len_best_name": best}
    values |= prefixed("len_best", {b: mean.loc[(best, b), "exact"] for b in (8, 64)})
    chains_16 = mean[CHAINS].unstack("bits")[16].max()
    return values | {"len_chains_16": float(chains_16)}


def recipe_values(recipe: pd.DataFrame) -> dict:
    """From the simpler procedure's study (``act_recipe.csv``): per variant how many
    runs met the bar, of how many, the mean share of random 8-bit and of long-chain
    64-bit sums right (``rec_base_met``, ``rec_base_runs``, ``rec_base_x8``,
    ``rec_base_chains64``), and words comparing random sums alone with the recipe."""
    met = ss.met_by_run(recipe).groupby(level="variant").agg(["sum", "size"])
    at = recipe.groupby(["variant", "bits"])[["exact", CHAINS]].mean()
    values = {}
    for key, name in VARIANTS.items():
        counts = {"met": met.loc[name, "sum"], "runs": met.loc[name, "size"]}
        counts |= {"x8": at.loc[(name, 8), "exact"],
                   "chains64": at.loc[(name, 64), CHAINS]}  # fmt: skip
        values |= prefixed(f"rec_{key}", counts)
    alone, base = met.loc[VARIANTS["random"], "sum"], met.loc[VARIANTS["base"], "sum"]
    runs = met.loc[VARIANTS["base"], "size"]  # each variant's runs
    return values | {"far_words": long_chain_words(alone, base, runs)}


def waiting_values(waiting: pd.DataFrame) -> dict:
    """From the waiting study (``act_waiting.csv``) at 32 bits: per variant the mean
    h_r of waiting positions in round 1 and over rounds 2 to 8 (mean over seeds, per
    round) and the share that halted early (``wait_recipe_first``, ``_mid``,
    ``_early``); and words, seed by seed, for the variant with the round signal."""
    wide = waiting[waiting["bits"] == WAITING_BITS]
    early = halted_early_by_variant(wide)
    h = wide.groupby(["variant", "round"])["mean h while waiting"].mean()
    values = {}
    for key, name in WAITING.items():
        h_r = h[name]  # mean over seeds, per round
        at = {"first": h_r[1], "mid": h_r.loc[2:8].mean(), "early": early[name]}
        values |= prefixed(f"wait_{key}", at)
    clock = wide[wide["variant"] == WAITING["clock"]]
    return values | {"wait_clock_words": clock_words(clock)}


def seed_values(seeds: pd.DataFrame) -> dict:
    """From the twenty-seed study (``act_seeds.csv``): the simpler procedure's mean
    shares at 64 bits (``tuned64_``), the seeds that add the waits without a carry
    (``waits_``), each recipe's counts (``seeds_book_``, ``hard_book_``, ...) and
    words for the book's failed runs."""
    tuned = seeds.query("recipe == 'TUNED_ACT' and bits == 64").mean(numeric_only=True)
    values = prefixed("tuned64", {"chains": tuned[CHAINS], "waits": tuned[KILL_WAITS]})
    waits = ss.waits_counts(seeds)
    values |= prefixed("waits", {key: waits[r] for key, r in RECIPES.items()})
    for key, recipe in RECIPES.items():
        values |= recipe_counts(seeds, key, recipe)
    failed = ss.failure_words(ss.failure_counts(seeds, "BOOK_ACT"))
    return values | {"seeds_failed_words": failed}


def recipe_counts(seeds: pd.DataFrame, key: str, recipe: str) -> dict:
    """One recipe's counts of the twenty-seed study: its seeds that met the bar, with
    words and the rates the count does not rule out (``seeds_{key}_``; ``_range`` for a
    table), and its
    counts on the hardest sums (``hard_{key}_``)."""
    counts = ss.seed_counts(seeds, recipe)
    met, n = counts["met"], counts["n"]
    counts |= {"words": ss.robust_words(met, n), "interval": interval_text(met, n),
               "range": interval_range(met, n)}  # fmt: skip
    hard = hs.hardest_counts(seeds, recipe)
    hard["interval"] = interval_text(hard["met"], hard["n"])
    hard["range"] = interval_range(hard["met"], hard["n"])
    hard["words"] = ss.robust_words(hard["met"], hard["n"])
    return prefixed(f"seeds_{key}", counts) | prefixed(f"hard_{key}", hard)


def hundred_values(hundred: pd.DataFrame) -> dict:
    """From the hundred-seed study (``act_hundred.csv``, Chapter 6's procedure alone):
    its counts as :func:`recipe_counts` gives the twenty seeds' (``seeds_hundred_``,
    ``hard_hundred_``)."""
    return recipe_counts(hundred, "hundred", "BOOK_ACT")


def hundred_wide_values(wide: pd.DataFrame) -> dict:
    """From the hundred seeds tested up to 1,024 bits (``act_hundred_wide.csv``), what
    :func:`wide_values` gives of the twenty (``wide_hundred_``), and how many met the
    wide bar, of how many, with the rates that count does not rule out."""
    values = wide_values(wide)
    values = {k.removeprefix("wide_"): v for k, v in values.items() if "bar" not in k}
    values["interval"] = interval_text(values["met"], values["n"])
    return prefixed("wide_hundred", values)


BROWSER_WIDTHS = (8, 16, 32, 64)  # the page's widths row


def browser_values(runs: pd.DataFrame) -> dict:
    """From the procedure run in Chromium (``browser_act_seeds.csv``, one row per page
    seed): how many seeds, how many passed the check (with its interval), the median
    and longest seconds to the verdict, and how many passing models got every hardest
    sum of 8 to 64 bits right by the library's own count (``browser_act_``)."""
    passed = runs["passed"].astype(bool)
    hardest = [f"hardest {bits}, library" for bits in BROWSER_WIDTHS]
    all_hard = passed & runs[hardest].astype(bool).all(axis=1)
    values = {
        "n": len(runs),
        "passed": int(passed.sum()),
        "interval": interval_text(int(passed.sum()), len(runs)),
        "median": float(runs["seconds"].median()),
        "slowest": float(runs["seconds"].max()),
        "hardest": int(all_hard.sum()),
        "restarted": int((runs["attempts"] > 1).sum()),
    }
    return prefixed("browser_act", values)


def trainer_expectation(runs: pd.DataFrame) -> str:
    """The sentence the page's trainer shows before the click: how long the
    procedure took in the study (:func:`browser_values`' median and longest)."""
    values = browser_values(runs)
    n, median = values["browser_act_n"], values["browser_act_median"]
    return (
        f"On a 2-core machine (headless Chromium), {n} seeds each finished training, "
        f"its check passed or not, after a median of {median:.0f} s (at most "
        f"{values['browser_act_slowest']:.0f} s), every restart counted; a faster "
        "machine takes less."
    )


def pairs_values(pairs: pd.DataFrame) -> dict:
    """From the pairs study (``act_pairs.csv``): the hardest-sum counts with and
    without pairs read as sets, the rates each does not rule out, how the late ones
    were late, and the chance that a random run of 8 propagating pairs is all one
    way round."""
    counts = hs.pair_counts(pairs)
    values = prefixed("pairs", counts | {"run8": 2.0 ** (1 - 8)})
    for key in ("with", "without"):
        met, n = counts[f"{key}_met"], counts[f"{key}_n"]
        values[f"pairs_{key}_interval"] = interval_text(met, n)
    return values | {"pairs_news_words": news_words(counts)}


def restart_values(third: pd.DataFrame) -> dict:
    """From the third-run study (``act_third_run_rows.csv``): the restarts measured on
    the check (``restart_``). What each part of the check decides is the methods
    appendix's (:func:`recur.pages.methods.part_values`)."""
    restart = restart_counts(third)
    restart["passed"] = restart["first"] + restart["later"]
    restart["words"] = restart_words(restart)
    return prefixed("restart", restart)


def wide_values(wide: pd.DataFrame) -> dict:
    """From the wide study (``act_wide.csv``): the wide bar (``WIDE_BAR``), the seeds
    that met it and how wide each reached (``wide_met``, ``wide_n``, ...), the seeds at
    the bar on random 1,024-bit and on long-chain 256-bit sums, and the seeds with
    every hardest sum right at 256 and 1,024 bits."""
    at = wide.set_index("bits")
    values = {"wide_bar_exact": WIDE_BAR["exact"], "wide_bar_chains": WIDE_BAR[CHAINS]}
    values |= prefixed("wide", ss.wide_counts(wide))
    values["wide_1024"] = int((at.loc[1024, "exact"] >= WIDE_BAR["exact"]).sum())
    values["wide_chains_256"] = int((at.loc[256, CHAINS] >= WIDE_BAR[CHAINS]).sum())
    right = hs.hardest_by_width(wide)["all right"]  # seeds with every one right
    return values | prefixed("wide_hard", {b: int(right[b]) for b in (256, 1024)})


def study_values(data="data") -> dict:
    """Every value of :mod:`recur.pages.ch6_act_ut` the study tables in ``data``
    give (``book/data``), read from their CSV files."""
    read = partial(read_table, data)  # read("act_seeds"): data/act_seeds.csv
    values = position_values(read("act_positions")) | tau_values(read("act_tau"))
    values |= warmup_values(read("act_warmup")) | length_values(read("act_length"))
    values |= recipe_values(read("act_recipe")) | waiting_values(read("act_waiting"))
    values |= seed_values(read("act_seeds")) | pairs_values(read("act_pairs"))
    values |= hundred_values(read("act_hundred"))
    values |= hundred_wide_values(read("act_hundred_wide"))
    values |= restart_values(read("act_third_run_rows"))
    values |= wide_values(read("act_wide")) | browser_values(read("browser_act_seeds"))
    values["hundred_pins_words"] = pins_note(data, "act_hundred", "The hundred seeds")
    return {key: plain(value) for key, value in values.items()}


def long_chain_words(alone: int, with_chains: int, runs: int) -> str:
    """What a study of a few runs says of long chains in training, for a page: runs
    that met the bar trained on random sums only (``alone``) and with a share of long
    chains (``with_chains``), of ``runs`` each; a difference of one run is no
    evidence either way."""
    said = (
        f"trained on random sums only, {alone} of {runs} runs met the chapter's bar, "
        f"against {with_chains} of {runs} with the long chains: "
    )
    if abs(alone - with_chains) <= 1:
        return said + (
            "so few runs cannot tell the two apart, and the quarter rests on "
            "the argument."
        )
    helped = "helped" if with_chains > alone else "did not help"
    return said + f"the long chains {helped}."


def ramp_words(full: int, ramped: int, runs: int) -> str:
    """What a study of a few runs says of ramping the ponder cost in, for a page: runs
    that reached the held-out target with the cost at full weight from the first step
    (``full``) and ramped in (``ramped``), of ``runs`` each; a difference of one run is
    no evidence either way."""
    said = (
        f"{full} of {runs} runs with the penalty at full weight from the first "
        f"step got there, and {ramped} of {runs} ramped ones"
    )
    if abs(full - ramped) <= 1:
        return said + ": too few runs to tell apart, so the ramp rests on the argument."
    return said + (
        ": the ramp helped." if ramped > full else ": the ramp did not help."
    )


def news_words(kinds: dict) -> str:
    """What a page may say of :func:`late_kinds`: how the late models were late."""
    if kinds["late"] == 0:
        return "None that got every one right halted late."
    rest = kinds["late"] - kinds["news_late"] - kinds["ran_on"]
    words = (
        f"Of the {kinds['late']} that got every one right but halted late, "
        f"{kinds['news_late']} had their latest halt within a round of their latest "
        "answer to turn right: the carry's news itself was slow. In "
        f"{kinds['ran_on']}, every answer was right in time and positions ran on"
    )
    return words + (f"; the other {rest} did some of each." if rest else ".")


_NUMBERS = ("no", "one", "two", "three", "four")  # seed counts in words


def _who(i: int, n: int, n_groups: int, n_seeds: int) -> str:
    """The seeds of the ``i``-th of ``n_groups`` clauses, ``n`` of ``n_seeds``: "all
    three seeds", "both seeds", "one seed", "another seed", "the third seed", "the
    other two seeds"."""
    if n_groups == 1 and n > 1:
        return "both seeds" if n == 2 else f"all {_NUMBERS[n]} seeds"
    if i == 0:
        return "one seed" if n == 1 else f"{_NUMBERS[n]} seeds"
    if i < n_groups - 1:
        return "another seed" if n == 1 else f"{_NUMBERS[n]} other seeds"
    if n > 1:
        return f"the other {_NUMBERS[n]} seeds"
    return {2: "the other seed", 3: "the third seed"}.get(n_seeds, "the last seed")


def clock_words(waiting: pd.DataFrame) -> str:
    """What :func:`clock_kind` finds for each seed of one model's
    :func:`halting_while_waiting` rows (``seed``, ``round``, ``mean h while
    waiting``), to follow "the waiting positions' h_r": "in all three seeds it ..."
    where the seeds agree, else "differs from seed to seed. In one seed it ...", a
    sentence per kind (the page's full stop ends the last)."""
    kinds = pd.DataFrame(
        [
            clock_kind(runs.set_index("round")["mean h while waiting"])
            for _, runs in waiting.groupby("seed")
        ],
        columns=["kind", "h", "round"],
    )
    clauses = []
    groups = list(kinds.groupby("kind", sort=False))
    for i, (kind, group) in enumerate(groups):
        who = _who(i, len(group), len(groups), len(kinds))
        h, r = group["h"].max(), group["round"].max()
        what = {
            "halts": f"reaches {h:.2f} and its running sum passes {HALT_AT} by round "
            f"{r}, so the positions halt long before their carry",
            "late": f"stays below {SMALL_H} up to round {TRAINED_WAIT} and then grows, "
            f"up to {h:.2f}, as if the halting units read the round off the signal",
            "high": f"reaches {h:.2f} by round {r} without halting the positions",
            "never": f"stays below {SMALL_H} in every round",
        }[kind]
        clauses.append(f"in {who} it {what}")
    if len(clauses) == 1:
        return clauses[0]
    # one sentence each: together they run past the 60 words a sentence may have
    sentences = [c[0].upper() + c[1:] for c in clauses]
    return "differs from seed to seed. " + ". ".join(sentences)
