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

from recur.carry import CarryTrace, longest_chain_span, parallel_add

CELL = (
    "border:1px solid #999;width:1.7em;height:1.7em;"
    "text-align:center;font-family:monospace"
)
ROW_HEAD = '<th style="text-align:right;padding-right:6px">{}</th>'
FILL = {
    "1": "#cfe3f6",
    "0": "white",
    " ": "white",
    "moved": "#f6a04d",
    "chain": "#f9d9d5",
}


def _cell(ch: str, fill: str) -> str:
    return f'<td style="{CELL};background:{fill}">{html.escape(ch)}</td>'


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
    body = ""
    for name, text in rows.items():
        cells = []
        for col, ch in enumerate(text):
            fill = FILL[ch]
            if name == "carry in" and moved[col]:
                fill = FILL["moved"]
            elif name == "readout" and in_chain[col]:
                fill = FILL["chain"] if ch == "0" else fill
            cells.append(_cell(ch, fill))
        body += f"<tr>{ROW_HEAD.format(name)}{''.join(cells)}</tr>"
    note = (
        f"after <b>{r}</b> of {trace.n_rounds} rounds; "
        "orange: carry arrived this round; "
        f"pink: bits under the longest carry chain (length "
        f"{0 if span is None else span[1] - span[0]})"
    )
    table = f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'
    return f"{table}<p>{note}</p>"


MAX_BITS = 48  # a tab per round; longer sums belong to parallel_add itself


def _round_tabs(trace: CarryTrace) -> list[w.HTML]:
    return [w.HTML(round_html(trace, r)) for r in range(trace.n_rounds + 1)]


def carry_explorer(a: str = "0111", b: str = "0001") -> w.VBox:
    """Type two binary numbers; click through the rounds of the parallel adder.

    The rounds are tabs: clicking them needs no kernel, so the static page can be
    explored too; typing new numbers needs one."""
    text_a = w.Text(value=a, description="a")
    text_b = w.Text(value=b, description="b")
    message = w.HTML()
    rounds = w.Tab()

    def update(_change=None) -> None:
        try:
            new = parallel_add(text_a.value, text_b.value)
            if new.n_bits > MAX_BITS:
                raise ValueError(
                    f"the explorer shows sums of up to {MAX_BITS} bits; "
                    f"these have {new.n_bits} (use parallel_add directly)"
                )
        except ValueError as err:
            text = html.escape(str(err))
            message.value = f'<span style="color:#b00">⚠ {text}</span>'
            return
        message.value = (
            f"sum {new.result} = {int(new.result, 2)}; settles after "
            f"{new.rounds_to_settle} rounds. Click a round:"
        )
        rounds.children = _round_tabs(new)
        rounds.titles = [f"round {r}" for r in range(new.n_rounds + 1)]
        rounds.selected_index = 0

    text_a.observe(update, names="value")
    text_b.observe(update, names="value")
    update()
    return w.VBox([w.HBox([text_a, text_b]), message, rounds])
