"""The device path, checked on a CPU-only machine: every measurement runs a model where
its parameters are, brings its results back with ``.cpu()``, and leaves the model's
train/eval mode as it found it. ``fake_accelerator`` stands in for a GPU."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import torch

from fake_accelerator import FAKE, FakeAccelerator, to_fake
from recur import device as device_module
from recur import experiments as ex
from recur import ut_experiments as ux
from recur.device import cpu_threads
from recur.shared import LocalCell
from recur.tasks import random_batch
from recur.train import TrainConfig, evaluate, train
from recur.ut import UniversalTransformer

BATCH = random_batch(6, 5, seed=0)


def _cell():
    torch.manual_seed(0)
    return LocalCell(d_state=4, d_hidden=8)


def _act_ut():
    torch.manual_seed(0)
    return UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1, act=True)


MEASUREMENTS = {
    "evaluate": (_cell, lambda m: evaluate(m, BATCH, 3).correct),
    "accuracy_by_round": (_cell, lambda m: ex.accuracy_by_round(m, BATCH, 3)),
    "learned_readouts": (_cell, lambda m: ex.learned_readouts(m, "011", "001", 3)),
    "length_generalization": (
        _cell,
        lambda m: ex.length_generalization(m, {8: 5}, {"width + 1": 1.0}),
    ),
    "chain_experiment": (
        _cell,
        lambda m: ex.chain_experiment(m, 8, [0, 3], 5, 4).exact,
    ),
    "gradient_by_round": (_cell, lambda m: ex.gradient_by_round(m, BATCH, 3)),
    "rounds_table": (_cell, lambda m: ux.rounds_table({"m": m}, BATCH, 3)),
    "ponder_by_position": (_act_ut, lambda m: ux.ponder_by_position(m, BATCH, 6)),
    "ponder_vs_distance": (_act_ut, lambda m: ux.ponder_vs_distance(m, BATCH, 6)),
    "act_length_table": (_act_ut, lambda m: ux.act_length_table(m, [4, 6], 8, 6)),
}


def _same(a, b) -> None:
    if isinstance(a, tuple | list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, torch.Tensor):
        assert type(b) is torch.Tensor  # came back as a plain CPU tensor
        assert torch.allclose(a.float(), b.float(), atol=1e-6)
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, atol=1e-6)
    else:
        assert a == pytest.approx(b)


def test_the_fake_accelerator_refuses_what_a_gpu_refuses():
    model = to_fake(_cell())
    with FakeAccelerator():
        assert next(model.parameters()).device == FAKE
        with pytest.raises(RuntimeError, match="mixed"):
            model(BATCH.bits, 2)  # inputs left on the CPU
        logits = model(BATCH.bits.to(FAKE), 2).logits.detach()
        with pytest.raises(TypeError, match="numpy"):
            logits.numpy()  # results not brought back
        assert isinstance(logits.cpu().numpy(), np.ndarray)


@pytest.mark.parametrize("name", list(MEASUREMENTS))
@pytest.mark.parametrize("training", [True, False])
def test_measurements_run_on_the_model_device_and_restore_its_mode(name, training):
    make, measure = MEASUREMENTS[name]
    on_cpu = make().train(training)
    expected = measure(copy.deepcopy(on_cpu))
    model = to_fake(make()).train(training)
    with FakeAccelerator():
        got = measure(model)
        assert next(model.parameters()).device == FAKE
    assert model.training == training
    _same(expected, got)


def test_training_runs_on_the_model_device():
    model = to_fake(_act_ut())
    cfg = TrainConfig(
        max_bits=4, n_steps=10, eval_every=5, eval_size=40, lr=1e-3,
        device="meta", progress=False,
    )  # fmt: skip
    with FakeAccelerator():
        result = train(model, cfg)
        assert next(model.parameters()).device == FAKE
    assert result.history["step"].tolist() == [5, 10]
    assert np.isfinite(result.history["loss"]).all()


def test_the_library_uses_one_cpu_thread_unless_told(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    monkeypatch.setattr(device_module, "_TORCH_DEFAULT_THREADS", before)
    assert device_module.auto_threads() == 1
    with cpu_threads(None, torch.device("cpu")):
        assert torch.get_num_threads() == 1
    with cpu_threads(3, torch.device("cpu")):
        assert torch.get_num_threads() == 3
    assert torch.get_num_threads() == before  # restored
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert device_module.auto_threads() is None  # the user's setting is kept
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(device_module, "_TORCH_DEFAULT_THREADS", before + 1)
    assert device_module.auto_threads() is None  # torch.set_num_threads was called
    with pytest.raises(ValueError, match="n_threads"):
        with cpu_threads(0, torch.device("cpu")):
            pass
