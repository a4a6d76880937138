"""The studies over seeds that hold Chapter 6's model to its bar
(:mod:`recur.core.bars`): the ``seeds`` study (:func:`seed_runs`, Chapter 6's procedure
against the simpler one on 20 seeds) and the ``wide`` study, with the counts and
sentences a page glues from their tables. The single measurements are in
:mod:`recur.chapters.ch6_measures`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch6_act_ut import train_book_act
from recur.chapters.ch6_hardest import (
    HARDEST_NEWS,
    HARDEST_PAST,
    HARDEST_RIGHT,
    HARDEST_WRONG,
    hardest_columns,
)
from recur.chapters.ch6_measures import KILL_WAITS, act_length_table
from recur.core.bars import ROBUST, SUCCESS, WIDE_BAR
from recur.core.device import run_jobs
from recur.core.seeds import REPORT_SUMS
from recur.core.tasks import twice_width_plus_one
from recur.training.ut_recipe import BOOK_ACT, TUNED_ACT, UTRecipe, train_ut

SEED_WIDTHS = (8, 16, 32, 64)
WIDE_WIDTHS = (8, 128, 256, 512, 1024)  # the ``wide`` study (WIDE_BAR)
# The fresh sums of each width a model is tested on against the bar: random, and as many
# long chains as long waits without a carry (Chapter 6's live run is tested on as many)
TEST_SUMS, TEST_CHAINS = 300, 100
# The recipes a seeds study trains, by name: Chapter 6's (with its check and restarts)
# and the simpler procedure's (one run, no check)
RECIPES = {"BOOK_ACT": BOOK_ACT, "TUNED_ACT": TUNED_ACT}


def the_bar() -> dict:
    """:data:`SUCCESS` under names a page can glue."""
    names = {
        "exact": "exact",
        "chains": "exact, long chains",
        "beyond": "beyond at 8 bits",
    }
    return {short: SUCCESS[name] for short, name in names.items()}


def shortfalls(table: pd.DataFrame) -> list[str]:
    """Where one trained model misses Chapter 6's bar, from an
    :func:`act_length_table` with long chains: the widths with less than 99% of
    random or 97% of long-chain sums exact, and 8 bits if it halts more than 0.5
    steps beyond the carry there on average. Empty: it met the bar."""
    short = [
        f"{b} bits" for b, row in table.iterrows()
        if row["exact"] < SUCCESS["exact"]
        or row["exact, long chains"] < SUCCESS["exact, long chains"]
    ]  # fmt: skip
    if table.loc[8, "steps beyond the carry"] > SUCCESS["beyond at 8 bits"]:
        short.append("8 bits (it halts too late)")
    return short


def act_succeeded(table: pd.DataFrame) -> bool:
    """Chapter 6's bar for one trained model: no :func:`shortfalls`."""
    return not shortfalls(table)


def act_verdict(table: pd.DataFrame) -> dict:
    """What the page may say about one trained model, from its
    :func:`act_length_table` (with long chains, widths from 8): ``ok``, whether it met
    the bar at the widths up to 64 bits; ``words``, where it met it or fell short;
    ``claim``, the sentence that follows from that."""
    within = table.loc[[b for b in table.index if b <= 64]]
    short = shortfalls(within)
    if not short:
        widths = f"{within.index.min()} to {within.index.max()} bits"
        claim = (
            "The same shared layer, run for more rounds where the carry has further "
            "to go, computes more: the claim of this book, now made by a Transformer."
        )
        return {"ok": True, "words": f"meets it at every width from {widths}",
                "claim": claim}  # fmt: skip
    claim = (
        "This run, then, does not make the book's claim by itself: another seed, "
        "another machine or a changed setting can land here, and the twenty-seed "
        "study below shows how often a run of this recipe does."
    )
    words = "falls short of it at " + ", ".join(short)
    return {"ok": False, "words": words, "claim": claim}


def train_recipe(
    name: str, seed: int, recipe: UTRecipe | None = None, max_attempts: int = 3
) -> tuple:
    """``"BOOK_ACT"`` (:func:`train_book_act`, at most ``max_attempts`` runs) or
    ``"TUNED_ACT"`` (one run, no check), each by ``recipe`` (default: the named one):
    the model, the training seconds, the number of runs and whether the 8-bit check
    passed (``None``: no check)."""
    if name not in RECIPES:
        raise ValueError(f"recipe must be one of {', '.join(RECIPES)}, got {name!r}")
    recipe = recipe or RECIPES[name]
    if name == "BOOK_ACT":
        book = train_book_act(seed, max_attempts=max_attempts, recipe=recipe)
        return book.model, book.seconds, book.attempts, book.passed
    model, run = train_ut(recipe, seed)
    return model, run.seconds, 1, None


@dataclass(frozen=True)
class SeedTests:
    """What :func:`seed_runs` tests each model on: the widths, how many random and
    long-chain sums of each, their seeds' offset, the widest with long chains (``None``:
    all), and which columns to add: kill-ended waits, the hardest sums', and with them
    the answers' first right rounds."""

    widths: tuple[int, ...]
    n_sums: int
    long_chains: int
    sums_seed: int
    long_chains_up_to: int | None = None
    kill_waits: bool = False
    hardest: bool = False
    hardest_news: bool = True


@dataclass(frozen=True)
class SeedJob:
    """One training of :func:`seed_runs` and its tests: the recipe's name, the seed,
    the recipe itself (with the study's changes), the runs it may take, the tests."""

    name: str
    seed: int
    recipe: UTRecipe
    max_attempts: int
    tests: SeedTests


def _seed_rows(job: SeedJob) -> list[dict]:
    recipe, seed, tests = job.name, job.seed, job.tests
    widths, n_sums, long_chains = tests.widths, tests.n_sums, tests.long_chains
    sums_seed, kills, hardest = tests.sums_seed, tests.kill_waits, tests.hardest
    chains_up_to = tests.long_chains_up_to or max(widths)
    news = tests.hardest_news
    model, seconds, attempts, checked = train_recipe(
        recipe, seed, job.recipe, job.max_attempts
    )
    cap = twice_width_plus_one
    tables = [
        act_length_table(model, part, n_sums, cap, sums_seed, chains, kill_waits=kills)
        for part, chains in (
            ([w for w in widths if w <= chains_up_to], long_chains),
            ([w for w in widths if w > chains_up_to], 0),
        )
        if part
    ]
    table = pd.concat(tables)  # no long-chain column (NaN) above chains_up_to
    if hardest:  # the hardest sums of each width, at the same cap
        hard = [hardest_columns(model, b, cap(b), news) for b in table.index]
        table = table.join(pd.DataFrame(hard, index=table.index))
    success = act_succeeded(table) if 8 in table.index else False
    columns = ["exact", "exact, long chains", "halted before the carry"]
    columns += ["halted before the carry, long chains", "steps beyond the carry"]
    columns += [KILL_WAITS] if kills else []
    columns += [HARDEST_RIGHT, HARDEST_PAST, HARDEST_WRONG] if hardest else []
    columns += [HARDEST_NEWS] if hardest and news else []
    return [
        {"recipe": recipe, "seed": seed, "bits": n_bits}
        | row[columns].to_dict()
        | {"train seconds": seconds, "runs": attempts, "check passed": checked}
        | {"success": success}
        for n_bits, row in table.iterrows()
    ]


def seed_runs(
    recipes: tuple[str, ...] = ("BOOK_ACT", "TUNED_ACT"),
    seeds: tuple[int, ...] = tuple(range(20)),
    widths: tuple[int, ...] = SEED_WIDTHS,
    n_sums: int = TEST_SUMS,
    long_chains: int = TEST_CHAINS,
    sums_seed: int = REPORT_SUMS,
    jobs: int = 1,
    max_attempts: int = 3,
    long_chains_up_to: int | None = None,
    kill_waits: bool = False,
    hardest: bool = False,
    hardest_news: bool = True,
    **changes,
) -> pd.DataFrame:
    """The ``seeds`` study: train each recipe once per seed (:func:`train_recipe`,
    the recipe with ``changes``, :meth:`UTRecipe.but`, made here so that a misspelt
    one fails before any training), then test it on ``n_sums`` random and
    ``long_chains`` long-chain sums of each width (seeded ``sums_seed + width``, never
    used to choose anything), cap 2 (n + 1); ``long_chains_up_to`` limits the
    long-chain sums to the widths up to it (:class:`SeedTests`). One row per recipe,
    seed and width, with the run's training seconds, runs (attempts), whether its
    8-bit check passed and :func:`act_succeeded`. ``jobs`` > 1 runs that many seeds at
    once, each in its own process (one torch thread each)."""
    tests = SeedTests(widths, n_sums, long_chains, sums_seed, long_chains_up_to,
                      kill_waits, hardest, hardest_news)  # fmt: skip
    trained = {name: RECIPES[name].but(**changes) for name in recipes}
    tasks = [
        SeedJob(name, seed, trained[name], max_attempts, tests)
        for name in recipes
        for seed in seeds
    ]
    results = run_jobs(_seed_rows, tasks, jobs)
    return pd.DataFrame([row for rows in results for row in rows])


def meets_rule(met: int, n: int) -> bool:
    """Whether ``met`` of ``n`` seeds meets this book's rule for a result
    (:data:`ROBUST`: at least 19 seeds in 20, as a share)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    needed, out_of = ROBUST
    return met * out_of >= needed * n


def robust_words(met: int, n: int) -> str:
    """Whether ``met`` of ``n`` seeds meets this book's rule for a result
    (:data:`ROBUST`), as words for a page that states the count itself: "meets the
    book's rule of at least 19 seeds in 20" (each seed passing its chapter's bar)."""
    needed, out_of = ROBUST
    verdict = "meets" if meets_rule(met, n) else "falls short of"
    return f"{verdict} the book's rule of at least {needed} seeds in {out_of}"


def count_range(*counts: int) -> str:
    """Several counts of one thing (the same runs in other rounding, say) as words
    for a page: ``"19"`` when they agree, else ``"18 to 19"``, lowest first."""
    if not counts:
        raise ValueError("count_range needs at least one count")
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low} to {high}"


def seed_counts(table: pd.DataFrame, recipe: str) -> dict:
    """From a :func:`seed_runs` table, one recipe's runs: how many met the bar
    (``met``), of how many, the median and slowest training seconds, how many
    restarted and how many of those trained a third time."""
    runs = table[table["recipe"] == recipe].groupby("seed").first()  # (seeds, ...)
    return {
        "met": int(runs["success"].sum()),
        "n": len(runs),
        "median": float(runs["train seconds"].median()),
        "slowest": float(runs["train seconds"].max()),
        "restarted": int((runs["runs"] > 1).sum()),
        "third": int((runs["runs"] > 2).sum()),
    }


def waits_counts(table: pd.DataFrame) -> dict:
    """From a :func:`seed_runs` table with ``kill_waits``: per recipe, how many seeds
    added at least the bar's share of long-chain sums (:data:`SUCCESS`) of the long
    waits that end with no carry, at every width where they were measured."""
    waits = table.groupby(["recipe", "seed"], sort=False)[KILL_WAITS].min()  # (runs,)
    met = waits >= SUCCESS["exact, long chains"]
    return {recipe: int(m.sum()) for recipe, m in met.groupby(level=0, sort=False)}


def failure_counts(table: pd.DataFrame, recipe: str, n_bits: int = 64) -> dict:
    """Of one recipe's runs that missed the bar: how many, how many had passed their
    8-bit check, how many fell short on long chains at ``n_bits`` bits, how many had
    no position of the random sums halt before its carry could be known at that
    width (``waited``), and how many had positions of the long-chain sums that did
    (``early_on_chains``)."""
    at = _runs_at(table, recipe, n_bits)
    failed = at[~at["success"].astype(bool)]
    return {
        "n": len(failed),
        "checked": int((failed["check passed"] == True).sum()),  # noqa: E712 (NaN)
        "chains": int(
            (failed["exact, long chains"] < SUCCESS["exact, long chains"]).sum()
        ),
        "waited": int((failed["halted before the carry"] == 0).sum()),
        "early_on_chains": int(
            (failed["halted before the carry, long chains"] > 0).sum()
        ),
    }


def failure_words(counts: dict) -> str:
    """A sentence for a page from :func:`failure_counts`, following one that named
    the recipe: how many of its runs fell short, how many of those had passed their
    8-bit check and how many fell short on the long chains ("" when none did)."""
    n = counts["n"]
    if n == 0:
        return ""
    if n == 1:
        check = "had passed" if counts["checked"] else "had not passed"
        chains = "" if counts["chains"] else " not"
        return (
            f"One of its runs fell short; it {check} the check on 8-bit sums, and it "
            f"did{chains} fall short on the long-chain sums."
        )
    return (
        f"{n} of its runs fell short: {counts['checked']} of them had passed the check "
        f"on 8-bit sums, and {counts['chains']} fell short on the long-chain sums."
    )


def _runs_at(table: pd.DataFrame, recipe: str, n_bits: int) -> pd.DataFrame:
    """One recipe's rows of a :func:`seed_runs` table at one width: a row per seed."""
    return table[(table["recipe"] == recipe) & (table["bits"] == n_bits)]


def changed_outcomes(table: pd.DataFrame, other: pd.DataFrame, recipe: str) -> dict:
    """Two runs of the ``seeds`` study (same code, two machines): how many seeds met
    the bar in each, and how many seeds met it in one and not the other."""
    met = [
        t[t["recipe"] == recipe].groupby("seed")["success"].first().astype(bool)
        for t in (table, other)
    ]
    changed = _changed(*met)
    return {
        "here": int(met[0].sum()),
        "there": int(met[1].sum()),
        "changed": int(changed.sum()),
        "n": len(changed),
    }


def _changed(first: pd.Series, second: pd.Series) -> pd.Series:
    """Per run in both: True where it met the bar in one and not the other."""
    both = first.index.intersection(second.index)
    return first[both] != second[both]


def met_by_run(table: pd.DataFrame) -> pd.Series:
    """Of an :func:`act_runs` table with long chains: (variant, seed) -> whether that
    run met the bar (:func:`act_succeeded`) at the widths it was tested on."""
    runs = table.groupby(["variant", "seed"], sort=False)
    return runs.apply(lambda run: act_succeeded(run.set_index("bits")))


def widest_reached(runs: pd.DataFrame, bar: dict = WIDE_BAR) -> int:
    """The widest width up to which one model meets ``bar`` at every width of its
    rows (exact match on random and on long-chain sums; a width without long-chain
    sums, NaN, is judged on the random ones); 0 if not even the first."""
    widest = 0
    for n_bits, row in runs.sort_values("bits").set_index("bits").iterrows():
        if any(row[column] < share for column, share in bar.items()):
            break
        widest = int(n_bits)
    return widest


def wide_counts(table: pd.DataFrame) -> dict:
    """From the ``wide`` study (a :func:`seed_runs` table): per seed the widest width
    reached (:func:`widest_reached`); how many seeds reached 1,024 bits on random sums
    and 256 on long chains (``met``, the wide bar), of how many, and the median and
    smallest widest width."""
    met = 0
    for _, runs in table.groupby("seed"):
        at = runs.set_index("bits")
        met += bool(
            at.loc[1024, "exact"] >= WIDE_BAR["exact"]
            and at.loc[256, "exact, long chains"] >= WIDE_BAR["exact, long chains"]
        )
    widest = _widest_by_seed(table)
    return {"met": met, "n": len(widest), "median_widest": float(widest.median()),
            "least_widest": widest.min(), "most_widest": widest.max()}  # fmt: skip


def _widest_by_seed(table: pd.DataFrame) -> pd.Series:
    """:func:`widest_reached` for each seed of a ``wide`` study table."""
    return table.groupby("seed").apply(widest_reached, include_groups=False)
