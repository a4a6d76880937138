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
from recur.page import static_page
from recur.palette import COLORS, legend_html

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


def _cell(ch: str, fill: str, extra: str = "") -> str:
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
            cells.append(_cell(ch, fill, edge))
        body += f"<tr>{ROW_HEAD.format(name)}{''.join(cells)}</tr>"
    note = (
        f"after <b>{r}</b> of {trace.n_rounds} rounds; longest chain: "
        f"{0 if span is None else span[1] - span[0]}<br>"
        + legend_html(("moved", "wrong", "chain"))
    )
    table = f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'
    return f"{table}<p>{note}</p>"


MAX_BITS = 48  # a tab per round; longer sums belong to the library functions themselves


def _check_width(trace: CarryTrace, max_bits: int = MAX_BITS) -> None:
    if trace.n_bits > max_bits:
        raise ValueError(
            f"the explorer shows sums of up to {max_bits} bits; these have "
            f"{trace.n_bits} (call the library directly)"
        )


def _explorer(a: str, b: str, build) -> w.VBox:
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
    (:func:`recur.page.static_page`) the same explorer runs in the reader's browser,
    in ``_static/carry.js``: :func:`static_carry_explorer`."""
    if static_page():
        return static_carry_explorer(a, b)

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        _check_width(trace)
        note = (
            f"sum {trace.result} = {int(trace.result, 2)}; settles after "
            f"{trace.rounds_to_settle} rounds. Click a round:"
        )
        return note, [
            (f"round {r}", round_html(trace, r)) for r in range(trace.n_rounds + 1)
        ]

    return _explorer(a, b, build)


def static_carry_explorer(a: str = "0111", b: str = "0001"):
    """The carry explorer for a page with no kernel: an element that
    ``book/_extra/_static/carry.js`` fills with two fields, a message and round tabs,
    computed in the browser by the JavaScript twin of :func:`parallel_add`; the
    colours are the palette's, the legend drawn here."""
    import json

    from IPython.display import HTML

    _check_width(parallel_add(a, b))  # bad input fails here, in the notebook
    colors = html.escape(json.dumps({k: COLORS[k] for k in FILL_KEYS}))
    return HTML(
        f'<div class="carry-explorer" data-a="{a}" data-b="{b}" '
        f'data-max-bits="{MAX_BITS}" data-colors="{colors}" data-cell="{CELL}"></div>'
        + legend_html(("moved", "wrong", "chain"))
    )


def _rounds(n: int) -> str:
    return f"{n} round" + ("" if n == 1 else "s")


def _readout_row(name: str, bits: str, truth: str) -> str:
    cells = "".join(
        _cell(bit, COLORS["wrong"] if bit != want else FILL[bit])
        for bit, want in zip(bits, truth, strict=True)
    )
    return f"<tr>{ROW_HEAD.format(name)}{cells}</tr>"


def _learned_page(rule: CarryTrace, learned: str, truth: str, r: int) -> str:
    """Round ``r`` of the learned explorer: rule, learned cell and true sum, wrong bits
    pink, with the legend."""
    rows = (
        _readout_row("exact rule", str(rule.carry_out(r)) + rule.readout(r), truth)
        + _readout_row("learned", learned, truth)
        + _readout_row("true sum", truth, truth)
    )
    return (
        f'<table style="border-collapse:collapse">{rows}</table>'
        f"<p>after <b>{r}</b> of {rule.n_rounds} rounds<br>"
        f"{legend_html(('wrong',))}: differs from the true sum</p>"
    )


def _learned_verdict(learned: list[str], truth: str) -> str:
    """When the learned cell is first right, and whether it stays right to the end."""
    n_rounds = len(learned)
    right = [r + 1 for r, x in enumerate(learned) if x == truth]
    if not right:
        return f"is not right within {n_rounds} rounds"
    stays = right[-1] == n_rounds and len(right) == n_rounds - right[0] + 1
    return f"is first right after {_rounds(right[0])}" + (
        " and stays right" if stays else ""
    )


def learned_explorer(model, a: str = "01011011", b: str = "00100101") -> w.VBox:
    """The learned cell's readout round by round, next to the exact rule of Chapter 1;
    wrong bits are pink (:mod:`recur.palette`). Runs ``2 * (width + 1)`` rounds, twice
    what the rule needs."""
    if static_page():
        return static_learned_explorer(model, a, b)
    from recur.experiments import learned_readouts  # torch is only needed here

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        _check_width(trace, MAX_BITS // 2)
        n_rounds = 2 * (trace.n_bits + 1)
        rule = parallel_add(trace.a, trace.b, n_rounds=n_rounds)
        learned = learned_readouts(model, trace.a, trace.b, n_rounds)  # rounds 1..R
        truth = trace.true_sum
        pages = [
            (str(r), _learned_page(rule, learned[r - 1], truth, r))
            for r in range(1, n_rounds + 1)
        ]
        note = (
            f"sum {trace.result}: the exact rule settles after "
            f"{_rounds(trace.rounds_to_settle)}; the learned cell "
            f"{_learned_verdict(learned, truth)}. Click a round:"
        )
        return note, pages

    return _explorer(a, b, build)


# The widest sums the page's explorers take: the trained cell is exact far beyond its
# training width (Chapter 2 tests it at 1,024 bits); the ACT Transformer is slower in
# the browser (a few hundred rounds of attention at 256 bits).
PAGE_MAX_BITS = {"cell": 1024, "act": 256, "deq": 1024}
PAGE_COLORS = ("one", "zero", "wrong", "halting")  # the colours explorers.js draws


def _model_element(css_class: str, model, name: str, a: str, b: str, max_bits: int):
    """A page element that ``_static/explorers.js`` fills, with ``model``'s weights
    written next to the page (:func:`recur.export.write_model_script`). Bad input
    fails here, in the notebook."""
    import json

    from IPython.display import HTML

    from recur.export import write_model_script

    trace = parallel_add(a, b)
    _check_width(trace, max_bits)
    write_model_script(model, name)
    colors = html.escape(json.dumps({k: COLORS[k] for k in PAGE_COLORS}))
    return HTML(
        f'<div class="{css_class}" data-model="{name}" data-a="{trace.a}" '
        f'data-b="{trace.b}" data-max-bits="{max_bits}" data-colors="{colors}" '
        f'data-cell="{CELL}"></div>'
    )


def static_learned_explorer(model, a: str, b: str, name: str = "ch2_cell"):
    """:func:`learned_explorer` for a page with no kernel: the trained cell runs in
    the reader's browser (``_static/models.js``, ``cellReadouts``), on sums of up to
    :data:`PAGE_MAX_BITS` bits."""
    return _model_element("cell-explorer", model, name, a, b, PAGE_MAX_BITS["cell"])


def act_round_html(bits, steps, halting, readout: str, truth: str, wait, r: int) -> str:
    """Round ``r`` of the ACT explorer, positions most significant first: the bits,
    the rounds before each carry can be known (``wait``), the steps N each position
    ran (pink: fewer than ``wait``, so its answer was a guess), h_r (grey, empty once
    halted), the readout (pink where wrong) and the true sum. ``bits`` (n, 2),
    ``steps``, ``wait`` and ``halting[r - 1]`` are least significant first."""
    n = len(steps)
    bits_a, bits_b = bits[:, 0].tolist(), bits[:, 1].tolist()
    cols = range(n - 1, -1, -1)

    def row(name: str, cell) -> str:
        return f"<tr>{ROW_HEAD.format(name)}{''.join(cell(i) for i in cols)}</tr>"

    def h_cell(i: int) -> str:
        h = float(halting[r - 1][i])
        if r > steps[i]:  # halted
            return _cell("", "white")
        alpha = f"{round(255 * min(1.0, max(0.0, h))):02x}"
        return _cell(f"{h:.2f}".lstrip("0"), COLORS["halting"] + alpha, "font-size:70%")

    heads = "".join(
        f'<th style="font-size:70%">{"out" if i == n - 1 else i}</th>' for i in cols
    )
    sums, read = truth[::-1], readout[::-1]  # least significant first

    def marked(text, wrong: bool) -> str:
        return _cell(str(text), COLORS["wrong"] if wrong else "white")

    body = (
        row("a", lambda i: marked(bits_a[i], False))
        + row("b", lambda i: marked(bits_b[i], False))
        + row("carry known after", lambda i: marked(wait[i], False))
        + row("steps N", lambda i: marked(steps[i], steps[i] < wait[i]))
        + row(f"h in round {r}", h_cell)
        + row("readout", lambda i: marked(read[i], read[i] != sums[i]))
        + row("true sum", lambda i: marked(sums[i], False))
    )
    head = f"<tr><th></th>{heads}</tr>"
    return f'<table style="border-collapse:collapse">{head}{body}</table>'


def act_explorer(model, a: str = "0110111111111101", b: str = "0001000000000011"):
    """Chapter 6's ACT Transformer on a typed sum (cap 2 (n + 1) rounds), round by
    round: each position's halting probability and steps against the rounds before its
    carry can be known. In the static page it runs in the reader's browser
    (``_static/explorers.js``)."""
    if static_page():
        return _model_element(
            "act-explorer", model, "ch6_act", a, b, PAGE_MAX_BITS["act"]
        )
    return _explorer(a, b, lambda a, b: _act_pages(model, a, b))


def _act_pages(model, a: str, b: str):
    """:func:`act_explorer`'s message and round tabs for one sum, from the library."""
    from recur.carry import wait_rounds
    from recur.tasks import batch_from_strings
    from recur.train import run_model

    trace = parallel_add(a, b)
    _check_width(trace, MAX_BITS // 2)
    batch = batch_from_strings([(trace.a, trace.b)])
    out = run_model(model, batch.bits, 2 * (trace.n_bits + 1))
    steps = out.steps[0].int().tolist()
    readout = "".join("1" if x > 0 else "0" for x in out.logits[0, 0].tolist()[::-1])
    bits = batch.bits[0].int().numpy()
    wait = wait_rounds(bits[:, 0], bits[:, 1])[:-1].tolist()
    early = sum(n < w for n, w in zip(steps, wait, strict=True))
    wrong = sum(x != y for x, y in zip(readout, trace.true_sum, strict=True))
    halting, truth = out.halting[:, 0].tolist(), trace.true_sum
    pages = [
        (str(r), act_round_html(bits, steps, halting, readout, truth, wait, r))
        for r in range(1, len(halting) + 1)
    ]
    verdict = (
        f"got {wrong} of {len(truth)} bits wrong" if wrong else "added the sum right"
    )
    note = (
        f"The model ran {_rounds(len(halting))} and {verdict}; {early} of "
        f"{len(steps)} positions stopped before their carry could be known. "
        "Click a round:"
    )
    return note, pages


def deq_explorer(deq, a: str = "0110111111111101", b: str = "0001000000000011"):
    """Chapter 7's DEQ cell on a typed sum: the solver's iterations (cap 2 (n + 1))
    against the longest carry chain, and the readout at the fixed point. In the
    static page it runs in the reader's browser (``_static/explorers.js``)."""
    if static_page():
        return _model_element(
            "deq-explorer", deq, "ch7_deq", a, b, PAGE_MAX_BITS["deq"]
        )
    from recur.tasks import batch_from_strings
    from recur.train import run_model

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        _check_width(trace, PAGE_MAX_BITS["deq"])
        cap = 2 * (trace.n_bits + 1)
        batch = batch_from_strings([(trace.a, trace.b)])
        logits = run_model(deq, batch.bits, cap).logits[0, 0]  # (n + 1,)
        fixed = "".join("1" if x > 0 else "0" for x in logits.tolist()[::-1])
        solve, truth = deq.last_solve, trace.true_sum
        settled = "(the state had settled)"
        if not solve.converged:
            settled = f"(the cap, {cap}: it had not settled)"
        wrong = sum(x != y for x, y in zip(fixed, truth, strict=True))
        verdict = f"has {wrong} wrong bits" if wrong else "is the true sum"
        note = (
            f"The solver stopped after {solve.n_iter} iterations {settled}; the "
            f"longest carry chain is {trace.rounds_to_settle}; the readout at the "
            f"fixed point {verdict}."
        )
        rows = _readout_row("fixed point", fixed, truth) + _readout_row(
            "true sum", truth, truth
        )
        return note, [("fixed point", f"<table>{rows}</table>")]

    return _explorer(a, b, build)


def halting_explorer(h=(0.1, 0.3, 0.8, 0.5, 0.2), eps: float = 0.01):
    """Sliders for h_1..h_M and epsilon; shows N, R, the weights p_r and the ponder cost
    (Graves 2016, Eqs. 6-10) as computed by :func:`recur.act.halting_weights`. In the
    static page the same explorer runs in the browser (``_static/halting.js``, issue
    20)."""
    if static_page():
        return static_halting_explorer(h, eps)
    import torch

    from recur.act import halting_weights

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


def static_halting_explorer(h=(0.1, 0.3, 0.8, 0.5, 0.2), eps: float = 0.01):
    """The halting explorer for a page with no kernel: an element that
    ``book/_extra/_static/halting.js`` fills with sliders and computes with the
    JavaScript twin of :func:`recur.act.halting_weights`; bad values fail here."""
    import json

    import torch
    from IPython.display import HTML

    from recur.act import halting_weights

    halting_weights(torch.tensor(list(h), dtype=torch.float64), eps)  # checks them
    return HTML(
        f'<div class="halting-explorer" data-h="{json.dumps(list(h))}" '
        f'data-eps="{eps}" data-color="{COLORS["weight"]}"></div>'
    )
