"""The figures and the widget: they draw what the library computed and report bad input
in the widget instead of raising."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from recur.core.carry import chain_growth, parallel_add
from recur.views import explorers
from recur.views.palette import COLORS, MEANING
from recur.views.plots_carry import draw_round, plot_chain_growth, trace_player
from recur.views.widgets import MAX_BITS, carry_explorer, round_html


def test_a_round_draws_every_cell():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    draw_round(parallel_add("0111", "0001"), 2, ax)
    assert len(ax.patches) == 4 * 5  # four rows, carry out + four bits
    assert "after 2 rounds" in ax.get_title(loc="left")
    plt.close(fig)


def test_player_has_one_frame_per_round_and_alt_text():
    player = trace_player(parallel_add("0111", "0001")).data
    assert 'alt="The rounds of 0111 + 0001' in player
    assert player.count("data:image/png;base64") == 5
    slider = re.search(r'<input[^>]*type="range"[^>]*>', player).group(0)
    assert 'aria-label="frame of the animation"' in slider  # WCAG 4.1.2: a name


def test_chain_growth_figure_has_fit_in_legend():
    growth = chain_growth([4, 8, 16], n_pairs=100)
    fig = plot_chain_growth(growth)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert any(growth.fit_text in label for label in labels)


def _cells_coloured(html: str, color: str) -> int:
    return len(re.findall(rf'<td style="[^"]*background:{color}', html))


def test_round_html_marks_moved_carries():
    html = round_html(parallel_add("0111", "0001"), 1)
    assert "after <b>1</b> of 4 rounds" in html
    assert _cells_coloured(html, COLORS["moved"]) == 1  # one carry arrived in round 1


def test_round_html_marks_wrong_bits_and_the_chain_in_the_books_colours():
    """0111 + 0001 = 01000. By hand: after round 1 the readout is 00100 (bits 3 and 2
    wrong), after round 3 it is right; the chain runs from bit 0 to bit 3."""
    trace = parallel_add("0111", "0001")
    assert _cells_coloured(round_html(trace, 1), COLORS["wrong"]) == 2
    assert _cells_coloured(round_html(trace, 3), COLORS["wrong"]) == 0
    assert round_html(trace, 3).count(f"border-bottom:4px solid {COLORS['chain']}") == 4
    for key in ("moved", "wrong", "chain"):  # the grid's legend is in the view
        assert MEANING[key] in round_html(trace, 0)


def _parts(view):
    inputs, message, tabs = view.children[0], *view.children[-2:]
    return inputs.children[0], inputs.children[1], message, tabs


def test_the_static_page_shows_read_only_fields_that_say_why(monkeypatch):
    """Built for the static book (no kernel), a field that cannot compute must not
    look as if it could; run in Jupyter, it takes typing."""
    from recur.views.widgets import tabbed_explorer

    def build(a, b):
        return "note", [("round 0", "page")]

    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    view = tabbed_explorer("01", "10", build)
    text_a, text_b, message, tabs = _parts(view)
    assert text_a.disabled and text_b.disabled
    assert "static page" in view.children[1].value
    monkeypatch.delenv("RECUR_STATIC_PAGE")
    view = tabbed_explorer("01", "10", build)
    assert not any(field.disabled for field in _parts(view)[:2])
    assert len(view.children) == 3


def test_the_static_carry_explorer_is_left_to_the_browser(monkeypatch):
    """Chapter 1's explorer computes in the static page: an element for
    carry.js with the sum and the palette's colours; bad input fails in the notebook."""
    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    page = carry_explorer("0111", "0001").data
    assert 'class="carry-explorer"' in page and 'data-a="0111"' in page
    assert COLORS["moved"] in page and MEANING["wrong"] in page
    with pytest.raises(ValueError, match="not binary"):
        carry_explorer("2x", "1")
    with pytest.raises(ValueError, match=f"up to {MAX_BITS} bits"):
        carry_explorer("1" * (MAX_BITS + 1), "1")


def test_explorer_has_a_tab_per_round():
    text_a, text_b, message, tabs = _parts(carry_explorer("0111", "0001"))
    assert len(tabs.children) == 5
    assert tabs.titles[3] == "round 3"
    assert "settles after 3 rounds" in message.value


def test_explorer_updates_and_reports_bad_input():
    text_a, text_b, message, tabs = _parts(carry_explorer())
    text_a.value = "1111"
    assert len(tabs.children) == 6
    assert "sum 10000 = 16" in message.value
    text_b.value = "12"
    assert "not binary" in message.value
    text_b.value = "1" * (MAX_BITS + 1)
    assert f"up to {MAX_BITS} bits" in message.value
    assert len(tabs.children) == 6  # the last good sum stays on screen


def test_readable_tables_show_percent_and_rounded_numbers():
    import pandas as pd

    from recur.views.text import readable

    exact = [0.996, 1.0, 0.9996, 0.8719, 0.07]
    seconds = [46.177867, float("nan"), 1, 2, -0.0004]
    table = pd.DataFrame({"exact": exact, "seconds": seconds})
    shown = readable(table, percent=("exact",), decimals=1)
    # rounded as the prose is (87.19 -> 87.2), but a miss never reads 100%
    assert shown["exact"].tolist() == ["99.6%", "100.0%", "99.9%", "87.2%", "7.0%"]
    assert shown["seconds"].tolist() == ["46.2", "–", "1.0", "2.0", "0.0"]  # not -0.0
    assert table["seconds"].iloc[0] == 46.177867  # the numbers stay in the input


def test_training_table_shows_percent_pairs_and_seconds():
    import pandas as pd

    from recur.training.config import TrainResult

    history = pd.DataFrame(
        {"step": [50, 100], "loss": [0.12345, 0.01], "exact": [0.5, 0.9973],
         "pairs": [1000, 10000], "seconds": [3.14159, 6.0]}
    )  # fmt: skip
    table = TrainResult(None, history, 6.0, None).table()
    assert table.loc[100].tolist() == ["0.0100", "99.73%", "10,000", "6.0"]
    assert table.index.tolist() == [50, 100]  # every check, as the text says


def test_a_long_training_table_is_thinned_to_evenly_spaced_checks():
    import pandas as pd

    from recur.training.config import TrainResult

    steps = list(range(100, 2100, 100))  # 20 checks
    history = pd.DataFrame(
        {"step": steps, "loss": 0.1, "exact": 0.5, "pairs": 1000, "seconds": 1.0}
    )
    table = TrainResult(None, history, 6.0, None).table(rows=5)
    assert table.index.tolist() == [100, 600, 1100, 1500, 2000]  # first and last kept
    with pytest.raises(ValueError, match="rows"):
        TrainResult(None, history, 6.0, None).table(rows=1)


def test_halting_player_leaves_the_callers_array_alone():
    import numpy as np

    from recur.views.plots_halting import halting_player

    h = np.array([0.1, 0.3, 0.0, 0.5])
    halting_player(h, step=3, values=[0.2, 0.9])
    assert h.tolist() == [0.1, 0.3, 0.0, 0.5]


def test_readable_reads_the_top_level_of_two_level_columns():
    import pandas as pd

    from recur.views.text import readable

    table = pd.DataFrame({("exact", 8): [0.9995], ("steps", 8): [1.234]})
    out = readable(table, percent=("exact",))
    assert out[("exact", 8)].tolist() == ["99.9%"]
    assert out[("steps", 8)].tolist() == ["1.23"]


def test_length_study_draws_every_variant_in_its_own_colour():
    import pandas as pd

    from recur.views.plots_exact import plot_length_study

    rows = [
        {"variant": f"v{k}", "seed": 0, "bits": bits, "exact": 0.5}
        for k in range(7)
        for bits in (8, 16)
    ]
    fig = plot_length_study(pd.DataFrame(rows), trained_bits=8)
    lines = [line for line in fig.axes[0].lines if line.get_label().startswith("v")]
    assert len(lines) == 7
    assert len({str(line.get_color()) for line in lines}) == 7


def test_length_study_panels_and_reference():
    import pandas as pd

    from recur.views.plots_exact import plot_length_study

    rows = [
        {"variant": v, "seed": s, "bits": b, "exact": 0.5, "exact, long chains": 0.25}
        for v in ("a", "b")
        for s in (0, 1)
        for b in (8, 16, 32, 64)
    ]
    cell = pd.DataFrame(
        {"exact": [1.0] * 4, "exact, long chains": [0.9] * 4}, index=[8, 16, 32, 64]
    )
    columns = ("exact", "exact, long chains")
    fig = plot_length_study(pd.DataFrame(rows), 8, columns, cell, "cell")
    assert len(fig.axes) == 2
    for ax, column in zip(fig.axes, columns, strict=True):
        assert ax.get_title() == column and ax.get_xscale() == "log"
        ref = [line for line in ax.lines if line.get_label() == "cell"]
        assert list(ref[0].get_ydata()) == list(cell[column])


def test_waiting_plot_sums_the_means():
    import pandas as pd

    from recur.views.plots_halting import plot_waiting_halting

    table = pd.DataFrame(
        {"mean h while waiting": [0.1, 0.2, 0.4], "waiting positions": [5, 4, 1]},
        index=pd.RangeIndex(1, 4, name="round"),
    )
    fig = plot_waiting_halting({"8 bits": table}, trained_bits=8)
    left, right = fig.axes
    assert list(left.lines[0].get_ydata()) == [0.1, 0.2, 0.4]
    assert list(right.lines[0].get_ydata()) == pytest.approx([0.1, 0.3, 0.7])


def test_ponder_plot_draws_the_least_squares_lines():
    """The caption promises fitted lines: one dashed line per model, through the fit."""
    import pandas as pd

    from recur.views.plots_halting import plot_ponder_vs_distance

    table = pd.DataFrame(
        {"mean": [1.0, 1.0, 2.0], "std": [0.0, 0.1, 0.2], "count": [5, 4, 3]},
        index=pd.Index([0, 1, 2], name="carry distance"),
    )
    fig = plot_ponder_vs_distance({"a": (table, 0.5, 0.8), "b": (table, 1.0, 0.0)})
    dashed = [line for line in fig.axes[0].lines if line.get_linestyle() == "--"]
    assert len(dashed) == 2
    assert list(dashed[0].get_ydata()) == [0.8, 0.5 * 2 + 0.8]
    assert list(dashed[1].get_ydata()) == [0.0, 2.0]


def test_machine_diagrams_draw_one_node_per_position_and_round():
    from matplotlib.patches import Circle

    from recur.views.diagrams import draw_act_ut, draw_local_cell, draw_ut_unrolled

    def circles(fig):
        return [p for p in fig.axes[0].patches if isinstance(p, Circle)]

    cell = draw_local_cell(4, 3)
    assert len(circles(cell)) == 4 * (3 + 1)
    dashed = [line for line in cell.axes[0].lines if line.get_linestyle() == "--"]
    assert len(dashed) == 4  # the problem re-fed, one line up each bit's column
    act = draw_act_ut((1, 3, 2))
    nodes = circles(act)
    assert len(nodes) == 3 * (3 + 1)
    grey = [c for c in nodes if c.get_facecolor()[:3] != nodes[0].get_facecolor()[:3]]
    assert len(grey) == (3 - 1) + (3 - 2)  # rounds after each position halted
    texts = [t.get_text() for t in draw_ut_unrolled(3).axes[0].texts]
    assert sum("self-attention" in t for t in texts) == 3
    with pytest.raises(ValueError, match="at least one step"):
        draw_act_ut((0, 2))


def test_rounds_by_width_marks_each_longest_chain():
    import pandas as pd

    from recur.views.plots_exact import plot_rounds_by_width

    curves = pd.DataFrame(
        {
            "bits": [4] * 5 + [8] * 9,
            "round": [*range(1, 6), *range(1, 10)],
            "exact": [0.0] * 14,
        }
    )
    fig = plot_rounds_by_width(curves, {4: 3, 8: 5})
    ax = fig.axes[0]
    solid = [line for line in ax.lines if line.get_linestyle() == "-"]
    dotted = [line for line in ax.lines if line.get_linestyle() == ":"]
    assert [line.get_label() for line in solid] == ["4 bits", "8 bits"]
    assert [line.get_xdata()[0] for line in dotted] == [3, 5]
    assert [d.get_color() for d in dotted] == [s.get_color() for s in solid]


def test_round_axes_have_integer_ticks():
    """Rounds are integers, so are the ticks of a round axis."""
    import pandas as pd

    from recur.views.plots_exact import plot_accuracy_by_round

    table = pd.DataFrame(
        {"exact rule": [0.5] * 18, "learned": [0.5] * 18},
        index=pd.RangeIndex(1, 19, name="round"),
    )
    fig = plot_accuracy_by_round(table, 8)
    ticks = fig.axes[0].get_xticks()
    assert all(float(t).is_integer() for t in ticks)


def test_players_load_nothing_from_the_network():
    """The book works offline; matplotlib's player would fetch Font Awesome."""
    player = trace_player(parallel_add("0111", "0001")).data
    assert "https://" not in player and "http://" not in player
    assert 'class="fa ' not in player
    assert "\u25b6" in player  # the play button is still labelled


def test_exact_match_axes_are_never_zoomed():
    """A share drawn on 0.97..1.0 inflates a difference of a point; every
    exact-match axis spans 0 to 1, even when every value is near 1."""
    import pandas as pd

    from recur.views.plots_exact import plot_accuracy_by_round, plot_rounds_table

    table = pd.DataFrame(
        {"exact rule": [0.98, 0.99, 1.0], "learned": [0.97, 0.99, 1.0]},
        index=pd.RangeIndex(1, 4, name="round"),
    )
    figures = [
        plot_accuracy_by_round(table, 8),
        plot_rounds_table(table),
    ]
    for fig in figures:
        ax = fig.axes[0]
        low, high = ax.get_ylim()
        assert low <= 0 and high >= 1, (ax.get_ylabel(), low, high)


def test_every_colour_has_a_meaning_and_a_legend():
    from recur.views.palette import legend_html

    assert set(MEANING) == set(COLORS)
    html = legend_html(tuple(COLORS))
    assert all(MEANING[k] in html for k in COLORS)
    with pytest.raises(ValueError, match="no colour"):
        legend_html(("purple",))


def test_the_diagrams_keep_purple_for_the_longest_chain():
    """No diagram draws in a purple: that colour means the longest carry chain."""
    from matplotlib.colors import to_rgb

    purples = {to_rgb(COLORS["chain"]), to_rgb("#8e44ad")}
    from recur.views import diagrams

    for name in [n for n in dir(diagrams) if n.startswith("draw_")]:
        fig = getattr(diagrams, name)()
        colours = {to_rgb(t.get_color()) for ax in fig.axes for t in ax.texts}
        assert not colours & purples, name


def test_with_colors_gives_each_group_its_own_colour():
    from recur.views.palette import PALETTE
    from recur.views.style import with_colors

    many = with_colors(range(len(PALETTE) + 3))  # more groups than the palette
    assert [g for _, g in many] == list(range(len(PALETTE) + 3))
    assert len({str(c) for c, _ in many}) == len(many)


def test_limit_cases_are_worded_not_printed_as_zeros():
    """Words at a limit: "exceed d by at most 0.00", "steps ≈ 1.00 · d + 0.00" and
    "at least 100.0%" read oddly; each limit gets words (expected texts by hand)."""
    from recur.views.text import fit_words, margin_words, share_words

    assert share_words(1.0, "every one", "{} of them") == "every one"
    assert share_words(0.9996, "every one", "{} of them") == "at least 99.9% of them"
    assert share_words(0.5, "all", "{}") == "at least 50.0%"
    assert fit_words(1.001, 0.004) == "steps = d exactly (to two decimals)"
    assert fit_words(1.0, 0.12) == "steps ≈ d + 0.12"
    assert fit_words(1.02, -0.3) == "steps ≈ 1.02 · d − 0.30"
    assert fit_words(0.5, 0.001) == "steps ≈ 0.50 · d"
    assert margin_words(0.001) == "by nothing, to two decimals"
    assert margin_words(0.123) == "by at most 0.12"
    with pytest.raises(ValueError, match="share"):
        share_words(1.5, "a", "b")


def test_the_halting_player_keeps_the_running_sum_in_view_and_names_h():
    """At h_3 = 1.0 the running sum (0.1 + 0.3 + 1.0 + 0.5 = 1.9) left the
    plot, and the frame did not say which h_3 it shows."""
    import matplotlib.pyplot as plt

    from recur.views.plots_halting import draw_halting

    fig, ax = plt.subplots()
    draw_halting([0.1, 0.3, 1.0, 0.5], 0.01, ax, vary=3)
    assert ax.get_ylim()[1] >= 1.9
    assert ax.get_title(loc="left").startswith("h_3 = 1:")
    plt.close(fig)


def test_a_figure_wider_than_the_column_gets_larger_letters():
    """A 10-inch figure shrunk into a 6.8-inch column showed 7 px labels;
    its texts grow by 10 / 6.8 (by hand: a 20 pt title becomes 29.4 pt, 12 pt tick
    labels 17.6 pt, both above the phone's floor), and a figure that fits is left
    alone."""
    import matplotlib.pyplot as plt

    from recur.views.style import finish

    with plt.rc_context({"xtick.labelsize": 12, "ytick.labelsize": 12}):
        wide, ax = plt.subplots(figsize=(10, 3))
        ax.set_title("t", fontsize=20)
        finish(wide)
        assert ax.title.get_fontsize() == pytest.approx(29.412, abs=0.01)
        tick = ax.xaxis.get_ticklabels()[0]
        assert tick.get_fontsize() == pytest.approx(17.647, abs=0.01)
        fits, ax = plt.subplots(figsize=(6.4, 3))
        ax.set_title("t", fontsize=12)
        finish(fits)
        assert ax.title.get_fontsize() == 12


def test_chapter_time_reads_the_chapters_row_and_builds_without_one(tmp_path):
    from recur.views.bench_view import chapter_time

    bench = tmp_path / "bench.jsonl"
    bench.write_text(
        '{"machine": "x"}\n'
        '{"name": "chapter_seconds_02_shared_update", "value": 47.1, "unit": "s"}\n'
        '{"name": "chapter_seconds_03_input_injection", "value": 115.0, "unit": "s"}\n'
    )
    assert chapter_time("03_input_injection", bench) == "about 115 seconds"
    assert chapter_time("02_shared_update", bench) == "about 47 seconds"
    assert "make bench" in chapter_time("09_missing", bench)


def test_series_that_coincide_stay_visible_and_the_legend_covers_no_data():
    """Lines of variants that all score 1.0 lay on top of each other, and
    a legend sat over the data; each series now gets its own marker and a small
    offset, and the legend sits below the panels."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from recur.views.plots_exact import plot_length_study

    rows = [(v, s, b, 1.0) for v in ("a", "b", "c") for s in (0, 1) for b in (8, 64)]
    table = pd.DataFrame(rows, columns=["variant", "seed", "bits", "exact"])
    fig = plot_length_study(table, trained_bits=8)
    ax = fig.axes[0]
    means = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert len({line.get_marker() for line in means}) == 3
    assert len({tuple(line.get_xdata()) for line in means}) == 3  # not on top
    assert ax.get_legend() is None and len(fig.legends) == 1  # below, not on the data
    plt.close(fig)


def test_the_static_halting_explorer_is_left_to_the_browser(monkeypatch):
    from recur.views.widgets import halting_explorer

    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    page = halting_explorer([0.1, 0.3], eps=0.05).data
    assert 'class="halting-explorer"' in page and 'data-h="[0.1, 0.3]"' in page
    assert 'data-eps="0.05"' in page and COLORS["weight"] in page
    with pytest.raises(ValueError, match="halting probabilities"):
        halting_explorer([0.1, 1.5])
    with pytest.raises(ValueError, match="eps"):
        halting_explorer([0.1], eps=1.0)


class _ScriptedAct(__import__("torch").nn.Module):
    """An ACT model whose answer is known by hand: it reads out ``readout`` (MSB first)
    and reports ``steps`` (LSB first) with h = 0.4 in every round."""

    def __init__(self, readout: str, steps: list[int]):
        import torch

        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))  # for model_device
        self.readout, self.steps = readout, steps

    def forward(self, bits, n_rounds):
        import torch

        from recur.models.cell import Unroll

        logits = torch.tensor([[1.0 if c == "1" else -1.0 for c in self.readout[::-1]]])
        rounds = max(self.steps)
        halting = torch.full((rounds, 1, len(self.steps)), 0.4)
        steps = torch.tensor([self.steps], dtype=torch.float32)
        return Unroll(logits[None], torch.zeros(()), steps, halting)


def test_the_act_explorer_counts_positions_that_stopped_before_their_carry():
    """0111 + 0001 (LSB first a = 1110, b = 1000; the top position is the carry out):
    by hand, the carry into positions 0-4 can be known after 1, 1, 2, 3 and 1 rounds.
    Position 2 stops after 1 step and position 3 after 3: one stopped too soon."""
    from recur.views.explorers import act_explorer

    model = _ScriptedAct("01000", [1, 1, 1, 3, 2])
    text_a, text_b, message, tabs = _parts(act_explorer(model, "0111", "0001"))
    assert message.value.startswith("The model ran 3 rounds and added the sum right")
    assert "1 of 5 positions stopped before their carry could be known" in message.value
    assert len(tabs.children) == 3
    first = tabs.children[0].value
    cells = re.findall(r"<tr><th[^>]*>carry known after</th>(.*?)</tr>", first)[0]
    assert re.findall(r">(\d+)</td>", cells) == ["1", "3", "2", "1", "1"]  # MSB first
    steps_row = re.findall(r"<tr><th[^>]*>steps N</th>(.*?)</tr>", first)[0]
    pink = [COLORS["wrong"] in cell for cell in steps_row.split("</td>")[:5]]
    assert pink == [False, False, True, False, False]  # position 2, third from the left
    # after round 1 only positions 0-2 have halted; the rest and the readout wait
    assert re.findall(r">([^<]*)</td>", steps_row) == ["·", "·", "1", "1", "1"]
    readout = re.findall(r"<tr><th[^>]*>readout</th>(.*?)</tr>", first)[0]
    assert re.findall(r">([^<]*)</td>", readout) == ["·"] * 5
    end = tabs.children[2].value
    steps_end = re.findall(r"<tr><th[^>]*>steps N</th>(.*?)</tr>", end)[0]
    assert re.findall(r">([^<]*)</td>", steps_end) == ["2", "3", "1", "1", "1"]
    readout = re.findall(r"<tr><th[^>]*>readout</th>(.*?)</tr>", end)[0]
    assert re.findall(r">([^<]*)</td>", readout) == list("01000")
    last = re.findall(
        r"<tr><th[^>]*>h in round 3</th>(.*?)</tr>", tabs.children[2].value
    )
    assert re.findall(r">([.\d]*)</td>", last[0]) == ["", ".40", "", "", ""]
    model.readout = "01100"
    assert (
        "got 1 of 5 bits wrong" in _parts(act_explorer(model, "0111", "0001"))[2].value
    )


def test_the_deq_explorer_reports_the_solve_and_the_chain():
    """A DEQ whose update is Chapter 1's carry rule (test_book_numbers): on 0111 +
    0001 (chain 3) plain iteration settles after 3 + 1 iterations, by hand. One tab per
    iteration: after iteration 2 the readout is the rule's after round 2 (the carry has
    reached bit 2, not yet bit 3: 00000), and the state moved in it; in iteration 4 it
    did not."""
    from recur.views.explorers import deq_explorer
    from test_book_numbers import _rule_deq

    text_a, text_b, message, tabs = _parts(deq_explorer(_rule_deq(), "0111", "0001"))
    assert message.value == (
        "The solver stopped after 4 iterations (the state had settled); the longest "
        "carry chain is 3; the readout at the fixed point is the true sum. Click an "
        "iteration:"
    )
    assert len(tabs.children) == 4
    second, last = tabs.children[1].value, tabs.children[3].value
    rows = re.findall(r"<tr><th[^>]*>(.*?)</th>(.*?)</tr>", second)
    bits = {name: "".join(re.findall(r">([01])</td>", cells)) for name, cells in rows}
    assert bits == {"exact rule, round 2": "00000", "DEQ, iteration 2": "00000",
                    "true sum": "01000"}  # fmt: skip
    assert 'title="0.0"' in last and 'title="0.0"' not in second


@pytest.mark.parametrize("kind", ["learned", "act", "deq"])
def test_the_static_model_explorers_write_their_model_next_to_the_page(
    monkeypatch, tmp_path, kind
):
    """In the static page the model explorers are elements for explorers.js, and the
    model goes to _extra/_static/models/ (from book/, where the chapters run)."""
    from recur.models.cell import LocalCell

    name, css, limit = {
        "learned": ("ch2_cell", "cell-explorer", explorers.PAGE_MAX_BITS["cell"]),
        "act": ("ch6_act", "act-explorer", explorers.PAGE_MAX_BITS["act"]),
        "deq": ("ch7_deq", "deq-explorer", explorers.PAGE_MAX_BITS["deq"]),
    }[kind]
    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        "recur.views.explorers.write_model_script", lambda m, n: written.append(n)
    )
    written: list[str] = []
    explorer = getattr(explorers, f"{kind}_explorer")
    page = explorer(LocalCell(), "0111", "0001").data
    assert f'class="{css}"' in page and f'data-model="{name}"' in page
    assert 'data-a="0111"' in page and f'data-max-bits="{limit}"' in page
    assert written == [name]
    with pytest.raises(ValueError, match="not binary"):
        explorer(LocalCell(), "2x", "1")
    with pytest.raises(ValueError, match=f"up to {limit} bits"):
        explorer(LocalCell(), "1" * (limit + 1), "1")
    assert written == [name]  # nothing written for bad input


def test_seed_spread_draws_each_seed_and_marks_the_misses():
    import pandas as pd

    from recur.views.palette import PALETTE
    from recur.views.plots_seeds import plot_seed_spread

    rows = [  # recipe, seed, exact, long chains, no-carry waits, success
        ("A", 0, 1.0, 1.0, 1.0, True), ("A", 1, 0.98, 1.0, 0.5, False),
        ("A", 2, 1.0, 0.9, 1.0, False), ("B", 0, 1.0, 1.0, 0.0, True),
    ]  # fmt: skip
    table = pd.DataFrame(
        rows,
        columns=[
            "recipe",
            "seed",
            "exact",
            "exact, long chains",
            "exact, long waits without a carry",
            "success",
        ],
    )
    table["bits"], table["halted before the carry"] = 64, 0.0
    table["halted before the carry, long chains"] = [0.0, 0.1, 0.2, 0.5]
    fig = plot_seed_spread(table)
    top_a, low_a, top_b, _ = fig.axes  # one recipe under the other
    assert top_a.get_title() == "A: 1 of 3 seeds met the bar"
    assert top_b.get_title() == "B: 1 of 1 seeds met the bar"
    named = plot_seed_spread(table, names={"A": "ours"})
    assert named.axes[0].get_title() == "ours: 1 of 3 seeds met the bar"
    waits = [
        line for line in top_a.lines if line.get_label().startswith("exact, long w")
    ]
    assert list(waits[0].get_ydata()) == [1.0, 0.5, 1.0]  # by seed
    colors = [label.get_color() for label in low_a.get_xticklabels()]
    assert colors == ["black", PALETTE[1], PALETTE[1]]  # the two misses in red
    without = plot_seed_spread(table.drop(columns="exact, long waits without a carry"))
    assert not any("waits" in line.get_label() for line in without.axes[0].lines)


def test_no_letter_of_a_figure_is_under_12_px_on_screen_nor_8_on_a_phone():
    """The seed-spread figure once drew 6.5 pt seed numbers in a 10-inch figure: 9 px
    at 1280 px. Every text is raised to 12 px at 1280 px and to 8.5 px in a phone's
    3.72-inch column, whichever is larger; larger ones keep their size."""
    import matplotlib.pyplot as plt

    from recur.views.style import finish, px_per_point, smallest_text_px

    fig, ax = plt.subplots(figsize=(12, 3))
    ax.plot([0, 1], [0, 1], label="line")
    ax.set_xticks([0, 1], ["0", "1"], fontsize=6.5)
    ax.legend(fontsize=8)
    ax.set_title("big", fontsize=40)
    assert smallest_text_px(fig) < 12
    finish(fig)
    assert ax.xaxis.get_ticklabels()[0].get_fontsize() == pytest.approx(19.74, abs=0.01)
    assert smallest_text_px(fig, 3.72) == pytest.approx(8.5)  # 8.5 / (100/72 * 3.72/12)
    assert smallest_text_px(fig) > 12  # the phone asks for more than the desktop
    assert ax.title.get_fontsize() * px_per_point(fig) > 12 * 2  # not shrunk
    plt.close(fig)
    narrow, ax = plt.subplots(figsize=(3, 2))
    ax.set_xticks([0, 1], ["0", "1"], fontsize=6.5)
    finish(narrow)  # fits a phone: the desktop's 12 px, 12 / (100 / 72) pt, rules
    assert ax.xaxis.get_ticklabels()[0].get_fontsize() == pytest.approx(8.64)


def test_a_legend_below_the_panels_is_as_legible_on_a_phone_as_the_rest():
    """The legend of :func:`legend_below` is drawn after :func:`legible`: it once kept
    9 pt times the width's scale, 5.4 px on a phone for a figure 8.64 inches wide."""
    import matplotlib.pyplot as plt

    from recur.views.style import legend_below, smallest_text_px

    fig, ax = plt.subplots(figsize=(8.64, 3))
    ax.plot([0, 1], [0, 1], label="one")
    ax.plot([0, 1], [1, 0], label="two")
    legend_below(fig, ax)
    assert fig.legends and smallest_text_px(fig, 3.72) == pytest.approx(8.5)


def test_a_legend_of_long_labels_does_not_widen_its_figure():
    """Three 50-letter labels side by side made a 6.4-inch figure's PNG 9.9 inches
    wide, and so its letters a third smaller on a phone; they go one per row."""
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    from recur.views.style import figure_png, legend_below

    fig, ax = plt.subplots(figsize=(6.4, 3))
    for k in range(3):
        ax.plot([0, 1], [k, k + 1], label=f"{k} " + "x" * 48)
    legend_below(fig, ax, per_row=4)
    image = Image.open(io.BytesIO(figure_png(fig)[0]))
    assert image.width / image.info["dpi"][0] <= 6.4 + 0.1
    assert len(fig.legends[0].get_texts()) == 3 and fig.legends[0]._ncols == 1


def test_a_shown_figure_records_its_smallest_text_in_its_png():
    """The browser's phone check reads the size of a figure's smallest letters from
    its PNG: written there, it must be the figure's smallest text, in points."""
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    from recur.views.style import TEXT_KEY, figure_png

    fig, ax = plt.subplots(figsize=(4, 2))
    ax.set_xticks([0, 1], ["0", "1"], fontsize=9)
    ax.set_title("title", fontsize=7.25)
    png, size = figure_png(fig)
    plt.close(fig)
    image = Image.open(io.BytesIO(png))
    assert image.text[TEXT_KEY] == "7.25"
    assert size == {"width": image.width // 2, "height": image.height // 2}


def test_rounds_bought_draws_the_rule_the_cell_and_acts_mean():
    """Two ACT seeds at distances 0 and 2 of 4-bit sums (steps 1, 2 and 3, 5): the
    mean line is at 1.5 and 4, the cell's at n + 1 = 5, the rule's at d."""
    import matplotlib.pyplot as plt

    from recur.views.plots_fixed import plot_rounds_bought

    rows = [("ACT", 0, 4, 0, 1.0), ("ACT", 1, 4, 0, 2.0), ("ACT", 0, 4, 2, 3.0),
            ("ACT", 1, 4, 2, 5.0), ("PonderNet", 0, 4, 2, 9.0)]  # fmt: skip
    distance = pd.DataFrame(
        rows, columns=["method", "seed", "bits", "carry distance", "mean steps"]
    )
    fig = plot_rounds_bought(distance)
    lines = {line.get_label(): line.get_ydata() for line in fig.axes[0].get_lines()}
    rule = next(v for k, v in lines.items() if k.startswith("the carry needs"))
    cell = next(v for k, v in lines.items() if k.startswith("Chapter 2's cell"))
    act = next(v for k, v in lines.items() if k.startswith("Chapter 6's ACT"))
    assert list(rule) == [0, 2] and list(cell) == [5, 5]
    assert list(act) == [1.5, 4.0]  # PonderNet's rows left out
    plt.close(fig)


def test_late_marks_find_each_position_wrong_at_or_after_the_read():
    from recur.views.plots_skeptic import late_marks

    right = np.ones((5, 3), dtype=bool)  # 5 rounds, bits 0 to 2 (2: the carry out)
    right[0, :] = False  # wrong before the read: no mark
    right[2, 2] = False  # the carry out wrong in round 3, read after round 2
    right[4, 0] = right[3, 0] = False  # bit 0 wrong again in rounds 4 and 5
    positions, rounds = late_marks(right, read_round=2)
    assert positions.tolist() == [0, 2]  # drawn with the carry out at 0, bit 0 at 2
    assert rounds.tolist() == [3, 4]


def test_the_fade_axis_is_linear_to_past_the_read_then_logarithmic():
    from recur.views.plots_skeptic import linear_then_log

    forward, inverse = linear_then_log(80, 1065.5, log_share=0.35)
    assert forward(40) == 40 and forward(80) == 80  # a row per round up to 80
    assert np.isclose(forward(1065.5), 80 / 0.65)  # the log part: 35% of the axis
    assert forward(500) - forward(250) == pytest.approx(forward(1000) - forward(500))
    u = np.array([1.0, 65.0, 100.0, 120.0])
    assert np.allclose(forward(inverse(u)), u)


def test_the_fade_figure_points_out_its_late_marks_in_words():
    from recur.chapters.ch2_skeptic import Walk
    from recur.views.plots_skeptic import late_label, plot_fade

    assert late_label(1) == "1 position wrong\nat or after the read"
    right = np.ones((6, 4), dtype=bool)  # 6 rounds, 4 positions
    right[3, 1] = right[3, 2] = False  # two positions wrong in round 4, read after 3
    fields = dict(right=right, change=np.zeros((6, 4)), wait=np.arange(4) + 1)
    late = Walk(**fields)
    fine = Walk(**(fields | {"right": np.ones((6, 4), dtype=bool)}))
    fig = plot_fade({"s, late": late, "s, fine": fine}, read_round=3)
    titles = [[zoom.get_title() for zoom in ax.child_axes] for ax in fig.axes]
    assert titles == [["2 positions wrong\nat or after the read"], []]  # a zoom, titled
    matplotlib.pyplot.close(fig)
