"""The trained models' trip to the static page (recur.views.export): the bytes of a
weight, the round trip spec -> model, and the models the page cannot run refused."""

from __future__ import annotations

import json

import pytest
import torch

from recur.core.tasks import long_chain_batch, random_batch
from recur.models.cell import LocalCell
from recur.models.deq import EquilibriumCell
from recur.models.halting import ActHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer
from recur.training.ut_recipe import BOOK_ACT, FIRST_ACT
from recur.views.export import _packed, model_from_spec, model_spec, write_model_script

ACT = ActHalting()  # ACT halting with its defaults


def test_a_weight_travels_as_little_endian_float32():
    # by hand: 1.0 is 0x3f800000 and -2.0 is 0xc0000000; little-endian bytes
    # 00 00 80 3f 00 00 00 c0, which base64 writes AACAPwAAAMA=
    assert _packed(torch.tensor([1.0, -2.0])) == {"shape": [2], "data": "AACAPwAAAMA="}


def _chapter6_model(seed: int) -> UniversalTransformer:
    torch.manual_seed(seed)
    model = UniversalTransformer(BOOK_ACT.model)
    with torch.no_grad():  # untrained weights, but not the zeros the bias starts at
        model.relative.normal_()
    return model.eval()


MODELS = {
    "cell": lambda: LocalCell(),
    "deq": lambda: EquilibriumCell(),
    "act_ut": lambda: _chapter6_model(3),
    "act_ut_first": lambda: UniversalTransformer(FIRST_ACT.model),  # sinusoid, no floor
}


@pytest.mark.parametrize("kind", MODELS)
def test_a_spec_rebuilds_the_same_model(kind):
    """Every weight comes back bit for bit, and the rebuilt model computes the same
    outputs (the floor bit, injection and window included for the UT)."""
    torch.manual_seed(1)
    model = MODELS[kind]().eval()
    spec = json.loads(json.dumps(model_spec(model)))  # as the page would hold it
    assert spec["kind"] == kind.removesuffix("_first")
    rebuilt = model_from_spec(spec)
    for name, value in model.state_dict().items():
        assert torch.equal(rebuilt.state_dict()[name], value), name
    bits = torch.cat([random_batch(20, 12, seed=2).bits, long_chain_batch(20, 12).bits])
    want, got = run_model(model, bits, 26), run_model(rebuilt, bits, 26)
    assert torch.equal(want.logits, got.logits)
    if kind.startswith("act_ut"):
        assert torch.equal(want.steps, got.steps)


@pytest.mark.parametrize(
    "model, words",
    [
        (UniversalTransformer(window=1, position="relative"), "halts by ACT"),
        (
            UniversalTransformer(halting=ACT, position="relative", round_signal=False),
            "window of 1; this model has window=None",
        ),
        (
            UniversalTransformer(halting=ACT, window=2, position="relative"),
            "window of 1; this model has window=2",
        ),
        (EquilibriumCell(method="anderson"), "iterates"),
        (torch.nn.Linear(2, 2), "no page version of Linear"),
    ],
)
def test_a_model_the_page_cannot_run_is_refused(model, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        model_spec(model)


def test_the_script_registers_the_spec_under_its_name(tmp_path):
    path = write_model_script(LocalCell(), "ch2_cell", tmp_path / "models")
    lines = path.read_text().splitlines()
    assert path.name == "ch2_cell.js"
    assert lines[1] == "window.OneMoreRound = window.OneMoreRound || {models: {}};"
    head, spec = lines[2].split(" = ", 1)
    assert head == 'window.OneMoreRound.models["ch2_cell"]'
    assert json.loads(spec.rstrip(";"))["kind"] == "cell"
    with pytest.raises(ValueError, match="letters, digits and _"):
        write_model_script(LocalCell(), "../x", tmp_path)
