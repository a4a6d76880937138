"""The holding recipe in the page's trainer (``_static/cell_model.js`` with its
``HOLDING`` settings) against the library's (``recur.training.holding``), in Chromium:
the same loss and gradients (snapped states, the hold cost over the kept sums), the
same waits, chain sums of the asked length, and planted bugs that go red.

Snapping compares a state with 0, so the float32 library may snap an entry the other
way from float64: the gradients are compared with the library in float64 only."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from recur.core.carry import longest_carry_chain, wait_rounds
from recur.core.tasks import chain_batch, concat_batches, random_batch
from recur.models.cell import HOLD_SLACK, LocalCell, window_loss
from recur.training import holding
from test_browser_train import MODEL, TYPED, _js_batch, _load, _weights

N_ROUNDS = 9
HOLDING_JS = (
    "Object.assign(window.OneMoreRound.train.SETTINGS, "
    "window.OneMoreRound.train.HOLDING);"
)
LOSS_JS = f"""([w, b]) => {{ {TYPED} {HOLDING_JS}
  const {{ loss, gradients }} = window.OneMoreRound.train.lossAndGradients(
    typed(w), batchOf(b), Uint8Array.from(b.keep), {N_ROUNDS});
  return {{ loss, gradients: plain(gradients) }};
}}"""


def _holding_model(seed: int) -> LocalCell:
    torch.manual_seed(seed)
    return LocalCell(**holding.model_options()).double().train()


def _batch(seed: int):
    """Random sums and chain sums, some with no carry under the chain, a few held
    out (keep 0): every kind of wait the recipe trains on."""
    batch = concat_batches(
        random_batch(48, 8, seed=seed, min_bits=1),
        chain_batch(16, 8, 7, seed=seed + 1, kill_share=0.5),
    )
    keep = torch.ones(64)
    keep[::7] = 0
    return batch, keep


def _library(model, batch, keep) -> tuple[float, dict]:
    """recur.training.loop._step's loss (task and hold cost over the kept sums) and
    its gradients, in float64."""
    model.zero_grad()
    out = model(batch.bits.double(), N_ROUNDS)
    task = window_loss(out.logits, batch.target.double(), 1, keep.double())
    hold = (out.aux_loss * keep).sum() / keep.sum()
    (task + hold).backward()
    return float(task + hold), {
        k: p.grad.flatten() for k, p in model.named_parameters()
    }


def _gap(page, model, batch, keep) -> float:
    got = page.evaluate(LOSS_JS, [_weights(model), _js_batch(batch, keep)])
    loss, grads = _library(model, batch, keep)
    largest = max(float(g.abs().max()) for g in grads.values())
    gaps = [abs(got["loss"] - loss)] + [
        float((torch.tensor(got["gradients"][k], dtype=torch.float64) - g).abs().max())
        / largest
        for k, g in grads.items()
    ]
    return max(gaps)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_holding_loss_and_every_gradient_are_the_librarys(page, site, seed):
    _load(page, site)
    batch, keep = _batch(300 + seed)
    model = _holding_model(seed)
    out = model(batch.bits.double(), N_ROUNDS)
    assert float((out.aux_loss * keep).sum()) > 0  # the hold cost is in the loss
    gap = _gap(page, model, batch, keep)
    print(f"seed {seed}: largest gap {gap:.1e}")
    assert gap <= 1e-12


PLANTED = {
    "the hold cost's gradient with the wrong sign": (
        "dRaw[r - 1][k] += (2 * scale * diff) / D;",
        "dRaw[r - 1][k] -= (2 * scale * diff) / D;",
    ),
    "no slack after the news": (
        "if (r >= wi && r <= wi + HOLD_SLACK) continue;",
        "if (r === wi) continue;",
    ),
    "the snap's gradient stopped": (
        "if (hold) for (let k = 0; k < ds.length; k++) ds[k] += hold.dRaw[r - 1][k];",
        "if (hold) for (let k = 0; k < ds.length; k++) ds[k] = hold.dRaw[r - 1][k];",
    ),
    "a wait one round short": (
        "wait[e * n + i] = Math.max(i - Math.max(stop, 0), 1);",
        "wait[e * n + i] = Math.max(i - Math.max(stop, 0) - 1, 1);",
    ),
    "no snapping": ("snapInPlace(snapped, 0, snapped.length);", ""),
}


@pytest.mark.parametrize("bug", PLANTED)
def test_each_planted_bug_goes_red(page, site, bug):
    old, new = PLANTED[bug]
    source = MODEL.read_text()
    assert old in source, f"the planted line is gone: {old}"
    _load(page, site, source.replace(old, new))
    batch, keep = _batch(300)
    gap = _gap(page, _holding_model(0), batch, keep)
    print(f"{bug}: gap {gap:.1e}")
    assert gap > 1e-6, bug


CHAINS_JS = """([size, length, killShare]) => {
  const T = window.OneMoreRound.train;
  const b = T.chainBatch(T.generator(5), size, 8, length, killShare);
  const wait = Array.from(T.waits(b));
  return { a: Array.from(b.a), b: Array.from(b.b), n: b.n, wait };
}"""


@pytest.mark.parametrize("length", [1, 5, 8])
def test_chain_sums_and_waits_are_the_librarys(page, site, length):
    """Rows with a carry at the bottom of the planted run have a longest chain of
    exactly ``length``; those with a kill there, shorter; the waits are the rule's."""
    _load(page, site)
    got = page.evaluate(CHAINS_JS, [200, length, 0.5])
    n = got["n"]
    a = np.array(got["a"]).reshape(-1, n)
    b = np.array(got["b"]).reshape(-1, n)
    assert (a[:, -1] == 0).all() and (b[:, -1] == 0).all()  # the carry out on top
    chains = [
        longest_carry_chain("".join(map(str, x[::-1])), "".join(map(str, y[::-1])))
        for x, y in zip(a, b, strict=True)
    ]
    assert max(chains) == length and min(chains) < length or length == 1
    assert all(c <= length for c in chains)
    assert sum(c == length for c in chains) >= 50  # about half carry at the bottom
    wait = wait_rounds(a, b)[:, :-1]
    assert (np.array(got["wait"]).reshape(-1, n) == wait).all()


def test_the_page_trains_the_librarys_recipe(page, site):
    """The page's HOLDING and hold slack are the library's."""
    _load(page, site)
    got = page.evaluate("window.OneMoreRound.train.HOLDING")
    assert got == holding.page_settings()
    source = MODEL.read_text()
    assert f"const HOLD_SLACK = {HOLD_SLACK};" in source


SNAPPED_JS = """([spec, pairs]) => pairs.map(([a, b]) => {
  const rounds = OneMoreRound.cellReadouts(spec, a, b, 2 * (a.length + 1)).rounds;
  return rounds.map((bits) => Array.from(bits).reverse().join(""));
})"""


@pytest.mark.parametrize("snap", [True, False])
def test_the_explorers_copy_of_a_snapped_cell_is_the_librarys(page, site, snap):
    """models.js's cellStep with the spec's ``snap`` (the explorer of a holding cell):
    every round's readout equals the library's, on random and long-chain sums whose
    cell snaps many entries; without ``snap`` in the spec, the same weights differ."""
    from recur.models.running import run_model
    from recur.views.export import model_spec

    page.set_content("<html><body></body></html>")
    for name in ("exact_math.js", "carry.js", "models.js"):  # sources, not a build
        page.add_script_tag(content=(MODEL.parent / name).read_text())
    torch.manual_seed(7)
    model = LocalCell(snap=True).eval()
    spec = model_spec(model)
    spec["options"]["snap"] = snap
    batch = concat_batches(
        random_batch(20, 16, seed=3), chain_batch(10, 16, 16, seed=4)
    )
    bits = batch.bits.numpy().astype(int)[:, :-1]
    pairs = [
        ("".join(map(str, x[::-1, 0])), "".join(map(str, x[::-1, 1]))) for x in bits
    ]
    got = page.evaluate(SNAPPED_JS, [spec, pairs])
    logits = run_model(model, batch.bits, 34).logits  # (R, B, n + 1)
    want = [
        [
            "".join("1" if v > 0 else "0" for v in row[::-1])
            for row in logits[:, k].tolist()
        ]
        for k in range(len(pairs))
    ]
    assert (got == want) == snap
