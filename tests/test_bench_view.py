"""The Performance page's readable tables, expected texts written by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from recur.views.bench_view import bench_sections, label_of, value_text

LABELLED = {  # name: (section, label), written by hand
    "carry_trace_4096bit_random": (
        "Chapter 1", "one parallel-carry trace, 4,096 random bits"),
    "act_ut_exact_64bit_long_chains": (
        "Chapter 6", "exact on 64-bit long chains, worst seed"),
    "act_ut_exact_64bit": ("Chapter 6", "exact on random 64-bit sums, worst seed"),
    "deq_peak_mib_unrolled_36_max": (
        "Chapter 7", "peak memory, unrolled, 36 iterations, max"),
    "chapter_seconds_06_act_ut": ("Executing the book", "Chapter 6"),
    "chapter_seconds_ending": ("Executing the book", "the closing page"),
    "attention_masked_over_banded_4096_cpu": (
        "One round of attention", "masked / banded attention time, n = 4,096, cpu"),
    "something_new": ("Other", "something_new"),
}  # fmt: skip


def test_names_become_labels_in_their_chapter():
    for name, want in LABELLED.items():
        assert label_of(name) == want, name


def test_values_get_three_figures_percent_and_milliseconds():
    assert value_text(0.0003, "s") == ("0.3", "ms")
    assert value_text(147.2616, "s") == ("147", "s")
    assert value_text(1.0825, "ratio") == ("1.08", "ratio")
    assert value_text(1.0043, "ratio") == ("1.00", "ratio")
    assert value_text(1023.9961, "MiB") == ("1,024", "MiB")
    assert value_text(45.7376, "time ratio") == ("45.7", "time ratio")
    assert value_text(0.4399, "steps") == ("0.44", "steps")
    assert value_text(0.9996, "fraction of 2000 sums") == ("99.9%", "of 2,000 sums")
    assert value_text(0.0167, "fraction, worst of 10") == ("1.7%", "worst of 10")
    # a seed range stays in the registry and the methods appendix, not in a unit
    assert value_text(6, "of 10 seeds (100-109)") == ("6", "of 10 seeds")
    assert value_text(6, "of 10 seeds (100–109)") == ("6", "of 10 seeds")


def test_sections_come_in_chapter_order_with_unknowns_last():
    bench = pd.DataFrame(
        [["x_new", 2.0, "s"], ["deq_exact_1024bit", 1.0, "fraction of 200 sums"],
         ["carry_trace_8bit_worst", 0.5, "s"]],
        columns=["name", "value", "unit"],
    )  # fmt: skip
    sections = bench_sections(bench)
    assert list(sections) == ["Chapter 1", "Chapter 7", "Other"]
    row = sections["Chapter 7"].loc["the DEQ cell, exact on random 1,024-bit sums"]
    assert row.tolist() == ["100.0%", "of 200 sums", "deq_exact_1024bit"]


def test_sections_shown_elsewhere_get_no_table():
    bench = pd.DataFrame(
        [["chapter_seconds_06_act_ut", 40.0, "s"],
         ["attention_masked_over_banded_1024_cpu", 2.0, "time ratio"],
         ["deq_exact_1024bit", 1.0, "fraction of 200 sums"]],
        columns=["name", "value", "unit"],
    )  # fmt: skip
    assert list(bench_sections(bench)) == ["Chapter 7"]  # a figure, and a section


def test_page_title_by_hand(tmp_path):
    from recur.views.bench_view import page_title

    assert page_title("07_fixed_points", tmp_path) == "Chapter 7"
    cell = {
        "cell_type": "markdown",
        "source": ["Intro text\n", "# What one more round bought\n"],
    }
    (tmp_path / "ending.ipynb").write_text(json.dumps({"cells": [cell]}))
    assert page_title("ending", tmp_path) == "What one more round bought"
    (tmp_path / "bare.ipynb").write_text(json.dumps({"cells": []}))
    with pytest.raises(ValueError, match="no title"):
        page_title("bare", tmp_path)
    # a numbered file whose title is not numbered: a chapter's page, by its title
    for stem, title in [("06_act_ut", "# 6. The ACT"), ("06_pieces", "# Why each")]:
        page = {"cells": [{"cell_type": "markdown", "source": [title + "\n"]}]}
        (tmp_path / f"{stem}.ipynb").write_text(json.dumps(page))
    assert page_title("06_act_ut", tmp_path) == "Chapter 6"
    assert page_title("06_pieces", tmp_path) == "Why each"


def test_gpu_check_summary_by_hand():
    from recur.views.bench_view import gpu_check_summary

    checks = [
        {"gpu": "X"},
        {"chapter": "02_a", "glued": {
            "steps": {"gpu": "650", "cpu": "550"},  # differs
            "slope": {"gpu": "1.0005419580419577", "cpu": "1.000541958041958"},  # same
            "old_ok": {"gpu": "True", "cpu": None},  # only one run glued it
        }},
        {"chapter": "07_b", "glued": {"deq_ok": {"gpu": "False", "cpu": "True"},
                                      "words": {"gpu": "'a'", "cpu": "'a'"},
                                      "deq_words": {"gpu": "'stalled at 52%'",
                                                    "cpu": "'passed'"}}},
        {"tests": "1 passed"},
    ]  # fmt: skip
    summary = gpu_check_summary(checks, {"07_b": "Chapter 7"})
    assert (summary["compared"], summary["differ"]) == (5, 3)
    assert summary["verdicts"] == (
        "Chapter 7, where the DEQ cell's training passed its check on the CPU and not"
        " on the GPU (on the GPU it stalled at 52%)"
    )
    assert gpu_check_summary(checks[:2])["verdicts"] == "no page"


def test_units_get_thousands_and_median_is_said_once():
    from recur.views.bench_view import bench_sections, value_text

    assert value_text(0.5, "fraction of 2000 sums")[1] == "of 2,000 sums"
    bench = pd.DataFrame({"name": ["act_ut_training_seconds"], "value": [40.6],
                          "unit": ["s, median"]})  # fmt: skip
    table = next(iter(bench_sections(bench).values()))
    assert "median" in table.index[0] and table["unit"].iloc[0] == "s"


def test_two_decimals_down_to_a_tenth_and_pages_by_name():
    assert value_text(0.7029, "time ratio") == ("0.70", "time ratio")
    assert value_text(0.0431, "ratio") == ("0.043", "ratio")
    assert label_of("chapter_seconds_intro")[1] == "the introduction"
    assert label_of("chapter_seconds_methods")[1] == "the methods appendix"


def test_chapter_seconds_in_the_books_order_and_drawn_as_bars():
    """Rows written in any order come back introduction first, then the chapters by
    number, then the back matter; the bars are those seconds, the first page on top."""
    from pathlib import Path

    import matplotlib.pyplot as plt

    from recur.views.plots_bench import chapter_seconds, plot_chapter_seconds

    book = Path(__file__).resolve().parents[1] / "book"
    rows = [("chapter_seconds_ending", 5.0), ("chapter_seconds_02_shared_update", 80.0),
            ("chapter_seconds_intro", 4.0), ("chapter_seconds_01_parallel_carry", 8.0),
            ("shared_seconds_alone", 7.0)]  # fmt: skip
    bench = pd.DataFrame(rows, columns=["name", "value"])
    seconds = chapter_seconds(bench, book)
    assert list(seconds.index) == [
        "Introduction",
        "Chapter 1",
        "Chapter 2",
        "What one more round bought",
    ]
    assert list(seconds) == [4.0, 8.0, 80.0, 5.0]
    fig = plot_chapter_seconds(seconds)
    bars = sorted(fig.axes[0].patches, key=lambda bar: -bar.get_y())  # top first
    assert [bar.get_width() for bar in bars] == [4.0, 8.0, 80.0, 5.0]
    plt.close(fig)
    with pytest.raises(ValueError, match="run make bench"):
        chapter_seconds(bench[bench["name"] == "shared_seconds_alone"], book)


def test_a_median_shows_its_least_and_most_run_beside_it():
    bench = pd.DataFrame(
        [["deq_peak_mib_implicit_9", 133.2, "MiB above baseline, median of 5"],
         ["deq_peak_mib_implicit_9_min", 113.3, "MiB"],
         ["deq_peak_mib_implicit_9_max", 156.9, "MiB"],
         ["x_min", 2.0, "s"]],  # no median x: a row of its own
        columns=["name", "value", "unit"],
    )  # fmt: skip
    sections = bench_sections(bench)
    table = sections["Chapter 7"]
    assert len(table) == 1 and table["value"].iloc[0] == "133 (113 to 157)"
    assert table["bench.jsonl entry"].iloc[0] == "deq_peak_mib_implicit_9"
    assert sections["Other"]["bench.jsonl entry"].tolist() == ["x_min"]


def test_a_runs_old_words_read_as_todays():
    from recur.views.bench_view import run_words_now

    old = (
        "did not reach the target in 1,500 steps: it adds 52.49% of the 10,000 "
        "held-out pairs checked last"
    )
    assert run_words_now(old) == (
        "did not reach its target in 1,500 steps; at its last check it added 52.49% of "
        "10,000 held-out pairs"
    )
    assert run_words_now("added all 10,000 held-out pairs") == (
        "added all 10,000 held-out pairs"
    )
