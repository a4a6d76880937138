"""Chapter 6's ACT Universal Transformer as the reader's browser trains it
(``_static/act_model.js``) against the library, in Chromium: on the same weights,
batch and random draws (the pauses and the halting noise), the same loss and every
gradient; fifty Adam steps that track PyTorch's; the measuring forward pass (steps,
halting, readout, held-back carries, rings) equal to ``run_model``'s; planted bugs
that go red.

Tolerance. The page computes in float64. Against PyTorch in float64 on the same
numbers, the loss and every gradient agree to 1e-10 of the largest gradient: only the
order of the sums differs (a matrix product's, a layer norm's), which moves the last
few of float64's 16 digits, and ACT's loop multiplies such differences by at most a
few hundred over 16 rounds."""

from __future__ import annotations

import pytest
import torch

from conftest import ROOT
from recur.core.tasks import chain_batch, concat_batches, random_batch
from recur.models.act import ACT_RAMP_STEPS
from recur.models.cell import window_loss
from recur.models.ut import UniversalTransformer
from recur.training.config import TrainConfig, aux_scale, step_size
from recur.training.ut_recipe import BOOK_ACT
from test_browser_train import _js_batch  # the batch as the page's trainers take it

SCRIPT = ROOT / "book" / "_extra" / "_static" / "act_model.js"
CAP = BOOK_ACT.n_rounds  # 16
COSINE = TrainConfig(
    lr=BOOK_ACT.lr, lr_decay=BOOK_ACT.lr_decay, n_steps=BOOK_ACT.n_steps
)


SCRIPTS = ("exact_math.js", "train_kit.js", "act_tape.js", "act_model.js")  # in order


def _load(page, planted: dict[str, str] | None = None) -> None:
    """The model's scripts in a blank page; ``planted``: a file's planted copy."""
    page.set_content("<html><body></body></html>")
    for name in SCRIPTS:
        text = (planted or {}).get(name) or (SCRIPT.parent / name).read_text()
        page.add_script_tag(content=text)


def _model(seed: int) -> UniversalTransformer:
    """A model as training leaves it: the weights that start at a constant (the
    relative bias at 0, the layer norms at 1 and 0) moved off it, so that a bug in
    reading them shows."""
    torch.manual_seed(seed)
    model = UniversalTransformer(BOOK_ACT.model).double().train()
    with torch.no_grad():
        for name, weight in model.named_parameters():
            if name == "relative" or "norm" in name:
                weight.add_(0.3 * torch.randn_like(weight))
    return model


def _batch(seed: int, size: int = 64):
    """Training sums as the procedure draws them: random ones of 1 to 8 bits and, a
    quarter, long carry chains, half of them ending in a kill; a few held out."""
    randoms = random_batch(size - size // 4, 8, seed=seed, min_bits=1)
    chains = chain_batch(size // 4, 8, 1 + seed % 8, seed=seed, kill_share=0.5)
    batch = concat_batches(randoms, chains)
    keep = torch.ones(size)
    keep[::9] = 0
    return batch, keep


def _draws(seed: int, batch) -> tuple[torch.Tensor, torch.Tensor]:
    """Each round's pauses (chance 1/4) and standard normals, (CAP, B, N)."""
    gen = torch.Generator().manual_seed(seed)
    shape = (CAP, len(batch.bits), batch.bits.shape[1] + 1)  # with the floor bit
    paused = torch.rand(shape, generator=gen) < BOOK_ACT.model.pause
    return paused, torch.randn(shape, generator=gen, dtype=torch.float64)


def _library_loss(model, batch, keep, draws, aux_weight, monkeypatch):
    """The loss of one training step with the given draws in place of torch's."""
    paused, noise = draws
    rounds = {"rand": 0, "randn": 0}

    def rand(*shape, **kwargs):  # ut.step's pause draw: 0 pauses, 1 does not
        r = rounds["rand"]
        rounds["rand"] += 1
        return torch.where(paused[r], 0.0, 1.0).double()

    def randn_like(x):  # HaltingUnit's noise
        r = rounds["randn"]
        rounds["randn"] += 1
        return noise[r].to(x.dtype)

    monkeypatch.setattr(torch, "rand", rand)
    monkeypatch.setattr(torch, "randn_like", randn_like)
    try:
        out = model(batch.bits.double(), CAP)
    finally:
        monkeypatch.undo()
    task = window_loss(out.logits, batch.target.double(), 1, keep.double())
    return task + aux_weight * out.aux_loss


def _weights(model) -> dict:
    return {k: v.double().flatten().tolist() for k, v in model.state_dict().items()}


def _js_draws(draws) -> dict:
    paused, noise = draws
    return {
        "paused": paused.flatten(1).int().tolist(),
        "noise": noise.flatten(1).tolist(),
    }


TYPED = """
const act = window.OneMoreRound.act;
const typed = (w) => Object.fromEntries(
  Object.entries(w).map(([k, v]) => [k, Float64Array.from(v)]));
const plain = (w) => Object.fromEntries(
  Object.entries(w).map(([k, v]) => [k, Array.from(v)]));
const batchOf = (b) => ({ a: Uint8Array.from(b.a), b: Uint8Array.from(b.b),
  target: Uint8Array.from(b.target), size: b.size, n: b.n });
const drawsOf = (d) => ({ paused: (r) => Uint8Array.from(d.paused[r]),
  noise: (r) => Float64Array.from(d.noise[r]) });
"""

LOSS_JS = f"""([w, b, d, auxWeight, cap]) => {{ {TYPED}
  const {{ loss, gradients }} = act.lossAndGradients(typed(w), batchOf(b),
    Uint8Array.from(b.keep), {{ auxWeight, draws: drawsOf(d), cap }});
  return {{ loss, gradients: plain(gradients) }};
}}"""


def _gaps(page, model, batch, keep, draws, aux_weight, monkeypatch) -> dict:
    """The loss's gap and each gradient's largest gap over the largest gradient."""
    got = page.evaluate(
        LOSS_JS,
        [_weights(model), _js_batch(batch, keep), _js_draws(draws), aux_weight, CAP],
    )
    model.zero_grad()
    loss = _library_loss(model, batch, keep, draws, aux_weight, monkeypatch)
    loss.backward()
    grads = {k: p.grad.flatten() for k, p in model.named_parameters()}
    largest = max(float(g.abs().max()) for g in grads.values())
    gaps = {"loss": abs(got["loss"] - float(loss)) / abs(float(loss))}
    for name, g in grads.items():
        mine = torch.tensor(got["gradients"][name], dtype=torch.float64)
        gaps[name] = float((mine - g).abs().max()) / largest
    return gaps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_page_computes_the_library_loss_and_every_gradient(page, monkeypatch, seed):
    _load(page)
    batch, keep = _batch(300 + seed)
    aux_weight = [0.0, 0.4, 1.0][seed]  # the ponder cost's ramp: before, during, after
    gaps = _gaps(
        page, _model(seed), batch, keep, _draws(seed, batch), aux_weight, monkeypatch
    )
    print(f"seed {seed}: largest gap {max(gaps.values()):.2e}")
    assert max(gaps.values()) <= 1e-10, gaps


ADAM_JS = f"""([w, batches, draws, cap, lr, nSteps, ramp]) => {{ {TYPED}
  const weights = typed(w), adam = {{ step: 0, m: {{}}, v: {{}} }}, losses = [];
  batches.forEach((b, k) => {{
    const step = k + 1;
    const {{ loss, gradients }} = act.lossAndGradients(weights, batchOf(b),
      Uint8Array.from(b.keep),
      {{ auxWeight: act.auxScale(step, ramp), draws: drawsOf(draws[k]), cap }});
    act.clipGradients(gradients, 1.0);
    act.adamStep(weights, gradients, adam, act.stepSize(step, lr, nSteps));
    losses.push(loss);
  }});
  return {{ losses, w: plain(weights) }};
}}"""


def _adam_gaps(page, model, n_steps: int, monkeypatch, source=None) -> dict:
    """Losses and final weights after ``n_steps`` steps of the procedure's optimiser
    (clipping at 1, Adam, the cosine step size over 1,200 steps, the ponder cost's
    ramp over its first 500), in the page and in PyTorch from the same start."""
    batches = [_batch(400 + k, size=16) for k in range(n_steps)]  # small: quick
    draws = [_draws(500 + k, b) for k, (b, _) in enumerate(batches)]
    got = page.evaluate(
        ADAM_JS,
        [
            _weights(model),
            [_js_batch(b, keep) for b, keep in batches],
            [_js_draws(d) for d in draws],
            CAP,
            BOOK_ACT.lr,
            BOOK_ACT.n_steps,
            ACT_RAMP_STEPS,
        ],
    )
    opt = torch.optim.Adam(model.parameters(), lr=BOOK_ACT.lr)
    losses = []
    for k, ((batch, keep), d) in enumerate(zip(batches, draws, strict=True)):
        step = k + 1
        for group in opt.param_groups:
            group["lr"] = step_size(step, COSINE)
        weight = aux_scale(step, ACT_RAMP_STEPS)
        loss = _library_loss(model, batch, keep, d, weight, monkeypatch)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
    loss_gap = max(abs(a - b) for a, b in zip(got["losses"], losses, strict=True))
    weight_gap = max(
        float(
            (torch.tensor(got["w"][k], dtype=torch.float64) - v.flatten()).abs().max()
        )
        for k, v in model.state_dict().items()
    )
    return {"loss": loss_gap, "weights": weight_gap}


@pytest.fixture
def fresh_model():
    return _model(7)


def test_fifty_adam_steps_track_pytorch(page, monkeypatch, fresh_model):
    _load(page)
    gaps = _adam_gaps(page, fresh_model, 50, monkeypatch)
    print(f"fifty steps: {gaps}")
    assert gaps["loss"] <= 1e-9 and gaps["weights"] <= 1e-9, gaps


# Bugs a mirror of the model could have, each planted in a copy of the script that
# holds its line (the model or its tape): every one must move the loss or a gradient
# past the tolerance.
PLANTED = {
    "the two-slot softmax": ("w0 = e0 / (e0 + e1);", "w0 = e1 / (e0 + e1);"),
    "the relative bias's offset": (
        "below / scale + (bias ? bias[h * OFFSETS + M + 1] : 0);",
        "below / scale + (bias ? bias[h * OFFSETS + M - 1] : 0);",
    ),
    "the halting remainder": (
        "const rem = where(tape, halts, f32(oneMinus(tape, before)), null);",
        "const rem = where(tape, halts, h, null);",
    ),
    "the ponder cost's gradient": (
        "gr[k] += (g[0] * auxWeight * tau) / count;",
        "gr[k] += (g[0] * auxWeight) / count;",
    ),
    "the pause mask": ("(paused && paused[row])", "(paused && !paused[row])"),
    "the floor position": (
        "const floor = options.floor && !ring ? 1 : 0,",
        "const floor = 0 && !ring ? 1 : 0,",
    ),
    "layer norm's backward": ("- xhat[i * cols + k] * sumGX)", ")"),
    "input injection": (
        "return opt.inject ? add(tape, x, problem) : x;",
        "return opt.inject && r === 0 ? add(tape, x, problem) : x;",
    ),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_each_planted_bug_goes_red(page, monkeypatch, bug):
    old, new = PLANTED[bug]
    texts = {name: (SCRIPT.parent / name).read_text() for name in SCRIPTS}
    holders = [name for name, text in texts.items() if text.count(old) == 1]
    assert len(holders) == 1 and sum(t.count(old) for t in texts.values()) == 1, (
        f"the plant for {bug!r} no longer fits the scripts"
    )
    _load(page, {holders[0]: texts[holders[0]].replace(old, new)})
    batch, keep = _batch(301)
    try:
        gaps = _gaps(page, _model(1), batch, keep, _draws(1, batch), 1.0, monkeypatch)
    except Exception as error:  # a plant may break the page outright: red too
        print(f"{bug}: {error}")
        return
    print(f"{bug}: largest gap {max(gaps.values()):.2e}")
    assert max(gaps.values()) > 1e-6, (bug, gaps)


MEASURE_JS = f"""([w, b, cap, heldUntil, ring]) => {{ {TYPED}
  const run = act.actRun(typed(w), batchOf(b), cap,
    {{ heldUntil: heldUntil && Int32Array.from(heldUntil), ring }});
  return {{ logits: Array.from(run.logits), steps: Array.from(run.steps),
    halting: run.halting.map((h) => Array.from(h)) }};
}}"""


def _book_model() -> UniversalTransformer:
    """The page's trained model (``_static/models/ch6_act.js``), in float64."""
    import json

    from recur.views.export import model_from_spec

    path = ROOT / "book" / "_extra" / "_static" / "models" / "ch6_act.js"
    if not path.exists():
        pytest.fail("the page's models are missing: run `make book` first")
    text = path.read_text().splitlines()[-1].split(" = ", 1)[1].rstrip(";")
    return model_from_spec(json.loads(text)).double()


@pytest.mark.parametrize("case", ["plain", "held back", "ring"])
def test_measuring_gives_the_library_steps_halting_and_readout(page, case):
    from recur.core.tasks import long_chain_batch
    from recur.models.running import run_model

    _load(page)
    model = _book_model()
    batch = long_chain_batch(60, 8, seed=9, kill_share=0.5)
    bits, cap, options, held = batch.bits, 18, {}, None
    if case == "held back":  # each sum's positions held back 0 to 30 rounds
        until = torch.arange(60 * 10).reshape(60, 10) % 31
        until[:, 0] = 0  # the floor bit is never held
        options, held, cap = {"held_until": until}, until.flatten().tolist(), 48
    if case == "ring":  # random pairs: in a ring of propagating ones all look alike
        bits, cap, options = random_batch(60, 8, seed=9).bits, 64, {"ring": True}
    out = run_model(model, bits.double(), cap, **options)
    js_batch = {
        "a": bits[..., 0].int().flatten().tolist(),
        "b": bits[..., 1].int().flatten().tolist(),
        "target": [0] * bits[..., 0].numel(),
        "size": len(bits),
        "n": bits.shape[1],
    }
    got = page.evaluate(
        MEASURE_JS, [_weights(model), js_batch, cap, held, case == "ring"]
    )
    assert got["steps"] == out.steps.flatten().tolist()
    halting = torch.tensor(got["halting"], dtype=torch.float64)
    assert halting.shape == out.halting.flatten(1).shape
    assert float((halting - out.halting.flatten(1)).abs().max()) <= 1e-12
    logits = torch.tensor(got["logits"], dtype=torch.float64)
    assert float((logits - out.logits[-1].flatten()).abs().max()) <= 1e-10
