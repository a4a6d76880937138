"""Interactive views. Each is a thin layer over a library function and also works in
the static HTML book: the rounds are precomputed into tabs, and clicking a tab needs no
kernel. Editing the inputs needs one (Jupyter, Binder). Bad input shows a message in the
widget instead of a traceback.

Why tabs and not a slider ``jslink``-ed to a ``Stack``: in the built book the theme's
Font Awesome script stops browser-side links from updating (seen in Chromium with
html-manager 1.0.15); tab clicks are handled inside one view and keep working."""

from __future__ import annotations

import html

import ipywidgets as w

from recur.core.carry import CarryTrace, longest_chain_span, parallel_add
from recur.core.page import static_page
from recur.models.act import ACT_EPS, halting_weights
from recur.views.palette import COLORS, legend_html

CELL = (
    "border:1px solid #999;width:1.7em;height:1.7em;"
    "text-align:center;font-family:monospace"
)
ROW_HEAD = '<th style="text-align:right;padding-right:6px">{}</th>'


FILL = {"1": COLORS["one"], "0": COLORS["zero"], " ": COLORS["zero"]}
CHAIN_EDGE = f"border-bottom:4px solid {COLORS['chain']}"


FILL_KEYS = ("one", "zero", "moved", "wrong", "chain")  # the colours carry.js draws

# The static page has no kernel, so a text field could not compute; it is shown
# read-only with this line.
READ_ONLY_NOTE = (
    "<i>In this static page the numbers are fixed: the rounds below are tabs to "
    "click. To type your own, run the notebook (Jupyter locally or on Binder; the "
    "README says how).</i>"
)


def cell_td(ch: str, fill: str, extra: str = "") -> str:
    style = f"{CELL};background:{fill};{extra}"
    return f'<td style="{style}">{html.escape(ch)}</td>'


def round_html(trace: CarryTrace, r: int) -> str:
    """The state after ``r`` rounds as an HTML table (carry out, then bits n-1..0)."""
    n = trace.n_bits
    moved = trace.moved(r)[::-1]  # (n + 1,): out, n-1, ..., 0
    span = longest_chain_span(trace)
    in_chain = [
        span is not None and span[0] <= n - col <= span[1] for col in range(n + 1)
    ]
    rows = {
        "a": " " + trace.a,
        "b": " " + trace.b,
        "carry in": "".join(str(c) for c in trace.carries[r][::-1]),
        "readout": str(trace.carry_out(r)) + trace.readout(r),
    }
    head = "".join(
        f'<th style="font-size:70%">{lab}</th>'
        for lab in ["", "out", *map(str, range(n - 1, -1, -1))]
    )
    truth = trace.true_sum  # with the carry-out bit
    body = ""
    for name, text in rows.items():
        cells = []
        for col, ch in enumerate(text):
            fill = FILL[ch]
            if name == "carry in" and moved[col]:
                fill = COLORS["moved"]
            elif name == "readout" and ch != truth[col]:
                fill = COLORS["wrong"]
            edge = CHAIN_EDGE if name == "readout" and in_chain[col] else ""
            cells.append(cell_td(ch, fill, edge))
        body += f"<tr>{ROW_HEAD.format(name)}{''.join(cells)}</tr>"
    note = (
        f"after <b>{r}</b> of {trace.n_rounds} rounds; longest chain: "
        f"{0 if span is None else span[1] - span[0]}<br>"
        + legend_html(("moved", "wrong", "chain"))
    )
    table = f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'
    return f"{table}<p>{note}</p>"


MAX_BITS = 48  # a tab per round; longer sums belong to the library functions themselves


def check_width(trace: CarryTrace, max_bits: int = MAX_BITS) -> None:
    if trace.n_bits > max_bits:
        raise ValueError(
            f"the explorer shows sums of up to {max_bits} bits; these have "
            f"{trace.n_bits} (call the library directly)"
        )


def tabbed_explorer(a: str, b: str, build) -> w.VBox:
    """Two text boxes, a message line and one tab per round. ``build(a, b)`` returns
    ``(message, [(tab title, html), ...])`` or raises ``ValueError``, whose text is
    shown instead. For the static page the boxes are read-only, with a line that says
    why (:func:`static_page`)."""
    fixed = static_page()
    text_a = w.Text(value=a, description="a", disabled=fixed)
    text_b = w.Text(value=b, description="b", disabled=fixed)
    message = w.HTML()
    rounds = w.Tab()

    def update(_change=None) -> None:
        try:
            note, pages = build(text_a.value, text_b.value)
        except ValueError as err:
            text = html.escape(str(err))
            message.value = f'<span style="color:#b00">⚠ {text}</span>'
            return
        message.value = note
        rounds.children = [w.HTML(page) for _, page in pages]
        rounds.titles = [title for title, _ in pages]
        rounds.selected_index = 0

    text_a.observe(update, names="value")
    text_b.observe(update, names="value")
    update()
    fields = [w.HBox([text_a, text_b])] + ([w.HTML(READ_ONLY_NOTE)] if fixed else [])
    return w.VBox([*fields, message, rounds])


def carry_explorer(a: str = "0111", b: str = "0001"):
    """Type two binary numbers; click through the rounds of the parallel adder.

    With a kernel: widgets, each round a tab. In the static page
    (:func:`recur.core.page.static_page`) the same explorer runs in the reader's
    browser, in ``_static/carry.js``: :func:`static_carry_explorer`."""
    if static_page():
        return static_carry_explorer(a, b)

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        check_width(trace)
        note = (
            f"sum {trace.result} = {int(trace.result, 2)}; settles after "
            f"{trace.rounds_to_settle} rounds. Click a round:"
        )
        return note, [
            (f"round {r}", round_html(trace, r)) for r in range(trace.n_rounds + 1)
        ]

    return tabbed_explorer(a, b, build)


def static_carry_explorer(a: str = "0111", b: str = "0001"):
    """The carry explorer for a page with no kernel: an element that
    ``book/_extra/_static/carry.js`` fills with two fields, a message and round tabs,
    computed in the browser by the JavaScript twin of :func:`parallel_add`; the
    colours are the palette's, the legend drawn here."""
    import json

    from IPython.display import HTML

    check_width(parallel_add(a, b))  # bad input fails here, in the notebook
    colors = html.escape(json.dumps({k: COLORS[k] for k in FILL_KEYS}))
    return HTML(
        f'<div class="carry-explorer" data-a="{a}" data-b="{b}" '
        f'data-max-bits="{MAX_BITS}" data-colors="{colors}" data-cell="{CELL}"></div>'
        + legend_html(("moved", "wrong", "chain"))
    )


def halting_explorer(h=(0.1, 0.3, 0.8, 0.5, 0.2), eps: float = ACT_EPS):
    """Sliders for h_1..h_M and epsilon; shows N, R, the weights p_r and the ponder cost
    (Graves 2016, Eqs. 6-10) as computed by :func:`recur.models.act.halting_weights`. In
    the static page the same explorer runs in the browser (``_static/halting.js``)."""
    if static_page():
        return static_halting_explorer(h, eps)
    import torch

    sliders = [
        w.FloatSlider(value=v, min=0, max=1, step=0.05, description=f"h{n}")
        for n, v in enumerate(h, start=1)
    ]
    eps_slider = w.FloatSlider(value=eps, min=0.01, max=0.5, step=0.01, description="ε")
    shown = w.HTML()

    def update(_change=None) -> None:
        values = torch.tensor([s.value for s in sliders], dtype=torch.float64)
        halt = halting_weights(values, eps_slider.value)
        weights = ", ".join(f"{p:.2f}" for p in halt.weights.tolist())
        n_steps, rem = int(halt.n_steps), float(halt.remainder)
        shown.value = (
            f"N = <b>{n_steps}</b>, R = <b>{rem:.2f}</b>, weights p = "
            f"[{weights}], ponder cost N + R = <b>{n_steps + rem:.2f}</b>"
        )

    for slider in [*sliders, eps_slider]:
        slider.observe(update, names="value")
    update()
    return w.VBox([*sliders, eps_slider, shown])


def static_halting_explorer(h=(0.1, 0.3, 0.8, 0.5, 0.2), eps: float = ACT_EPS):
    """The halting explorer for a page with no kernel: an element that
    ``book/_extra/_static/halting.js`` fills with sliders and computes with the
    JavaScript twin of :func:`recur.models.act.halting_weights`; bad values fail
    here."""
    import json

    import torch
    from IPython.display import HTML

    halting_weights(torch.tensor(list(h), dtype=torch.float64), eps)  # checks them
    return HTML(
        f'<div class="halting-explorer" data-h="{json.dumps(list(h))}" '
        f'data-eps="{eps}" data-color="{COLORS["weight"]}"></div>'
    )
