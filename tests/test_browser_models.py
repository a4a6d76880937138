"""The models the build trained, run in a real browser by _static/models.js
with the weights that travel with the page, against the library on the same weights;
and the explorers of Chapters 2, 6 and 7 that use them, typed into as a reader would.

Sums are drawn with seeds no chapter or study uses (20,000,000 + ...). Times are
printed, not asserted (run with ``-s`` to see them)."""

from __future__ import annotations

import base64
import json
import os
import time

import numpy as np
import pytest
import torch

from conftest import HTML
from recur.core.tasks import AdditionBatch, long_chain_batch, random_batch
from recur.models.running import run_model
from recur.views import explorers
from recur.views.export import model_from_spec, write_model_script

# Random and long-chain sums per width. Wide sums cost the most (a cell: 1,025 rounds
# of 1,025 positions). With these sets 8 planted bugs of the twins went red, as with 200
# at every width (``make check-full``); a float32 halting sum kept in float64 goes red
# in the targeted test at the end of this file.
FULL = os.environ.get("RECUR_BROWSER_FULL") == "1"
SUMS = {8: 200, 64: 100, 256: 25, 1024: 8}
CHUNK = 25  # sums per call into the page


def _spec(name: str) -> dict:
    """The spec a page loads: the last line of _static/models/NAME.js."""
    path = HTML / "_static" / "models" / f"{name}.js"
    assert path.exists(), f"{path} is missing: the chapter did not write its model"
    return json.loads(path.read_text().splitlines()[-1].split(" = ", 1)[1].rstrip(";"))


def _pairs(batch: AdditionBatch) -> list[tuple[str, str]]:
    """The sums as two MSB-first strings (without the carry-out position)."""
    bits = batch.bits.numpy().astype(int)[:, :-1]  # (B, n, 2)
    return [
        ("".join(map(str, x[::-1, 0])), "".join(map(str, x[::-1, 1]))) for x in bits
    ]


def _strings(logits: torch.Tensor) -> list[str]:
    """Readout logits (B, n + 1), LSB first -> MSB-first bit strings."""
    return [
        "".join("1" if v > 0 else "0" for v in row[::-1]) for row in logits.tolist()
    ]


def _sums(widths):
    for n in widths:
        count = 200 if FULL else SUMS[n]
        yield n, "random", random_batch(count, n, seed=20_000_000 + n)
        yield n, "long chains", long_chain_batch(count, n, seed=20_100_000 + 10 * n)


def _in_page(page, script: str, name: str, pairs: list) -> list:
    """``script(spec, pairs)`` in the page, CHUNK sums at a time."""
    call = (
        f"async ([name, pairs]) => {{ const spec = await loadModel(name); {script} }}"
    )
    out = []
    for start in range(0, len(pairs), CHUNK):
        out += page.evaluate(call, [name, pairs[start : start + CHUNK]])
    return out


CELL_JS = """return pairs.map(([a, b]) => {
  const rounds = OneMoreRound.cellReadouts(spec, a, b, a.length + 1).rounds;
  const text = (bits) => Array.from(bits).reverse().join("");
  return [text(rounds[Math.floor((a.length + 1) / 2) - 1]), text(rounds[a.length])];
});"""


def _cell_rounds(model, batch: AdditionBatch, n: int, chunk: int = 25) -> tuple:
    """The library cell's logits after (n + 1) / 2 and after n + 1 rounds, a few sums
    at a time: every round's readout of 200 sums at 1,024 bits would be about 18 GB."""
    rounds = [(n + 1) // 2 - 1, n]
    parts = [
        run_model(model, batch.part(i, i + chunk).bits, n + 1).logits[rounds]
        for i in range(0, len(batch), chunk)
    ]  # each (2, chunk, n + 1)
    return tuple(torch.cat(parts, dim=1))


def test_the_trained_cell_in_the_page_equals_the_library(page, site):
    """Chapter 2's cell: the readout after (n + 1) / 2 rounds (where long chains are
    still wrong in places) and after n + 1, bit for bit, 8 to 1,024 bits."""
    model = model_from_spec(_spec("ch2_cell"))
    page.goto(f"{site}/book/02_shared_update.html", wait_until="load")
    for n, kind, batch in _sums([8, 64, 256, 1024]):
        start = time.perf_counter()
        got = _in_page(page, CELL_JS, "ch2_cell", _pairs(batch))
        seconds = time.perf_counter() - start
        half, last = _cell_rounds(model, batch, n)  # (B, n + 1) each
        want = zip(_strings(half), _strings(last), strict=True)
        wrong = sum(tuple(g) != w for g, w in zip(got, want, strict=True))
        print(f"cell, {n} bits, {kind}: {wrong} of {len(batch)} differ; {seconds:.1f}s")
        assert wrong == 0, (n, kind)


DEQ_JS = """return pairs.map(([a, b]) => {
  const out = OneMoreRound.deqReadout(spec, a, b, 2 * (a.length + 1));
  return [Array.from(out.readout).reverse().join(""), out.nIter, out.converged];
});"""


def test_the_deq_cell_in_the_page_equals_the_library(page, site):
    """Chapter 7's DEQ cell, each sum solved alone (the library's residual is the
    largest of its batch): the readout at the fixed point and the iterations."""
    model = model_from_spec(_spec("ch7_deq"))
    page.goto(f"{site}/book/07_fixed_points.html", wait_until="load")
    for n, kind, batch in _sums([8, 64, 256]):
        got = _in_page(page, DEQ_JS, "ch7_deq", _pairs(batch))
        wrong = 0
        for k, (readout, n_iter, converged) in enumerate(got):
            logits = run_model(model, batch.bits[k : k + 1], 2 * (n + 1)).logits[0]
            solve = model.last_solve
            want = (_strings(logits)[0], solve.n_iter, solve.converged)
            wrong += (readout, n_iter, converged) != want
        print(f"DEQ, {n} bits, {kind}: {wrong} of {len(batch)} differ")
        assert wrong == 0, (n, kind)


ACT_JS = """return pairs.map(([a, b]) => {
  const out = OneMoreRound.actForward(spec, a, b, 2 * (a.length + 1));
  const running = out.halting.flatMap((h) => Array.from(h).filter((v) => !isNaN(v)));
  const bytes = new Uint8Array(new Float32Array(running).buffer);
  let text = "";
  for (let k = 0; k < bytes.length; k++) text += String.fromCharCode(bytes[k]);
  const readout = Array.from(out.readout).reverse().join("");
  return [readout, Array.from(out.steps), btoa(text)];
});"""


def _h_grid(packed: str, steps: list[int], n_rounds: int) -> np.ndarray:
    """The page's h_r of the rounds each position ran (round by round, LSB first) on
    a (rounds, n + 1) grid, NaN where a position had halted."""
    ran = np.arange(n_rounds)[:, None] < np.array(steps)[None]  # (R, n + 1)
    grid = np.full(ran.shape, np.nan)
    grid[ran] = np.frombuffer(base64.b64decode(packed), dtype="<f4")
    return grid


def _h_gap(grid: np.ndarray, out, k: int) -> float:
    """The largest |h_page - h_library| where both ran."""
    h = out.halting[:, k].double().numpy()  # (R, n + 1)
    ran = np.arange(len(h))[:, None] < out.steps[k].numpy()[None]
    rounds = min(len(h), len(grid))
    both = ran[:rounds] & ~np.isnan(grid[:rounds])
    return float(np.abs(grid[:rounds] - h[:rounds])[both].max(initial=0.0))


@pytest.mark.parametrize(
    "name, widths", [("ch6_act", [8, 64, 256]), ("ch6_first", [8, 64])]
)
def test_the_act_transformer_in_the_page_equals_the_library(page, site, name, widths):
    """Chapter 6's model: readout and steps per position equal to the library's;
    every h_r of a running position within 1e-5 of the library's arithmetic (the
    library run in float64; where both ran), and no further from the library in
    float32 than float32 rounding moves the library itself plus the page's own gap
    to float64 (the triangle inequality; float32 rounding alone reaches about 1e-3 after
    hundreds of rounds at 256 bits; it also flips a halting decision now and then;
    both printed). The first recipe's model too (its position and round signal are
    the paper's sinusoids), to 64 bits, past which it adds nothing right anyway."""
    spec = _spec(name)
    model, wide = model_from_spec(spec), model_from_spec(spec).double()
    page.goto(f"{site}/book/06_act_ut.html", wait_until="load")
    for n, kind, batch in _sums(widths):
        start = time.perf_counter()
        got = _in_page(page, ACT_JS, name, _pairs(batch))
        seconds = time.perf_counter() - start
        out = run_model(model, batch.bits, 2 * (n + 1))
        exact = run_model(wide, batch.bits.double(), 2 * (n + 1))
        assert [g[0] for g in got] == _strings(out.logits[0]), (n, kind)
        assert [g[1] for g in got] == out.steps.int().tolist(), (n, kind)
        moved = int((exact.steps != out.steps).sum())  # float32 rounding, by itself
        gaps = {"float64": 0.0, "float32": 0.0, "own": 0.0}
        for k, (_, steps, packed) in enumerate(got):
            grid = _h_grid(packed, steps, 2 * (n + 1))
            gaps["float64"] = max(gaps["float64"], _h_gap(grid, exact, k))
            gaps["float32"] = max(gaps["float32"], _h_gap(grid, out, k))
            own = exact.halting[:, k].numpy().copy()  # the library against itself
            own[np.arange(len(own))[:, None] >= exact.steps[k].numpy()[None]] = np.nan
            gaps["own"] = max(gaps["own"], _h_gap(own, out, k))
        print(
            f"ACT, {n} bits, {kind}: readout and steps equal; largest h gap "
            f"{gaps['float64']:.1e} (float64), {gaps['float32']:.1e} (float32; "
            f"float32 against float64 in the library: {gaps['own']:.1e}); "
            f"{moved} positions ran other step counts in float64; {seconds:.1f} s"
        )
        assert gaps["float64"] <= 1e-5, (n, kind, gaps)
        # |page - f32| <= |page - f64| + |f64 - f32|: no further than the two gaps
        assert gaps["float32"] <= gaps["own"] + gaps["float64"] + 1e-7, (n, kind, gaps)


def _typed(explorer, a: str, b: str) -> str:
    explorer.locator(".explore-a").fill(a)
    explorer.locator(".explore-b").fill(b)
    return explorer.locator(".explore-message").inner_text()


def _bad_input_is_told_and_the_explorer_keeps_working(explorer, limit: int) -> None:
    from recur.core.carry import pad_pair

    with pytest.raises(ValueError) as err:
        pad_pair("1111", "2x")
    assert _typed(explorer, "1111", "2x") == "⚠ " + str(err.value)
    assert "b is empty" in _typed(explorer, "1111", "")
    assert f"up to {limit} bits; these have {limit + 1}" in _typed(
        explorer, "1" * (limit + 1), "1"
    )
    assert "(b was padded with zeros to 4 bits)" in _typed(explorer, "1111", "1")


def _library_note(view) -> str:
    """The first sentence of a kernel explorer's message, as the page writes it."""
    return view.children[-2].value.split(". ")[0]


@pytest.mark.parametrize(
    "chapter, css, name, view, limit",
    [
        ("02_shared_update", "cell-explorer", "ch2_cell", "learned_explorer", "cell"),
        ("06_act_ut", "act-explorer", "ch6_act", "act_explorer", "act"),
        ("06_act_ut", "act-explorer", "ch6_first", "act_explorer", "act"),
        ("07_fixed_points", "deq-explorer", "ch7_deq", "deq_explorer", "deq"),
    ],
)
def test_a_model_explorer_says_what_the_library_says(
    page, site, chapter, css, name, view, limit
):
    """Typed sums: the page's message is the one the library's own explorer writes
    for the same model and sum (first sentence); bad input is told in the widget,
    which keeps working; no console error."""

    model = model_from_spec(_spec(name))
    page.goto(f"{site}/book/{chapter}.html", wait_until="load")
    explorer = page.locator(f".{css}[data-model={name}]")
    explorer.locator(".explore-message").wait_for()
    explorer.locator(".explore-reveal").click()  # the verdict waits for the reader
    for a, b in [("0110111111111101", "0001000000000011"), ("1011", "0111")]:
        shown = _typed(explorer, a, b)
        want = _library_note(getattr(explorers, view)(model, a, b))
        assert shown.startswith(want), (shown, want)
    _bad_input_is_told_and_the_explorer_keeps_working(
        explorer, explorers.PAGE_MAX_BITS[limit]
    )
    assert "Computed in your browser" in _typed(explorer, "1011", "0111")
    assert not page.errors, page.errors


@pytest.mark.parametrize(
    "chapter, css, hidden",
    [
        ("02_shared_update", "cell-explorer", "the exact rule settles after"),
        ("06_act_ut", "act-explorer", "positions stopped before their carry"),
    ],
)
def test_an_explorer_does_not_answer_its_predict_prompt(
    page, site, chapter, css, hidden
):
    """The message's verdict answers the page's "Predict" prompt: it is not shown
    until the reader drags the slider (or clicks "how it ends"); then it is."""
    page.goto(f"{site}/book/{chapter}.html", wait_until="load")
    explorer = page.locator(f".{css}").first
    message = explorer.locator(".explore-message")
    message.wait_for()
    assert hidden not in message.inner_text()
    assert explorer.locator(".explore-reveal").is_visible()
    _drag(explorer, 2)
    assert hidden in message.inner_text()
    assert not explorer.locator(".explore-reveal").is_visible()
    assert not page.errors, page.errors


def _act_row(explorer, name: str) -> list[str]:
    """The cells of the ACT explorer's row called ``name``, most significant first."""
    head = explorer.page.locator("th", has_text=name)
    row = explorer.locator(".explore-view tr", has=head)
    return row.first.locator("td").all_inner_texts()


def test_the_act_explorer_shows_steps_and_answers_as_the_rounds_settle_them(page, site):
    """Chapter 6's first-recipe explorer asks "will it wait for the long carry?": in
    round 1 only the positions that have halted show their steps, and the answer row
    is empty ("·") until the last round; "how it ends" moves the slider there, where
    every step and answer shows."""
    page.goto(f"{site}/book/06_act_ut.html", wait_until="load")
    explorer = page.locator(".act-explorer[data-model=ch6_first]")
    explorer.locator(".explore-message").wait_for()
    _drag(explorer, 1)
    steps = _act_row(explorer, "steps N")
    assert all(s == "·" or int(s) <= 1 for s in steps), steps
    assert "·" in steps  # the long carry's positions are still running
    assert set(_act_row(explorer, "answer")) == {"·"}
    explorer.locator(".explore-reveal").evaluate("button => button.click()")
    last = int(explorer.locator(".explore-round").get_attribute("max"))
    assert explorer.locator(".explore-round").input_value() == str(last)
    steps = _act_row(explorer, "steps N")
    assert "·" not in steps and max(map(int, steps)) <= last, steps
    assert set(_act_row(explorer, "answer")) <= {"0", "1"}
    assert not page.errors, page.errors


def _drag(explorer, k: int) -> None:
    """Move the explorer's slider to ``k`` as a reader's drag does (an input event)."""
    explorer.locator(".explore-round").evaluate(
        "(slider, k) => { slider.value = k; "
        "slider.dispatchEvent(new Event('input')); }",
        k,
    )


def test_the_deq_slider_walks_the_iterations_as_the_library_does(page, site):
    """Chapter 7's explorer, dragged through every iteration of a sum with one long
    chain and of a random one: after iteration k the page shows the library's readout
    after k iterations (:func:`solver_walk`), the exact rule after k rounds, and how
    much the state moved in that iteration, within float32 rounding of the library.
    The slider ends at the solver's last iteration, where the change first falls below
    the tolerance or the solver reaches its cap. A page that drew the fixed point at
    every iteration, or the change of another iteration, differs."""
    from recur.core.carry import parallel_add
    from recur.models.running import solver_walk

    model = model_from_spec(_spec("ch7_deq"))
    page.goto(f"{site}/book/07_fixed_points.html", wait_until="load")
    explorer = page.locator(".deq-explorer").first
    explorer.locator(".explore-message").wait_for()
    rng = np.random.default_rng(20_300_000)
    chain = ("0" + "1" * 22 + "1", "0" + "0" * 22 + "1")  # one chain of 23 positions
    random_pair = tuple("".join(rng.choice(["0", "1"], 24)) for _ in range(2))
    for a, b in [chain, random_pair]:
        _typed(explorer, a, b)
        cap = 2 * (len(a) + 1)
        run_model(model, _batch(a, b), cap)
        n_iter = model.last_solve.n_iter
        walk = solver_walk(model, a, b, n_iter)
        rule = parallel_add(a, b, n_rounds=n_iter)
        assert explorer.locator(".explore-round").get_attribute("max") == str(n_iter)
        assert model.tol <= walk["change"].iloc[:-1].min()
        # the last iteration: the first change below the tolerance, or the cap (a
        # model that has not settled on a long chain by then stops there)
        assert walk["change"].iloc[-1] < model.tol or n_iter == cap
        for k in range(1, n_iter + 1):
            _drag(explorer, k)
            rows = explorer.locator(".explore-view tr td").all_inner_texts()
            shown = [text.replace("\n", "") for text in rows]
            settled = min(k, rule.n_rounds)
            want_rule = str(rule.carry_out(settled)) + rule.readout(settled)
            assert shown[:2] == [want_rule, walk.loc[k, "readout"]], (a, k)
            shown_change = explorer.locator(".deq-change")
            change = float(shown_change.get_attribute("title"))
            assert change == pytest.approx(walk.loc[k, "change"], rel=1e-3, abs=1e-6)
            assert shown_change.inner_text() == explorers._change_text(change)
    assert not page.errors, page.errors


def _batch(a: str, b: str) -> torch.Tensor:
    from recur.core.tasks import batch_from_strings

    return batch_from_strings([(a, b)]).bits


def _never_settling(name: str) -> torch.nn.Module:
    """The page's model with its stopping rule switched off: ACT's halting bias at
    -30 (h is about 1e-13, so no position halts before the cap), or the DEQ's
    tolerance at 1e-45 (no residual of a few iterations gets below it)."""
    spec = _spec(name)
    if name == "ch7_deq":
        spec["options"]["tol"] = 1e-45
    model = model_from_spec(spec)
    if name == "ch6_act":
        with torch.no_grad():
            model.halting.linear.bias.fill_(-30.0)
    return model


@pytest.mark.parametrize(
    "chapter, css, name, view",
    [
        ("06_act_ut", "act-explorer", "ch6_act", "act_explorer"),
        ("07_fixed_points", "deq-explorer", "ch7_deq", "deq_explorer"),
    ],
)
def test_an_explorer_runs_to_its_cap_as_the_library_does(
    page, site, tmp_path, chapter, css, name, view
):
    """With a model that never stops by itself, the explorer runs to its cap of
    2 (n + 1) rounds or iterations and says so, as the library's explorer does: a
    page that capped at 2 n, or told another cap than it ran, says another number."""
    model = _never_settling(name)
    script = write_model_script(model, name, tmp_path).read_text()
    page.route(
        f"**/_static/models/{name}.js",
        lambda route: route.fulfill(body=script, content_type="text/javascript"),
    )
    page.goto(f"{site}/book/{chapter}.html", wait_until="load")
    explorer = page.locator(f".{css}").first
    explorer.locator(".explore-message").wait_for()
    explorer.locator(".explore-reveal").click()  # the verdict waits for the reader
    for a, b in [("1011", "0111"), ("1", "1")]:
        want = _library_note(getattr(explorers, view)(model, a, b))
        cap = 2 * (len(a) + 1)
        assert f" {cap} " in want  # the library ran to the cap: "ran 10 rounds"
        assert _typed(explorer, a, b).startswith(want)


def test_the_explorers_feel_live(page, site):
    """256-bit sums through the cell (2 (n + 1) rounds, as its
    explorer runs it) and 64-bit sums through the ACT Transformer, as typed into the
    page, random and with one carry chain across the width (the slowest case for
    ACT: every position waits); the times the explorers measure are printed (goal:
    under 100 ms)."""
    rng = np.random.default_rng(20)
    times = {}
    for chapter, css, n in [
        ("02_shared_update", "cell", 256),
        ("06_act_ut", "act", 64),
    ]:
        page.goto(f"{site}/book/{chapter}.html", wait_until="load")
        explorer = page.locator(f".{css}-explorer").first
        explorer.locator(".explore-message").wait_for()
        runs = []
        for _ in range(5):
            a, b = ("".join(rng.choice(["0", "1"], n)) for _ in range(2))
            _typed(explorer, a, b)
            runs.append(float(explorer.get_attribute("data-ms")))
        times[f"{css}, {n} random bits"] = runs
        _typed(explorer, "1" * n, "0" * (n - 1) + "1")  # one chain across the width
        times[f"{css}, {n} bits, a chain of {n}"] = [
            float(explorer.get_attribute("data-ms"))
        ]
    for what, runs in times.items():
        print(f"{what}: {', '.join(f'{t:.0f}' for t in runs)} ms")
    assert all(t > 0 for runs in times.values() for t in runs)


# Halting biases whose h = sigmoid(bias) is the same float32 number in torch and in
# the page, chosen so that adding h up in float32 reaches 1 - eps at another step than
# adding it up in float64: h = 0.10999999 halts at step 9 in float32 (10 in float64),
# h = 0.0825 at step 13 (12 in float64). Found by search over float32 neighbours of
# 0.99 / k, k = 2..40.
HALTING_BIASES = (-2.0907411575317383, -2.4088542461395264)


@pytest.mark.parametrize("bias", HALTING_BIASES)
def test_the_page_adds_the_halting_sum_in_float32_as_the_library_does(page, site, bias):
    """ACT's running sum h_1 + h_2 + ... is a float32 sum in the library; a page that
    kept it in float64 anywhere would halt one step earlier or later here. Every
    position's h is the same constant (halting weights 0), so every position must
    halt at the step worked out by hand above."""
    from recur.models.ut import UniversalTransformer
    from recur.training.ut_recipe import BOOK_ACT
    from recur.views.export import model_spec

    torch.manual_seed(0)
    model = UniversalTransformer(BOOK_ACT.model).eval()
    with torch.no_grad():
        model.halting.linear.weight.zero_()
        model.halting.linear.bias.fill_(bias)
    want = {HALTING_BIASES[0]: 9, HALTING_BIASES[1]: 13}[bias]  # by hand, above
    batch = random_batch(4, 8, seed=20_200_000)
    library = run_model(model, batch.bits, 40).steps
    assert (library == want).all()
    page.goto(f"{site}/book/06_act_ut.html", wait_until="load")
    got = page.evaluate(
        """([spec, pairs]) => pairs.map(([a, b]) =>
            Array.from(OneMoreRound.actForward(spec, a, b, 40).steps))""",
        [model_spec(model), _pairs(batch)],
    )
    assert got == library.int().tolist()


ROUND_READOUTS_JS = """return pairs.map(([a, b]) => {
  const out = OneMoreRound.actForward(spec, a, b, 2 * (a.length + 1));
  return out.roundReadouts.map((bits) => Array.from(bits).reverse().join(""));
});"""


def test_the_act_explorers_readout_follows_the_rounds(page, site):
    """The page's readout of each position's state after round r equals the
    library's (recur.chapters.ch6_hardest.readouts_by_round, where a halted position
    keeps its readout), round by round, on 16-bit random and long-chain sums."""
    from recur.chapters.ch6_hardest import readouts_by_round
    from recur.core.tasks import long_chain_batch, random_batch

    model = model_from_spec(_spec("ch6_act"))
    page.goto(f"{site}/book/06_act_ut.html", wait_until="load")
    for batch in (random_batch(6, 16, seed=3), long_chain_batch(6, 16, seed=4)):
        got = _in_page(page, ROUND_READOUTS_JS, "ch6_act", _pairs(batch))
        logits = readouts_by_round(model, batch.bits, 2 * 17)  # (R, B, n + 1)
        for k, rounds in enumerate(got):
            want = [_strings(logits[r, k : k + 1])[0] for r in range(len(rounds))]
            assert rounds == want, k
    assert not page.errors, page.errors
