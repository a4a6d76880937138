"""Chapter 2's cell trained in the reader's browser (``_static/cell_model.js``, run by
``_static/cell_train.js``) against the library, in Chromium: the same loss and
gradients from the same weights and batch, fifty Adam steps that track PyTorch's,
planted bugs that go red, and the trainer in the page as a reader uses it (a seed,
Train, Stop, the explorer running the new weights).

Tolerances. The page computes in float64 from the float32 weights PyTorch starts from.
Against PyTorch in float64 on the same numbers, the loss and every gradient agree to
1e-12 (only the order of the sums differs). Against PyTorch in float32, the library as
the book runs it, they agree to float32's rounding: 2e-6 of the largest gradient."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

from conftest import HTML, ROOT
from recur.core.tasks import random_batch
from recur.models.cell import LocalCell, window_loss
from recur.views.export import model_from_spec

STATIC = ROOT / "book" / "_extra" / "_static"
MODEL = STATIC / "cell_model.js"  # the cell, its loss and its gradients
SCRIPT = STATIC / "cell_train.js"  # the procedure and the page's trainer
KIT = STATIC / "train_kit.js"  # what the two trainers share
N_ROUNDS = 9


def _load(page, site, model: str | None = None, kit: str | None = None) -> None:
    """The trainer alone in a blank page (``model``, ``kit``: planted copies of the
    cell and of the kit it shares with Chapter 6's trainer)."""
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=(SCRIPT.parent / "exact_math.js").read_text())
    page.add_script_tag(content=kit or KIT.read_text())
    page.add_script_tag(content=model or MODEL.read_text())
    page.add_script_tag(content=SCRIPT.read_text())


def _model(seed: int, scale: float = 1.0) -> LocalCell:
    torch.manual_seed(seed)
    model = LocalCell()
    with torch.no_grad():  # larger weights: gradients past the clipping norm
        for p in model.parameters():
            p.mul_(scale)
    return model


def _weights(model) -> dict:
    return {k: v.double().flatten().tolist() for k, v in model.state_dict().items()}


def _batch(seed: int, size: int = 64):
    """Training sums as the trainer draws them (1 to 8 bits, zeros above), a few of
    them held out (keep 0)."""
    batch = random_batch(size, 8, seed=seed, min_bits=1)
    keep = torch.ones(size)
    keep[::7] = 0
    return batch, keep


def _js_batch(batch, keep) -> dict:
    bits = batch.bits.int()  # (B, n, 2), LSB first, the carry out on top
    return {
        "a": bits[..., 0].flatten().tolist(),
        "b": bits[..., 1].flatten().tolist(),
        "target": batch.target.int().flatten().tolist(),
        "size": len(keep),
        "n": bits.shape[1],
        "keep": keep.int().tolist(),
    }


# The page's side: plain arrays in, the trainer's typed arrays inside.
TYPED = """
const typed = (w) => Object.fromEntries(
  Object.entries(w).map(([k, v]) => [k, Float64Array.from(v)]));
const plain = (w) => Object.fromEntries(
  Object.entries(w).map(([k, v]) => [k, Array.from(v)]));
const batchOf = (b) => ({ a: Uint8Array.from(b.a), b: Uint8Array.from(b.b),
  target: Uint8Array.from(b.target), size: b.size, n: b.n });
"""
LOSS_JS = f"""([w, b]) => {{ {TYPED}
  const {{ loss, gradients }} = window.OneMoreRound.train.lossAndGradients(
    typed(w), batchOf(b), Uint8Array.from(b.keep), {N_ROUNDS});
  return {{ loss, gradients: plain(gradients) }};
}}"""


def _library_gradients(model, batch, keep, dtype) -> tuple[float, dict]:
    model = model.to(dtype)
    model.zero_grad()
    out = model(batch.bits.to(dtype), N_ROUNDS)
    loss = window_loss(out.logits, batch.target.to(dtype), 1, keep.to(dtype))
    loss.backward()
    grads = {k: p.grad.flatten() for k, p in model.named_parameters()}
    return float(loss.detach()), grads


def _gradient_gaps(page, model, batch, keep) -> dict:
    got = page.evaluate(LOSS_JS, [_weights(model), _js_batch(batch, keep)])
    gaps = {}
    for dtype in (torch.float64, torch.float32):
        loss, grads = _library_gradients(_copy(model), batch, keep, dtype)
        largest = max(float(g.abs().max()) for g in grads.values())
        gaps[str(dtype)] = max(
            [abs(got["loss"] - loss)]
            + [
                float(
                    (
                        torch.tensor(got["gradients"][k], dtype=torch.float64)
                        - g.double()
                    )
                    .abs()
                    .max()
                )
                / largest
                for k, g in grads.items()
            ]
        )
    return gaps


def _copy(model) -> LocalCell:
    copy = LocalCell()
    copy.load_state_dict(model.state_dict())
    return copy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_page_computes_the_library_loss_and_every_gradient(page, site, seed):
    _load(page, site)
    batch, keep = _batch(100 + seed)
    gaps = _gradient_gaps(page, _model(seed), batch, keep)
    print(f"seed {seed}: largest gap {gaps}")
    assert gaps[str(torch.float64)] <= 1e-12, gaps
    assert gaps[str(torch.float32)] <= 2e-6, gaps


ADAM_JS = f"""([w, batches]) => {{ {TYPED}
  const weights = typed(w), adam = {{ step: 0, m: {{}}, v: {{}} }};
  return batches.map((b) => window.OneMoreRound.train.trainingStep(
    weights, adam, batchOf(b), Uint8Array.from(b.keep)));
}}"""


def _library_losses(model, batches, dtype) -> tuple[list[float], list[bool]]:
    """The library's training step (recur.training.loop._step's loss, clipping and
    Adam at train_cell's step size) on each batch; also which steps were clipped."""
    model = model.to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses, clipped = [], []
    for batch, keep in batches:
        out = model(batch.bits.to(dtype), N_ROUNDS)
        loss = window_loss(out.logits, batch.target.to(dtype), 1, keep.to(dtype))
        opt.zero_grad()
        loss.backward()
        clipped.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1)) > 1)
        opt.step()
        losses.append(float(loss.detach()))
    return losses, clipped


def _steps(model, batches) -> dict:
    """The model's starting weights, the batches, and the library's losses on them in
    float64 and in float32 (with which steps were clipped)."""
    dtypes = (torch.float64, torch.float32)
    runs = {d: _library_losses(_copy(model), batches, d) for d in dtypes}
    return {"weights": _weights(model), "batches": batches, "runs": runs}


def _adam_gaps(page, steps: dict) -> dict:
    """How far the page's losses over ``steps`` are from the library's, relatively,
    at their worst."""
    batches, runs = steps["batches"], steps["runs"]
    got = page.evaluate(
        ADAM_JS, [steps["weights"], [_js_batch(b, k) for b, k in batches]]
    )

    def gap(xs, ys) -> float:
        return max(abs(x - y) / y for x, y in zip(xs, ys, strict=True))

    return {
        "float64": gap(got, runs[torch.float64][0]),
        "float32": gap(got, runs[torch.float32][0]),
        "library, float32 vs 64": gap(runs[torch.float32][0], runs[torch.float64][0]),
        "clipped steps": sum(runs[torch.float32][1]),
    }


@pytest.fixture(scope="module")
def fifty_steps():
    """Computed once: the page's run is compared with the library's."""
    return _steps(_model(3), [_batch(200 + k, size=128) for k in range(50)])


@pytest.fixture(scope="module")
def ten_clipped_steps():
    """Ten steps from larger weights, whose first steps are clipped: every planted bug
    runs them (computed once)."""
    return _steps(_model(3, scale=3.0), [_batch(200 + k, size=128) for k in range(10)])


def test_fifty_adam_steps_track_pytorch(page, site, fifty_steps):
    """From the same initial weights, the same fifty batches: every loss within 1e-9
    of PyTorch's in float64, relatively; against the library in float32 no further
    than float32's rounding moves the library from itself in float64 (Adam divides by
    the size of small gradients, so rounding grows over the steps: about 10% in the
    worst of fifty losses). Some early steps are clipped, so a trainer that skipped
    clipping would show here."""
    _load(page, site)
    gaps = _adam_gaps(page, fifty_steps)
    print(f"fifty Adam steps: largest relative loss gap {gaps}")
    assert gaps["clipped steps"] >= 1, gaps
    assert gaps["float64"] <= 1e-9, gaps
    assert gaps["float32"] <= gaps["library, float32 vs 64"] + 1e-6, gaps


# Bugs planted one at a time in a copy of the cell or of the kit: each must turn a
# check red, on one batch's gradients or over ten Adam steps.
PLANTED = {
    "a gradient with the wrong sign in one layer": (
        "gb2[o] += da[o];",
        "gb2[o] -= da[o];",
    ),
    "a missing bias gradient": ('g["readout.bias"][0] += dx;', ""),
    "Adam without its bias correction": (
        "const correction1 = 1 - exact.power(beta1, state.step);\n"
        "    const correction2 = 1 - exact.power(beta2, state.step);",
        "const correction1 = 1;\n    const correction2 = 1;",
    ),
    "the state of the bit below taken from the wrong round": (
        "if (below) for (let k = 0; k < D; k++) sum += w1[row + D + k] * z[pb + k];",
        "if (below) for (let k = 0; k < D; k++) sum += w1[row + D + k] * "
        "(states[Math.max(r - 1, 0)][pb + k] + problem[pb + k]);",
    ),
    "gradient clipping skipped": (
        "clipGradients(gradients, SETTINGS.clipNorm);",
        "",
    ),
}


@pytest.mark.parametrize("bug", PLANTED)
def test_each_planted_bug_goes_red(page, site, ten_clipped_steps, bug):
    old, new = PLANTED[bug]
    model, kit = MODEL.read_text(), KIT.read_text()
    where = "kit" if old in kit else "model"  # the kit: Adam and clipping's own lines
    planted_in = kit if where == "kit" else model
    assert old in planted_in, f"the planted line is gone: {old}"
    if where == "kit":
        _load(page, site, kit=kit.replace(old, new, 1))
    else:
        _load(page, site, model.replace(old, new, 1))  # the first: training's forward
    batch, keep = _batch(100)
    gradients = _gradient_gaps(page, _model(0), batch, keep)[str(torch.float64)]
    gaps = _adam_gaps(page, ten_clipped_steps)
    assert gaps["clipped steps"] >= 1, gaps  # else a skipped clip could not show
    steps = gaps["float64"]
    print(f"{bug}: gradient gap {gradients:.1e}, ten-step gap {steps:.1e}")
    assert gradients > 1e-6 or steps > 1e-6, bug


def test_the_bce_loss_is_pytorchs(page, site):
    """With logits far from 0 (the stable form, as PyTorch writes it)."""
    _load(page, site)
    logits = [-80.0, -3.0, 0.0, 2.5, 90.0]
    targets = [1, 0, 1, 0, 1]
    got = page.evaluate(
        """([x, t]) => window.OneMoreRound.train.windowLoss(
        Float64Array.from(x), { size: 1, n: x.length, target: Uint8Array.from(t) },
        Uint8Array.from([1])).loss""",
        [logits, targets],
    )
    want = F.binary_cross_entropy_with_logits(
        torch.tensor(logits, dtype=torch.float64),
        torch.tensor(targets, dtype=torch.float64),
    )
    assert got == pytest.approx(float(want), rel=1e-14)


def _trainer(page):
    root = page.locator(".cell-trainer").first
    root.locator(".trainer-message").wait_for(state="attached")
    return root


def test_the_trainer_in_the_page_trains_stops_and_hands_its_cell_over(page, site):
    """A reader's path on Chapter 2's page: a bad seed is told in the widget; Train
    shows progress and the loss; Stop keeps the weights so far and says so; the
    explorer then runs them, keeps the reader's sum, says whose cell it is and goes
    back to the book's cell at a click; no console error."""
    page.goto(f"{site}/book/02_shared_update.html", wait_until="load")
    root = _trainer(page)
    book_cell = page.locator(".cell-explorer[data-model='ch2_cell']")
    book_cell.locator(".explore-message").wait_for()
    book_cell.locator(".explore-a").fill("1110")  # the reader's sum, kept below
    seed, message = root.locator(".trainer-seed"), root.locator(".trainer-message")
    for bad, told in [
        ("1.5", "seed must be an integer, got '1.5'"),
        ("x", "seed must be an integer, got 'x'"),
        ("-1", "seed must be in 0.."),
    ]:
        seed.fill(bad)
        root.locator(".trainer-train").click()
        assert told in message.inner_text()
    seed.fill("5")
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 3", timeout=60000
    )
    assert root.locator(".trainer-loss polyline").count() == 1
    root.locator(".trainer-stop").click()
    assert message.inner_text().startswith("Stopped at step ")
    assert page.evaluate("window.OneMoreRound.trainedCell.seed") == 5
    book_cell.locator(".explore-reveal").click()  # the verdict waits for the reader
    assert "learned cell" in book_cell.inner_text()
    assert book_cell.locator(".explore-a").input_value() == "1110"  # kept
    assert (
        book_cell.locator(".explore-whose")
        .inner_text()
        .startswith("Your cell, seed 5.")
    )
    book_cell.locator(".explore-whose button").click()  # back to the book's cell
    book_cell.locator(".explore-message").wait_for()
    assert book_cell.locator(".explore-whose").count() == 0
    assert book_cell.locator(".explore-a").input_value() == "1110"
    assert root.locator(".trainer-train").is_enabled()
    assert not page.errors, page.errors


def test_a_run_to_its_end_says_what_happened(page, site):
    """A short run (ten steps a run, a check every five) cannot pass: the sentence
    derived from the result says it passed no check in all its runs (the library's
    max_attempts, SETTINGS.maxAttempts)."""
    page.goto(f"{site}/book/02_shared_update.html", wait_until="load")
    root = _trainer(page)
    page.evaluate(
        """() => { const root = document.querySelector('.cell-trainer');
        root.dataset.settings = JSON.stringify({ nSteps: 10, evalEvery: 5 });
        mountCellTrainer(root); }"""
    )
    root.locator(".trainer-seed").fill("2")
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-message').textContent"
        ".includes('passed no check')",
        timeout=120000,
    )
    text = root.locator(".trainer-message").inner_text()
    runs = page.evaluate("window.OneMoreRound.train.SETTINGS.maxAttempts")
    assert runs >= 2, runs
    assert text.startswith(f"Seed 2 passed no check in {runs} runs"), text
    assert not page.errors, page.errors


def test_reloading_during_a_run_leaves_a_working_trainer(page, site):
    """Leaving the page mid-run ends its worker with it; the page comes back with a
    fresh trainer that trains again, and no console error."""
    page.goto(f"{site}/book/02_shared_update.html", wait_until="load")
    root = _trainer(page)
    root.locator(".trainer-seed").fill("4")
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 1", timeout=60000
    )
    page.reload(wait_until="load")
    root = _trainer(page)
    assert root.locator(".trainer-train").is_enabled()
    assert root.locator(".trainer-stop").is_disabled()
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 1", timeout=60000
    )
    root.locator(".trainer-stop").click()
    assert root.locator(".trainer-message").inner_text().startswith("Stopped at step")
    assert not page.errors, page.errors


# The cell's round is written three times in the page's scripts: the trainer's forward
# (every round's activations kept for the backward pass) and settledForward (settled
# positions skipped) in cell_model.js, and cellStep in models.js (the explorer and
# Chapter 7's DEQ), which the trainer's Web Worker cannot reach.
ROUNDS_JS = f"""([w, b, nRounds]) => {{ {TYPED}
  const weights = typed(w), batch = batchOf(b), train = window.OneMoreRound.train;
  const D = weights["embed.bias"].length;
  const kept = train.forward(weights, batch, nRounds).states.slice(1);
  const settled = [];
  let skipped = 0;
  train.settledForward(weights, batch, nRounds, (s, moved) => {{
    settled.push(s.slice());
    skipped += moved.reduce((x, m) => x + 1 - m, 0);
  }});
  const step = kept.map((s) => new Float64Array(s.length));
  for (let e = 0; e < batch.size; e++) {{
    const at = e * batch.n;
    const bits = {{ bitsA: batch.a.subarray(at, at + batch.n),
      bitsB: batch.b.subarray(at, at + batch.n), n: batch.n }};
    const problem = embed(weights, "", bits, D);
    let state = new Float64Array(problem.length), loop = freshLoop(batch.n, D);
    for (let r = 0; r < nRounds; r++) {{
      ({{ next: state, loop }} = cellStep(weights, "", state, problem, batch.n, D, true,
        loop));
      step[r].set(state, at * D);
    }}
  }}
  const gap = (xs, ys) => Math.max(...xs.map((x, r) => Math.max(
    ...x.map((v, k) => Math.abs(v - ys[r][k])))));
  return {{ settled: gap(kept, settled), cellStep: gap(kept, step), skipped,
    right: train.rightByRound(weights, batch, nRounds).map((r) => Array.from(r)) }};
}}"""


def _trained_cell() -> LocalCell:
    """Chapter 2's cell as the build exported it for the page."""
    path = HTML / "_static" / "models" / "ch2_cell.js"
    assert path.exists(), f"{path} is missing: the chapter did not write its model"
    spec = path.read_text().splitlines()[-1].split(" = ", 1)[1].rstrip(";")
    return model_from_spec(json.loads(spec))


@pytest.mark.parametrize("trained", [False, True], ids=["untrained", "trained"])
def test_the_three_copies_of_the_round_agree_with_each_other_and_the_library(
    page, trained
):
    """The same weights and sums through the trainer's forward, its settledForward
    and models.js's cellStep: the same states bit for bit after every round, over
    enough rounds that sums settle (so the shortcuts of the last two run); and which
    sums are right after each round is what the library (float64) reads out."""
    page.set_content("<html><body></body></html>")
    scripts = ("exact_math.js", "train_kit.js", "models.js", MODEL.name, SCRIPT.name)
    for name in scripts:
        page.add_script_tag(content=(SCRIPT.parent / name).read_text())
    model = _trained_cell() if trained else _model(4)
    batch, keep = _batch(300, size=32)
    n_rounds = 40
    got = page.evaluate(ROUNDS_JS, [_weights(model), _js_batch(batch, keep), n_rounds])
    assert got["settled"] == 0 and got["cellStep"] == 0, got
    assert got["skipped"] > 0, "no position settled: the shortcuts were not run"
    with torch.no_grad():
        logits = model.double()(batch.bits.double(), n_rounds).logits  # (R, B, n)
    want = ((logits > 0) == batch.target.bool()).all(dim=-1).int().tolist()
    assert got["right"] == want
    if trained:  # else no sum is right, and the readouts are barely compared
        assert sum(want[-1]) == len(keep), want[-1]
