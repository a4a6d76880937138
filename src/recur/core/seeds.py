"""Every range of training seeds and every offset of test sums that the book uses,
and what each was used for.

A range is either spent on *choosing* something (a setting, a piece of a procedure, a
check) or used to *report* a result. A reported number must not rest on what was used
to choose, so ``tests/test_seeds.py`` checks that no study in :data:`REGISTRY` that
reports draws its test sums from a choosing offset, and that training seeds overlap a
choosing range only where :data:`OVERLAPS` says so and why. The methods appendix of
the book prints :func:`table`.

Test sums of ``n`` bits are drawn with the seed ``offset + n``, except where an
entry's ``sums_per`` is :data:`PER_SEED`: there a run of training seed ``s`` is tested
on sums drawn with ``offset + s``. A restarted run trains from ``seed + 1000 * attempt``
(:data:`RESTART_STRIDE`, :func:`recur.training.config.attempt_seeds`).

Every seed offset the library, the benchmarks and the page's trainer add is named
here; ``tests/test_seed_literals.py`` refuses an offset typed anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

CHOOSE, REPORT = "choose", "report"
PER_WIDTH, PER_SEED = "width", "training seed"  # what is added to a test-sum offset


@dataclass(frozen=True)
class Seeds:
    """One use of seeds: training seeds ``first..last`` (inclusive) and the offset of
    the test sums, plus the sums' width or the run's training seed (``sums_per``), for
    ``role`` (:data:`CHOOSE` or :data:`REPORT`)."""

    name: str
    first: int
    last: int
    sums_offset: int | None
    role: str
    used_for: str
    sums_per: str = PER_WIDTH

    def __post_init__(self):
        if self.role not in (CHOOSE, REPORT):
            raise ValueError(f"role must be choose or report, got {self.role!r}")
        if self.sums_per not in (PER_WIDTH, PER_SEED):
            raise ValueError(
                f"sums_per must be width or training seed, got {self.sums_per!r}"
            )
        if self.last < self.first:
            raise ValueError(f"{self.name}: last seed {self.last} < first {self.first}")

    @property
    def seeds(self) -> range:
        return range(self.first, self.last + 1)


# Test-sum offsets (plus the width, or the training seed where an entry says so)
CHOICE_SUMS = 2024  # the first studies of Chapter 6, which chose the model's pieces
CANDIDATE_SUMS = 8_000_000  # choosing between candidate procedures
REPORT_SUMS = 9_000_000  # the twenty-seed studies: never used to choose
PAGE_SUMS = 7000  # Chapter 6's live run, tested on the page
SETTLE_SUMS = 5000  # Chapter 7's settling study (long chains)
DISTANCE_SUMS = 4000  # Chapter 7's steps by carry distance (32 bits: seed 4032)
BENCH_SUMS = 99  # make bench's act_ut entry (+ width) and its DEQ cell (+ seed)
BENCH_CELL_SUMS = 123  # make bench's Chapter 2 cell
BROWSER_SUMS = 20_300_000  # Chapter 2's cell trained in the browser, then tested
# Chapter 6's model trained in the browser: the page's widths row of training seed s
# draws its n-bit sums from the page's generator seeded s + this + n
BROWSER_ACT_SUMS = 20_400_000
INJECTION_SUMS = 10_000  # Chapter 3's injection ablation (+ training seed + width)
KILL_WAIT_SUMS = 1_000_000  # added to a length table's offset: its long waits, no carry

# Offsets added to a run's own training seed inside a procedure: the held-out pairs
# every training keeps out of its batches, and the sums of Chapter 6's check. The
# check's three lie about a million or more from each other and from every test set
# above (an offset plus a width or a seed of a few thousand), so that a check never
# draws the sums a study is tested on.
HELDOUT_PAIRS = 1_000_003  # recur.training.loop.heldout_pairs, and the page's trainer
CHECK_LONG_CHAINS = 2_000_003  # act_check's long-chain 8-bit sums
CHECK_DELAYED = 3_000_017  # act_check's sums whose carries it holds back
CHECK_RANDOM = 4_000_037  # act_check's random 8-bit sums
RESTART_STRIDE = 1000  # restart k of a checked procedure trains from seed + k * this
# The page's trainer draws its weights from seed and its training batches from
# seed + PAGE_BATCHES, one generator each; the library seeds both with seed itself
# (torch's global generator and a torch.Generator: recur.core.device.seed_everything).
PAGE_BATCHES = 7
# Chapter 6's page draws its 2,000 held-out random 8-bit sums, and as many long chains
# beside them, from this seed itself (no width added).
PAGE_HELD_SUMS = 11
# The sums other figures of the pages draw, each from this seed itself (no width or
# training seed added); none is used to choose anything.
PAGE_EXAMPLE_SUMS = 1  # random 8-bit sums by round (Chapters 2, 4), waits (Chapter 6)
PONDER_MAP_SUMS = 7  # Chapter 6's map of steps by position: twelve random 8-bit sums
PAGE_CHAIN_SUMS = 5  # Chapter 6: the longest waits of long-chain 8- and 64-bit sums
PAGE_UNSEEN_CHAINS = 7001  # Chapter 6: steps by distance on 64-bit long chains
DEQ_WIDTH_SUMS = 100  # Chapter 7: the DEQ and the unrolled cell at each width

REGISTRY = (
    Seeds("first recipe", 0, 4, CHOICE_SUMS, CHOOSE,
          "Chapter 6's first studies: the time penalty, the ramp, the position signal, "
          "the length study"),
    Seeds("recipe pieces", 0, 2, CHOICE_SUMS, CHOOSE,
          "the floor, no round signal, halting noise and long chains in training "
          "(the recipe and waiting studies)"),
    Seeds("no-carry runs", 100, 109, None, CHOOSE,
          "half of the long training runs end with no carry"),
    Seeds("held-back carries", 500, 509, None, CHOOSE,
          "the check's held-back carries: how long (56 rounds) and the share right "
          "(99%)"),
    Seeds("rings", 600, 609, None, CHOOSE,
          "the check's rings and the limit they set on the halting sum"),
    Seeds("cell check", 600, 619, None, CHOOSE,
          "Chapter 2's check that held-out answers stay right"),
    Seeds("local UT steps", 820, 859, None, CHOOSE, "Chapter 4's cap of 1,500 steps"),
    Seeds("give-up step", 860, 899, None, CHOOSE,
          "the step at which a first run gives up (act_give_up.csv)"),
    Seeds("third run", 900, 919, CANDIDATE_SUMS, CHOOSE,
          "a third run, and training on unhalted sums only (act_third_run_*.csv)"),
    Seeds("pairs as sets", 940, 959, CANDIDATE_SUMS, CHOOSE,
          "reading each pair of bits as a set: the hardest sums of 8 to 64 bits, "
          "with it and without it (act_pairs.csv)"),
    Seeds("twenty seeds", 0, 19, REPORT_SUMS, REPORT,
          "Chapter 6's twenty-seed counts: its seeds, other-rounding and wide studies"),
    Seeds("hundred seeds", 5000, 5099, REPORT_SUMS, REPORT,
          "Chapter 6's procedure, a hundred seeds (restarts: 6000-6099, 7000-7099)"),
    Seeds("live trainings", 0, 19, REPORT_SUMS, REPORT,
          "the twenty-seed counts of the live trainings of Chapters 2, 3, 4 and 7",
          PER_SEED),
    Seeds("ACT against PonderNet", 0, 2, REPORT_SUMS, REPORT,
          "Chapter 7's comparison of the two halting rules"),
    Seeds("settling", 0, 2, SETTLE_SUMS, REPORT,
          "Chapter 7's comparison: how the states settle on long chains"),
    Seeds("steps by distance", 0, 2, DISTANCE_SUMS, REPORT,
          "Chapter 7's comparison: steps by carry distance, 32-bit long chains"),
    Seeds("live run", 0, 0, PAGE_SUMS, REPORT, "Chapter 6's run on the page"),
    Seeds("benchmark", 300, 309, BENCH_SUMS, REPORT,
          "make bench: Chapter 6's procedure, time and count"),
    Seeds("benchmark, Chapter 2", 0, 2, BENCH_CELL_SUMS, REPORT,
          "make bench: Chapter 2's cell, time to a passed check and sums right"),
    Seeds("benchmark, Chapter 7", 0, 2, BENCH_SUMS, REPORT,
          "make bench: Chapter 7's DEQ cell, time and 1,024-bit sums right", PER_SEED),
    Seeds("benchmark timings", 0, 0, None, REPORT,
          "make bench and the GPU run: how long Chapters 2 and 6 take to train"),
    Seeds("freed memory", 710, 710, None, CHOOSE,
          "whether returning freed memory to the system speeds Chapter 6's training"),
    Seeds("trained in the page", 0, 19, BROWSER_SUMS, REPORT,
          "Chapter 2's cell trained in Chromium by the page's own random numbers "
          "(browser_cell_seeds.csv)", PER_SEED),
    Seeds("browser cell new seeds", 2200, 2219, BROWSER_SUMS, REPORT,
          "Chapter 2's cell trained in the page (browser_cell_seeds_new.csv)",
          PER_SEED),
    Seeds("cell third run", 100, 120, None, CHOOSE,
          "Chapter 2's third run (library and page seeds)"),
    Seeds("trained in the page, Chapter 6", 0, 19, BROWSER_ACT_SUMS, REPORT,
          "Chapter 6's procedure trained in the page (browser_act_seeds.csv)",
          PER_SEED),
    Seeds("holding recipe", 3100, 3119, None, CHOOSE,
          "the holding recipe's pieces, and the search for the skeptic's families "
          "(skeptic_choose.csv: 16 to 256 bits)"),
    Seeds("holding recipe in the page", 0, 19, None, REPORT,
          "Chapter 2's holding recipe trained in the page, on the skeptic's 1,024-bit "
          "sums (browser_train.py --holding: browser_cell_holding.csv)", PER_SEED),
    Seeds("skeptic's sums", 0, 19, None, REPORT,
          "the cells of Chapters 2, 3 and 7 and Chapter 6's Transformer on the "
          "skeptic's sums (skeptic_report.csv: 64 to 1,024 bits; 4,096 in "
          "skeptic_wide.csv)"),
)  # fmt: skip


# Training seeds shared by a choosing and a reporting use, and why that is allowed:
# the report then tests on sums no choice saw, and says the seeds were among those.
OVERLAPS = {
    ("first recipe", "twenty seeds"): "the report's test sums are fresh",
    ("recipe pieces", "twenty seeds"): "the report's test sums are fresh",
    ("first recipe", "ACT against PonderNet"): "the report's test sums are fresh",
    ("recipe pieces", "ACT against PonderNet"): "the report's test sums are fresh",
    ("first recipe", "settling"): "the report's test sums are fresh",
    ("recipe pieces", "settling"): "the report's test sums are fresh",
    ("first recipe", "steps by distance"): "the report's test sums are fresh",
    ("recipe pieces", "steps by distance"): "the report's test sums are fresh",
    ("first recipe", "live run"): "the page's test sums are fresh",
    ("recipe pieces", "live run"): "the page's test sums are fresh",
    ("first recipe", "live trainings"): "other models, on fresh sums",
    ("recipe pieces", "live trainings"): "other models, on fresh sums",
    ("first recipe", "benchmark, Chapter 2"): "another model, on fresh sums",
    ("recipe pieces", "benchmark, Chapter 2"): "another model, on fresh sums",
    ("first recipe", "benchmark, Chapter 7"): "another model, on fresh sums",
    ("recipe pieces", "benchmark, Chapter 7"): "another model, on fresh sums",
    ("first recipe", "benchmark timings"): "a time, not a test",
    ("recipe pieces", "benchmark timings"): "a time, not a test",
    ("first recipe", "trained in the page"): "another model, and the page's own draws",
    ("recipe pieces", "trained in the page"): "another model, and the page's own draws",
    ("first recipe", "trained in the page, Chapter 6"): "the page's own draws",
    ("first recipe", "skeptic's sums"): "other models, and sums no choice saw",
    ("recipe pieces", "skeptic's sums"): "other models, and sums no choice saw",
    ("first recipe", "holding recipe in the page"): "another model, the page's draws",
    ("recipe pieces", "holding recipe in the page"): "another model, the page's draws",
    ("recipe pieces", "trained in the page, Chapter 6"): "the page's own draws",
}


def by_name(name: str) -> Seeds:
    """The registry entry called ``name``."""
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    raise ValueError(f"no seeds registered as {name!r}")


def clashes(studies: tuple[Seeds, ...] = REGISTRY, allowed: dict = OVERLAPS) -> list:
    """Pairs (choosing, reporting) that share training seeds without an entry in
    ``allowed``, or that share a test-sum offset at all."""
    found = []
    for chose in (s for s in studies if s.role == CHOOSE):
        for told in (s for s in studies if s.role == REPORT):
            offset = chose.sums_offset
            same_sums = offset is not None and offset == told.sums_offset
            shared = set(chose.seeds) & set(told.seeds)
            if same_sums or (shared and (chose.name, told.name) not in allowed):
                found.append((chose.name, told.name))
    return found


def table() -> pd.DataFrame:
    """The registry as a table for the methods appendix."""

    def span(s: Seeds) -> str:
        return f"{s.first}" if s.first == s.last else f"{s.first}-{s.last}"

    rows = [
        {
            "use": s.name,
            "role": s.role,
            "training seeds": span(s),
            "test sums": "-"
            if s.sums_offset is None
            else f"{s.sums_offset:,} + {s.sums_per}",
            "used for": s.used_for,
        }
        for s in REGISTRY
    ]
    return pd.DataFrame(rows).set_index("use")
