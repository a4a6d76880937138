"""The explorers that run a trained model: Chapter 2's cell, Chapter 6's ACT
Transformer and Chapter 7's DEQ cell, round by round beside the exact rule. With a
kernel they are widgets; in the static page, elements that ``explorers.js`` runs with
the exported weights (:mod:`recur.views.export`)."""

from __future__ import annotations

import html

import ipywidgets as w

from recur.core.carry import CarryTrace, parallel_add, wait_rounds
from recur.core.page import static_page
from recur.core.tasks import batch_from_strings
from recur.models.running import learned_readouts, run_model, solver_walk
from recur.views.export import write_model_script
from recur.views.palette import COLORS, legend_html
from recur.views.widgets import (
    CELL,
    FILL,
    MAX_BITS,
    ROW_HEAD,
    cell_td,
    check_width,
    tabbed_explorer,
)


def _rounds(n: int) -> str:
    return f"{n} round" + ("" if n == 1 else "s")


def _readout_row(name: str, bits: str, truth: str) -> str:
    cells = "".join(
        cell_td(bit, COLORS["wrong"] if bit != want else FILL[bit])
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


def learned_explorer(
    model, a: str = "01011011", b: str = "00100101", name: str = "ch2_cell"
) -> w.VBox:
    """The learned cell's readout round by round, next to the exact rule of Chapter 1;
    wrong bits are pink (:mod:`recur.views.palette`). Runs ``2 * (width + 1)`` rounds,
    twice what the rule needs. ``name``: the page's name for the model (a cell the
    reader trains in the page replaces the one named ``ch2_cell``)."""
    if static_page():
        return static_learned_explorer(model, a, b, name)

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        check_width(trace, MAX_BITS // 2)
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

    return tabbed_explorer(a, b, build)


# The widest sums the page's explorers take: the trained cell is exact far beyond its
# training width (Chapter 2 tests it at 1,024 bits); the ACT Transformer is slower in
# the browser (a few hundred rounds of attention at 256 bits).
PAGE_MAX_BITS = {"cell": 1024, "act": 256, "deq": 1024}
PAGE_COLORS = ("one", "zero", "wrong", "halting")  # the colours explorers.js draws


def _model_element(css_class: str, model, name: str, a: str, b: str, max_bits: int):
    """A page element that ``_static/explorers.js`` fills, with ``model``'s weights
    written next to the page (:func:`recur.views.export.write_model_script`). Bad input
    fails here, in the notebook."""
    import json

    from IPython.display import HTML

    trace = parallel_add(a, b)
    check_width(trace, max_bits)
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


def _marked(text, wrong: bool) -> str:
    """A cell of the ACT explorer's table, pink where ``wrong``."""
    return cell_td(str(text), COLORS["wrong"] if wrong else "white")


def _halting_td(h: float, halted: bool) -> str:
    """h_r's cell: grey as deep as h, empty once the position has halted."""
    if halted:
        return cell_td("", "white")
    alpha = f"{round(255 * min(1.0, max(0.0, h))):02x}"
    return cell_td(f"{h:.2f}".lstrip("0"), COLORS["halting"] + alpha, "font-size:70%")


def _act_rows(bits, steps, halting, readout, truth, wait, r: int) -> dict:
    """:func:`act_round_html`'s rows by name, each a list of cells, least
    significant position first."""
    done = r >= len(halting)  # every position has halted
    sums, read = truth[::-1], readout[::-1]  # least significant first
    pairs = list(zip(steps, wait, strict=True))
    return {
        "a": [_marked(x, False) for x in bits[:, 0].tolist()],
        "b": [_marked(x, False) for x in bits[:, 1].tolist()],
        "carry known after": [_marked(w, False) for w in wait],
        "steps N": [_marked(s if s <= r else "·", s <= r and s < w) for s, w in pairs],
        f"h in round {r}": [
            _halting_td(float(h), r > s)
            for h, s in zip(halting[r - 1], steps, strict=True)
        ],
        "readout": [
            _marked(x, x != y) if done else _marked("·", False)
            for x, y in zip(read, sums, strict=True)
        ],
        "true sum": [_marked(x, False) for x in sums],
    }


def act_round_html(bits, steps, halting, readout: str, truth: str, wait, r: int) -> str:
    """Round ``r`` of the ACT explorer, positions most significant first: the bits,
    the rounds before each carry can be known (``wait``), the steps N of each position
    that has halted by round ``r`` (pink: fewer than ``wait``, so its answer was a
    guess; "·" while it runs), h_r (grey, empty once halted), the readout once every
    position has halted (pink where wrong) and the true sum. The answers wait for the
    last round, as the page's "Predict" prompt asks. ``bits`` (n, 2), ``steps``,
    ``wait`` and ``halting[r - 1]`` are least significant first."""
    n = len(steps)
    heads = "".join(
        f'<th style="font-size:70%">{"out" if i == n - 1 else i}</th>'
        for i in range(n - 1, -1, -1)
    )
    rows = _act_rows(bits, steps, halting, readout, truth, wait, r)
    body = "".join(
        f"<tr>{ROW_HEAD.format(name)}{''.join(cells[::-1])}</tr>"
        for name, cells in rows.items()
    )
    head = f"<tr><th></th>{heads}</tr>"
    return f'<table style="border-collapse:collapse">{head}{body}</table>'


def act_explorer(
    model,
    a: str = "0110111111111101",
    b: str = "0001000000000011",
    name: str = "ch6_act",
):
    """Chapter 6's ACT Transformer on a typed sum (cap 2 (n + 1) rounds), round by
    round: each position's halting probability and steps against the rounds before its
    carry can be known. In the static page it runs in the reader's browser
    (``_static/explorers.js``), its weights written as ``_static/models/NAME.js``."""
    if static_page():
        return _model_element("act-explorer", model, name, a, b, PAGE_MAX_BITS["act"])
    return tabbed_explorer(a, b, lambda a, b: _act_pages(model, a, b))


def _act_pages(model, a: str, b: str):
    """:func:`act_explorer`'s message and round tabs for one sum, from the library."""

    trace = parallel_add(a, b)
    check_width(trace, MAX_BITS // 2)
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


def _change_text(change: float) -> str:
    """A state's change as the page writes it (JavaScript's toExponential(1))."""
    return f"{change:.1e}".replace("e-0", "e-").replace("e+0", "e+")


def deq_iteration_html(rule: CarryTrace, walk, truth: str, k: int, tol: float) -> str:
    """Iteration ``k`` of the DEQ explorer: the exact rule after ``k`` rounds, the DEQ
    cell's readout after ``k`` iterations (wrong bits pink) and the true sum, and how
    much the state moved in that iteration (``walk``:
    :func:`recur.models.running.solver_walk`)."""
    settled = min(k, rule.n_rounds)
    rows = (
        _readout_row(
            f"exact rule, round {k}",
            str(rule.carry_out(settled)) + rule.readout(settled),
            truth,
        )
        + _readout_row(f"DEQ, iteration {k}", walk.loc[k, "readout"], truth)
        + _readout_row("true sum", truth, truth)
    )
    change = float(walk.loc[k, "change"])
    return (
        f'<table style="border-collapse:collapse">{rows}</table>'
        f'<p>In iteration {k} the state moved by <span class="deq-change" '
        f'title="{change!r}">{_change_text(change)}</span> of its size; the solver '
        f"stops once that is below {tol:g}. "
        f"{legend_html(('wrong',))}: differs from the true sum</p>"
    )


def deq_explorer(deq, a: str = "0000000011111111", b: str = "0000000000000001"):
    """Chapter 7's DEQ cell on a typed sum: the solver's iterations (cap 2 (n + 1))
    against the longest carry chain, the readout at the fixed point, and iteration by
    iteration the readout beside the exact rule (the carry walking) and how much the
    state moved (the settling). In the static page it runs in the reader's browser
    (``_static/explorers.js``)."""
    if static_page():
        return _model_element(
            "deq-explorer", deq, "ch7_deq", a, b, PAGE_MAX_BITS["deq"]
        )

    def build(a: str, b: str):
        trace = parallel_add(a, b)
        check_width(trace, PAGE_MAX_BITS["deq"])
        cap = 2 * (trace.n_bits + 1)
        batch = batch_from_strings([(trace.a, trace.b)])
        logits = run_model(deq, batch.bits, cap).logits[0, 0]  # (n + 1,)
        fixed = "".join("1" if x > 0 else "0" for x in logits.tolist()[::-1])
        solve, truth = deq.last_solve, trace.true_sum
        settled, where = "(the state had settled)", "at the fixed point"
        if not solve.converged:
            settled = f"(the cap, {cap}: it had not settled)"
            where = "where the solver stopped"
        wrong = sum(x != y for x, y in zip(fixed, truth, strict=True))
        verdict = f"has {wrong} wrong bits" if wrong else "is the true sum"
        note = (
            f"The solver stopped after {solve.n_iter} iterations {settled}; the "
            f"longest carry chain is {trace.rounds_to_settle}; the readout {where} "
            f"{verdict}. Click an iteration:"
        )
        walk = solver_walk(deq, trace.a, trace.b, solve.n_iter)
        rule = parallel_add(trace.a, trace.b, n_rounds=solve.n_iter)
        pages = [
            (str(k), deq_iteration_html(rule, walk, truth, k, deq.tol))
            for k in range(1, solve.n_iter + 1)
        ]
        return note, pages

    return tabbed_explorer(a, b, build)


TRAINER_NOTE = (
    "<i>Training in the page is the static book's: here, with a kernel, "
    "<code>train_cell(seed=...)</code> above trains the cell.</i>"
)


def cell_trainer(seed: int = 1, settings: dict | None = None):
    """In the static page, an element that ``_static/cell_train.js`` fills: a seed
    field, Train and Stop, a progress bar and the loss, and Chapter 2's cell trained
    in the reader's browser from that seed, which the explorer above then runs.
    ``settings`` change the page's training settings (the tests' short runs). With a
    kernel, a note: the library trains the cell there."""
    import json

    from IPython.display import HTML

    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if not static_page():
        return HTML(TRAINER_NOTE)
    extra = html.escape(json.dumps(settings or {}))
    return HTML(
        f'<div class="cell-trainer" data-seed="{seed}" data-settings="{extra}"></div>'
    )


ACT_TRAINER_NOTE = (
    "<i>Training in the page is the static book's: here, with a kernel, "
    "<code>train_book_act(seed=...)</code> trains the model.</i>"
)


def act_trainer(seed: int = 0, expected: str = "", variant: str = "book"):
    """In the static page, an element that ``_static/act_train.js`` fills: a seed
    field, Train and Stop, progress and the loss, Chapter 6's procedure run in the
    reader's browser from that seed (``variant``: the page's settings by name), whose
    model the page's explorer then runs, and its widths row. ``expected``: a sentence
    on how long it takes, shown before the click. With a kernel, a note: the library
    trains the model there."""
    from IPython.display import HTML

    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if not static_page():
        return HTML(ACT_TRAINER_NOTE)
    data = f'data-seed="{seed}" data-variant="{html.escape(variant)}"'
    return HTML(
        f'<div class="act-trainer" {data} '
        f'data-expected="{html.escape(expected)}"></div>'
    )
