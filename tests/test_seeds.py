"""The seeds registry: no reported number rests on seeds or sums spent on a choice."""

from __future__ import annotations

import pytest

from conftest import load_script
from recur.core import seeds
from recur.core.seeds import CHOOSE, REPORT, Seeds, clashes


def test_no_report_draws_from_a_choice():
    assert clashes() == []


def test_a_report_on_choosing_sums_or_seeds_is_caught():
    chose = Seeds("chose", 5, 9, 123, CHOOSE, "a setting")
    same_sums = Seeds("told", 50, 59, 123, REPORT, "a count")
    same_seeds = Seeds("told too", 9, 12, 456, REPORT, "a count")
    found = clashes((chose, same_sums, same_seeds), allowed={})
    assert found == [("chose", "told"), ("chose", "told too")]
    assert clashes((chose, same_seeds), {("chose", "told too"): "why"}) == []


def test_the_studies_take_their_seeds_from_the_registry():
    from recur.studies import act_studies as act
    from recur.studies import ch7_study as ch7

    twenty = list(seeds.by_name("twenty seeds").seeds)
    assert act.BOOK_SEEDS["seeds"] == twenty
    assert act.ACT_STUDIES["wide"].settings["seeds"] == twenty
    assert list(act.GIVE_UP["seeds"]) == list(seeds.by_name("give-up step").seeds)
    assert act.THIRD_RUN["seeds"] == list(seeds.by_name("third run").seeds)
    assert act.THIRD_RUN["sums_seed"] == seeds.CANDIDATE_SUMS
    assert list(ch7.SEEDS) == list(seeds.by_name("ACT against PonderNet").seeds)


def test_every_study_record_trains_seeds_of_its_registry_entry():
    """A study record names its registry entry, and the seeds it trains lie in it:
    one that strays is refused when it is written."""
    from recur.studies.methods import STUDY_TABLES
    from recur.studies.study import Study

    for study in STUDY_TABLES:
        entry = seeds.by_name(study.seeds)
        assert set(study.settings.get("seeds", ())) <= set(entry.seeds), study.name
    with pytest.raises(ValueError, match="outside its registry entry"):
        Study("x", "x.csv", "m", "c", "twenty seeds", settings={"seeds": [19, 20]})
    with pytest.raises(ValueError, match="no seeds registered"):
        Study("x", "x.csv", "m", "c", "twenty seed")


def test_the_seed_study_reports_on_fresh_sums_by_default():
    import inspect

    from recur.studies.seed_study import seed_runs

    default = inspect.signature(seed_runs).parameters["sums_seed"].default
    assert default == seeds.REPORT_SUMS == seeds.by_name("twenty seeds").sums_offset


@pytest.mark.parametrize("bad", [{"role": "guess"}, {"first": 9, "last": 3}])
def test_a_bad_entry_is_refused(bad):
    entry = {
        "name": "x",
        "first": 0,
        "last": 1,
        "sums_offset": None,
        "role": CHOOSE,
        "used_for": "y",
    } | bad
    with pytest.raises(ValueError):
        Seeds(**entry)


def test_the_table_lists_every_use():
    table = seeds.table()
    assert len(table) == len(seeds.REGISTRY)
    assert table.loc["give-up step", "training seeds"] == "860-899"
    assert table.loc["live run", "training seeds"] == "0"
    with pytest.raises(ValueError, match="no seeds registered"):
        seeds.by_name("nothing")


def test_the_table_says_what_each_test_sum_offset_is_added_to():
    """Chapter 6's studies draw sums per width, the live and browser studies per
    training seed (checked against their code below)."""
    table = seeds.table()
    assert table.loc["twenty seeds", "test sums"] == "9,000,000 + width"
    assert table.loc["live trainings", "test sums"] == "9,000,000 + training seed"
    assert table.loc["trained in the page", "test sums"] == "20,300,000 + training seed"
    assert table.loc["benchmark, Chapter 7", "test sums"] == "99 + training seed"
    with pytest.raises(ValueError, match="sums_per"):
        Seeds("x", 0, 1, 5, REPORT, "y", sums_per="bits")


def _source(function) -> str:
    import inspect

    return "".join(inspect.getsource(function).split())  # without spaces


def test_the_live_and_browser_studies_draw_sums_per_training_seed():
    from recur.studies import live

    entry = seeds.by_name("live trainings")
    assert entry.sums_per == seeds.PER_SEED
    assert "fresh=REPORT_SUMS+seed" in _source(live._test)
    assert "seed=REPORT_SUMS+seed" in _source(live.exact_at_8_bits)
    import inspect

    default = inspect.signature(live.live_seed_runs).parameters["seeds"].default
    assert list(default) == list(entry.seeds)
    browser = load_script("browser_train")
    assert seeds.by_name("trained in the page").sums_per == seeds.PER_SEED
    assert "seed=BROWSER_SUMS+seed" in _source(browser.exact_at_1024)


def test_the_benchmarks_train_and_test_on_the_registered_seeds():
    run = load_script("run")
    cell, deq = (
        seeds.by_name("benchmark, Chapter 2"),
        seeds.by_name("benchmark, Chapter 7"),
    )
    assert f"forseedinrange({len(cell.seeds)})" in _source(run.bench_shared)
    assert "seed=BENCH_CELL_SUMS)" in _source(run.bench_shared)  # + width inside
    assert run.BENCH_CELL_SUMS == cell.sums_offset
    assert f"forseedinrange({len(deq.seeds)})" in _source(run.bench_deq)
    assert "seed=BENCH_SUMS+seed" in _source(run.bench_deq)
    assert run.BENCH_SUMS == deq.sums_offset
    assert cell.first == deq.first == 0


def test_chapter_7s_study_draws_its_long_chains_from_the_registry():
    from recur.studies import ch7_study as ch7

    settle, distance = seeds.by_name("settling"), seeds.by_name("steps by distance")
    assert "seed=SETTLE_SUMS+n_bits" in _source(ch7._settle_rows)
    assert ch7.SETTLE_SUMS == settle.sums_offset
    assert "seed=DISTANCE_SUMS+DISTANCE_BITS" in _source(ch7._job_rows)
    assert (ch7.DISTANCE_SUMS, ch7.DISTANCE_BITS) == (distance.sums_offset, 32)
    assert list(settle.seeds) == list(distance.seeds) == list(ch7.SEEDS)
