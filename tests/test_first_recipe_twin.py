"""Chapter 6's first recipe in the page: _static/models_act.js runs a UT with the
sinusoidal position and round signal (UT Eqs. 6-7) as well as the chapter's model, on
the trainer's forward pass (act_model.js). Here
Node runs models_act.js's ``actForward`` on the weights the page would get
(recur.views.export.model_spec) against the library on the same weights, in float64,
without a built book; tests/test_browser_models.py checks the trained models in
Chromium. Sums are drawn with seeds no chapter or study uses (20,400,000 + ...)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from recur.core.tasks import long_chain_batch, random_batch
from recur.models.halting import ActHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer
from recur.training.ut_recipe import BOOK_ACT, FIRST_ACT
from recur.views.export import model_from_spec, model_spec

ACT = ActHalting()  # ACT halting with its defaults

STATIC = Path(__file__).resolve().parents[1] / "book/_extra/_static"
# in the page's order
SCRIPTS = [
    str(STATIC / name)
    for name in (
        "carry.js",
        "exact_math.js",
        "train_kit.js",
        "models.js",
        "act_tape.js",
        "act_model.js",
        "models_act.js",
    )
]
NODE = shutil.which("node")

RUN = """
const fs = require("fs"), vm = require("vm");
const [spec, pairs] = JSON.parse(fs.readFileSync(0, "utf8"));
const context = { window: {}, Math, Float64Array, Float32Array, Int32Array, Uint8Array,
  Array, Number, Object, Error, document: { addEventListener() {} },
  atob: (s) => Buffer.from(s, "base64").toString("binary") };
vm.createContext(context);
for (const path of process.argv.slice(1)) {
  vm.runInContext(fs.readFileSync(path, "utf8"), context);
}
const out = pairs.map(([a, b]) => {
  const r = context.window.OneMoreRound.actForward(spec, a, b, 2 * (a.length + 1));
  return [Array.from(r.readout).reverse().join(""), Array.from(r.steps),
          r.halting.map((h) => Array.from(h, (v) => (isNaN(v) ? null : v)))];
});
process.stdout.write(JSON.stringify(out));
"""


def _model(options: dict, seed: int) -> UniversalTransformer:
    torch.manual_seed(seed)
    model = UniversalTransformer(window=1, halting=ACT, **options).eval()
    with torch.no_grad():  # several rounds before halting, and a bias that matters
        model.halting.linear.bias.fill_(-2.5)
        if model.relative is not None:
            model.relative.normal_()
    return model


def _in_node(spec: dict, pairs: list) -> list:
    done = subprocess.run(
        [NODE, "-e", RUN, *SCRIPTS],
        input=json.dumps([spec, pairs]),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


def _pairs(bits: torch.Tensor) -> list:
    x = bits.numpy().astype(int)[:, :-1]  # (B, n, 2), LSB first
    return [("".join(map(str, s[::-1, 0])), "".join(map(str, s[::-1, 1]))) for s in x]


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
@pytest.mark.parametrize(
    "options",
    [FIRST_ACT.model.__dict__, BOOK_ACT.model.__dict__],
    ids=["first recipe", "chapter's model"],
)
def test_the_page_runs_the_model_as_the_library_does(options):
    options = {
        k: v
        for k, v in options.items()
        if k not in ("window", "halting", "d_model", "n_heads", "d_ff")
    }
    model = _model(options, seed=4)
    spec = json.loads(json.dumps(model_spec(model)))
    wide = model_from_spec(spec).double()
    for n in (6, 12):
        bits = torch.cat(
            [
                random_batch(6, n, seed=20_400_000 + n).bits,
                long_chain_batch(6, n, seed=20_410_000 + n).bits,
            ]
        )
        got = _in_node(spec, _pairs(bits))
        want = run_model(wide, bits.double(), 2 * (n + 1))
        readouts = [
            "".join("1" if v > 0 else "0" for v in row[::-1])
            for row in want.logits[0].tolist()
        ]
        assert [g[0] for g in got] == readouts, n
        assert [g[1] for g in got] == want.steps.int().tolist(), n
        gap = 0.0
        for k, (_, _, halting) in enumerate(got):
            page = np.array(halting, dtype=float)  # (rounds, n + 1), NaN once halted
            lib = want.halting[: len(page), k].numpy()
            ran = ~np.isnan(page)
            gap = max(gap, float(np.abs(page[ran] - lib[ran]).max(initial=0.0)))
        assert gap <= 1e-5, (n, gap)
        assert max(max(s) for _, s, _ in got) >= 3  # rounds enough to test the signal


WRITTEN = STATIC / "models"  # where the chapter writes its models (gitignored)


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
@pytest.mark.parametrize("name", ["ch6_first", "ch6_act"])
def test_the_trained_models_run_in_the_page_as_in_the_library(name):
    """The models Chapter 6 trained and wrote, once the chapter has run: readout and
    steps equal to the library's in float32 and float64, on random and long-chain
    sums up to 64 bits."""
    path = WRITTEN / f"{name}.js"
    if not path.exists():
        pytest.skip(f"{path.name} is written when Chapter 6 runs")
    spec = json.loads(path.read_text().splitlines()[-1].split(" = ", 1)[1].rstrip(";"))
    narrow, wide = model_from_spec(spec), model_from_spec(spec).double()
    for n in (8, 16, 64):
        bits = torch.cat(
            [
                random_batch(20, n, seed=20_420_000 + n).bits,
                long_chain_batch(20, n, seed=20_430_000 + n).bits,
            ]
        )
        got = _in_node(spec, _pairs(bits))
        for model, kind in ((narrow, torch.float32), (wide, torch.float64)):
            want = run_model(model, bits.to(kind), 2 * (n + 1))
            readouts = [
                "".join("1" if v > 0 else "0" for v in row[::-1])
                for row in want.logits[0].tolist()
            ]
            assert [g[0] for g in got] == readouts, (name, n, kind)
            assert [g[1] for g in got] == want.steps.int().tolist(), (name, n, kind)
