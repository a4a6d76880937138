"""The device path, checked on a CPU-only machine: every measurement runs a model where
its parameters are, brings its results back with ``.cpu()``, and leaves the model's
train/eval mode as it found it. ``fake_accelerator`` stands in for a GPU."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import pkgutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import recur
from fake_accelerator import FAKE, FakeAccelerator, to_fake
from recur.chapters import (
    ch2_shared_update,
    ch2_skeptic,
    ch3_input_injection,
    ch4_universal_transformer,
    ch6_act_ut,
    ch6_check,
    ch6_hardest,
    ch6_measures,
    ch7_costs,
    ch7_fixed_points,
)
from recur.chapters.ch7_fixed_points import state_changes
from recur.core import device
from recur.core.device import cpu_threads
from recur.core.tasks import random_batch
from recur.models import running
from recur.models.attention import UTBlock
from recur.models.cell import LocalCell
from recur.models.deq import EquilibriumCell
from recur.models.halting import ActHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer, one_round
from recur.studies import live
from recur.training import checked, holds
from recur.training.config import TrainConfig
from recur.training.evaluate import evaluate
from recur.training.loop import seconds_per_step, train
from recur.views.explorers import act_explorer, deq_explorer, learned_explorer
from recur.views.export import model_spec, write_model_script

ACT = ActHalting()  # ACT halting with its defaults

BATCH = random_batch(6, 5, seed=0)


def _cell():
    torch.manual_seed(0)
    return LocalCell(d_state=4, d_hidden=8)


def _act_ut():
    torch.manual_seed(0)
    return UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1, halting=ACT)


def _ring_ut():
    """An ACT UT that can run as a ring (no absolute position signal)."""
    torch.manual_seed(0)
    return UniversalTransformer(
        d_model=8, n_heads=2, d_ff=16, window=1, halting=ACT, position="relative"
    )


def _deq():
    torch.manual_seed(0)
    return EquilibriumCell(d_state=4, d_hidden=8, tol=1e-2)


def _block():
    torch.manual_seed(0)
    return UTBlock(8, 2, 16)


def _plain_ut():
    torch.manual_seed(0)
    return UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1)


def _one_round(model):
    """Chapter 4's teaching round on a state made where the model lives."""
    device = next(model.parameters()).device
    state = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(0))
    return one_round(model, state.to(device), 1).detach().cpu()


def _ut_round(block):
    x = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(0))
    device = next(block.parameters()).device
    return ch7_costs.ut_round(block, x.to(device), "banded local").detach().cpu()


def _held_run(model):
    """The model with positions held (``held_until``, moved by ``run_model``)."""
    until = torch.zeros(BATCH.bits.shape[:2], dtype=torch.long)  # (B, n)
    until[:, 2] = 3
    return run_model(model, BATCH.bits, 6, held_until=until).logits


def _ring_run(model):
    """The model's outputs with its positions in a ring."""
    return run_model(model, BATCH.bits, 6, ring=True).logits


ROW = {"step": 5, "exact": 1.0, "pairs": 10_000}


MEASUREMENTS = {
    "evaluate": (_cell, lambda m: evaluate(m, BATCH, 3).correct),
    "accuracy_by_round": (
        _cell,
        lambda m: ch2_shared_update.accuracy_by_round(m, BATCH, 3),
    ),
    "learned_readouts": (
        _cell,
        lambda m: running.learned_readouts(m, "011", "001", 3),
    ),
    "length_generalization": (
        _cell,
        lambda m: ch2_shared_update.length_generalization(
            m, {8: 5}, {"width + 1": 1.0}
        ),
    ),
    "chain_experiment": (
        _cell,
        lambda m: ch2_shared_update.chain_experiment(m, 8, [0, 3], 5, 4).exact,
    ),
    "gradient_by_round": (
        _cell,
        lambda m: ch3_input_injection.gradient_by_round(m, BATCH, 3),
    ),
    "stays_right": (_cell, lambda m: checked.stays_right(m, BATCH, 2, 4)),
    "stays_right_check": (
        _cell,
        lambda m: ch2_shared_update.stays_right_check(
            m, BATCH, TrainConfig(n_rounds=2)
        ),
    ),
    "right_with_cap": (_deq, lambda m: ch7_fixed_points.right_with_cap(m, BATCH)),
    "rounds_table": (
        _cell,
        lambda m: ch4_universal_transformer.rounds_table({"m": m}, BATCH, 3),
    ),
    "ponder_by_position": (
        _act_ut,
        lambda m: ch6_measures.ponder_by_position(m, BATCH, 6),
    ),
    "ponder_vs_distance": (
        _act_ut,
        lambda m: ch6_measures.ponder_vs_distance(m, BATCH, 6),
    ),
    "act_length_table": (
        _act_ut,
        lambda m: ch6_measures.act_length_table(
            m, [4, 6], 8, 6, long_chains=4, kill_waits=True
        ),
    ),
    "act_check": (_ring_ut, lambda m: ch6_check.act_check(m, ROW, seed=0).budget_used),
    "delayed_right": (_act_ut, lambda m: ch6_check.delayed_right(m, BATCH, 3)),
    "forward with held_until": (_act_ut, _held_run),
    "halting_in_a_ring": (_ring_ut, lambda m: ch6_check.halting_in_a_ring(m, 4, 6)),
    "forward with ring": (_ring_ut, _ring_run),
    "budget_spent": (
        _act_ut,
        lambda m: ch6_check.budget_spent(run_model(m, BATCH.bits, 6), BATCH),
    ),
    "halting_while_waiting": (
        _act_ut,
        lambda m: ch6_measures.halting_while_waiting(m, BATCH, 6),
    ),
    "run_model": (_act_ut, lambda m: run_model(m, BATCH.bits, 4).logits),
    "state_changes": (_cell, lambda m: state_changes(m, BATCH.bits, 4)),
    "state_changes (UT)": (_act_ut, lambda m: state_changes(m, BATCH.bits, 4)),
    "by_width": (_deq, lambda m: ch7_fixed_points.by_width(m, _cell(), {4: 5})),
    "iterations_by_chain": (
        _deq,
        lambda m: ch7_fixed_points.iterations_by_chain(m, 6, [2], 4),
    ),
    "training_memory": (_deq, lambda m: ch7_fixed_points.training_memory(m, 4, 3, [2])),
    "running_example_table": (
        _cell,
        lambda m: ch2_shared_update.running_example_table(
            {"m": m}, "0111", "0001", [1, 2]
        ),
    ),
    "exact_by_round_and_width": (
        _cell,
        lambda m: ch2_shared_update.exact_by_round_and_width(m, {4: 5}),
    ),
    "exact_by_width": (
        _cell,
        lambda m: ch2_shared_update.exact_by_width(
            m, [4], 5, lambda n: n + 1, long_chains=3
        ),
    ),
    "exact_at_8_bits": (
        _cell,
        lambda m: live.exact_at_8_bits(live.CHAPTER2_CELL, m, seed=0),
    ),
    "ut_round": (_block, _ut_round),
    "one_round": (_plain_ut, _one_round),
    "hardest_table": (_act_ut, lambda m: ch6_hardest.hardest_table(m, 4, 10)),
    "hardest_columns": (
        _act_ut,
        lambda m: ch6_hardest.hardest_columns(m, 4, 10, news=True),
    ),
    "readouts_by_round": (
        _act_ut,
        lambda m: ch6_hardest.readouts_by_round(m, BATCH.bits, 6),
    ),
    "hardest_summary": (_act_ut, lambda m: ch6_hardest.hardest_summary(m, [4, 5])),
    "chains_and_waits": (
        _act_ut,
        lambda m: ch6_measures.chains_and_waits(m, 4, n_sums=4, seed=0),
    ),
    "solver_walk": (
        _deq,
        lambda m: running.solver_walk(m, "0111", "0001", 4),
    ),
    "attention_costs": (
        _block,
        lambda m: ch7_costs.attention_costs(m, [8], repeats=1)[["n", "attention"]],
    ),
    "learned_explorer": (_cell, lambda m: repr(learned_explorer(m, "011", "001"))),
    "act_explorer": (
        _act_ut,
        lambda m: act_explorer(m, "0111", "0001").children[-2].value,
    ),
    "deq_explorer": (
        _deq,
        lambda m: deq_explorer(m, "0111", "0001").children[-2].value,
    ),
    "model_spec": (_cell, lambda m: json.dumps(model_spec(m))),
    "walk": (_cell, lambda m: ch2_skeptic.walk(m, "a" * 15 + "g", 4).right),
    "fade_walks": (
        _cell,
        lambda m: ch2_skeptic.fade_walks({"c": m}, 16, 3)["1 + 111…10, c"].change,
    ),
    "act_holds": (_act_ut, lambda m: ch6_hardest.act_holds(m, BATCH).settled),
    "cell_holds": (_cell, lambda m: holds.cell_holds(m, BATCH, hold_rounds=2).passed),
    "deq_holds": (
        _deq,
        lambda m: holds.deq_holds(m, BATCH, cap=6, hold_rounds=2).read_round,
    ),
    "write_model_script": (
        _cell,
        lambda m: write_model_script(m, "m", Path(tempfile.mkdtemp())).read_text(),
    ),
}

# Public functions that take a model but need no device case here, and why. Every
# other one must have a MEASUREMENTS entry (test_every_function_taking_a_model_...).
NO_DEVICE_CASE = {
    "cell.n_parameters": "counts parameters, computes nothing",
    "ch4_universal_transformer.curve_words": "reads two curves (pandas), no model",
    "ch7_fixed_points.collect_solves": "keeps solves; by_width, iterations_by_chain",
    "running.model_device": "reads .device; every case above goes through it",
    "running.eval_mode": "switches the mode; every case above checks it is restored",
    "loop.train": "test_training_runs_on_the_model_device; the whole test session",
    "loop.seconds_per_step": "a timing: test_step_timing_runs_on_the_model_device",
    "checked.checked_training": "test_checked_training_builds_each_model_on_...",
    "explorers.static_learned_explorer": "an element, and write_model_script's file",
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


MODEL_NAMES = {"model", "models", "deq", "unrolled", "cell", "block"}
MODEL_TYPES = ("Module", "Cell", "Transformer", "UTBlock")


def _takes_a_model(fn) -> bool:
    params = inspect.signature(fn).parameters.values()
    return any(
        p.name in MODEL_NAMES or any(t in str(p.annotation) for t in MODEL_TYPES)
        for p in params
    )


def functions_taking_a_model() -> list[str]:
    """``module.function`` for every public function of ``recur`` that takes a model
    (by parameter name or annotation)."""
    found = []
    for info in pkgutil.walk_packages(recur.__path__, "recur."):
        module = importlib.import_module(info.name)
        short = info.name.rsplit(".", 1)[-1]  # the module's own name, as keys use it
        for name, fn in vars(module).items():
            public = not name.startswith("_") and inspect.isfunction(fn)
            if public and fn.__module__ == module.__name__ and _takes_a_model(fn):
                found.append(f"{short}.{name}")
    return found


def test_every_function_taking_a_model_has_a_device_case():
    """A new measurement function is caught without anyone adding it to a list: it
    takes a model, so it needs a case in MEASUREMENTS or a reason in NO_DEVICE_CASE."""
    covered = {name.split(" ")[0] for name in MEASUREMENTS} | set(NO_DEVICE_CASE)
    missing = [
        f
        for f in functions_taking_a_model()
        if f.split(".")[1] not in covered and f not in covered
    ]
    assert functions_taking_a_model(), "the scan found nothing: it is broken"
    assert not missing, f"no device case for {missing}: add one to MEASUREMENTS"


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


def test_training_on_the_running_sums_only_runs_on_the_model_device():
    """``train_rows_only``: the rows still running, their pauses and their states are
    picked and put back on the device (``index_copy``), forward and backward."""
    torch.manual_seed(0)
    model = UniversalTransformer(
        d_model=8, n_heads=2, d_ff=16, window=1, inject=True, pause=0.25,
        halting=ActHalting(train_rows_only=True),
    )  # fmt: skip
    torch.nn.init.constant_(model.halting.linear.bias, 0.5)  # some sums halt early
    model = to_fake(model)
    cfg = TrainConfig(max_bits=4, n_steps=4, eval_every=2, eval_size=40, device="meta",
                      progress=False)  # fmt: skip
    with FakeAccelerator():
        result = train(model, cfg)
        assert next(model.parameters()).device == FAKE
    assert np.isfinite(result.history["loss"]).all()


def test_checked_training_builds_each_model_on_the_device():
    """``train_deq`` (``checked_training``) builds a new model on the CPU for every
    run; each must train on the device asked for and the model returned be there."""
    settings = {"max_bits": 4, "n_steps": 4, "eval_every": 2, "eval_size": 40}
    with FakeAccelerator():
        tries = ch7_fixed_points.train_deq(
            seed=3, device="meta", progress=False, **settings
        )
        assert next(tries.model.parameters()).device == FAKE
    assert tries.attempts == 2 and not tries.passed  # 4 steps: nowhere near 100%
    assert tries.run.config.seed == 1003 and tries.run.config.n_rounds == 18
    assert np.isfinite(tries.run.history["loss"]).all()


def test_chapter_4s_local_ut_trains_each_run_on_the_device():
    """``train_local_ut`` builds a new UT on the CPU for every run (``train_ut``); each
    must train on the device asked for, and the model returned be there."""
    settings = {"max_bits": 4, "n_steps": 4, "eval_every": 2, "eval_size": 40}
    with FakeAccelerator():
        local = ch4_universal_transformer.train_local_ut(
            seed=3, device="meta", progress=False, **settings
        )
        assert next(local.model.parameters()).device == FAKE
    assert local.attempts == 2 and not local.passed  # 4 steps: nowhere near 100%
    assert local.run.config.seed == 1003
    assert np.isfinite(local.run.history["loss"]).all()


def test_chapter_6s_procedure_gives_up_and_trains_again_on_the_device():
    """``train_book_act``: every check, the kept checkpoint, the first two runs giving
    up and the third run, on the device asked for; the model returned is there."""
    settings = {"max_bits": 4, "n_steps": 6, "eval_every": 2, "eval_size": 40}
    with FakeAccelerator():
        book = ch6_act_ut.train_book_act(
            seed=3, min_step=2, give_up_step=4, device="meta", progress=False,
            **settings,
        )  # fmt: skip
        assert next(book.model.parameters()).device == FAKE
    steps = [c.step for c in book.checks]
    assert book.attempts == 3 and steps == [2, 4, 2, 4, 2, 4, 6]
    assert book.kept in book.checks[4:] and book.run.config.seed == 2003


def test_step_timing_runs_on_the_model_device():
    model = to_fake(_act_ut())
    cfg = TrainConfig(max_bits=4, batch_size=8, device="meta", progress=False)
    with FakeAccelerator():
        seconds = seconds_per_step(model, cfg, n_steps=2, warmup=1)
        assert next(model.parameters()).device == FAKE
    assert seconds > 0


@pytest.mark.real_devices
def test_the_library_uses_one_cpu_thread_unless_told(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    monkeypatch.setattr(device, "_TORCH_DEFAULT_THREADS", before)
    assert device.auto_threads() == 1
    with cpu_threads(None, torch.device("cpu")):
        assert torch.get_num_threads() == 1
    with cpu_threads(3, torch.device("cpu")):
        assert torch.get_num_threads() == 3
    assert torch.get_num_threads() == before  # restored
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert device.auto_threads() is None  # the user's setting is kept
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(device, "_TORCH_DEFAULT_THREADS", before + 1)
    assert device.auto_threads() is None  # torch.set_num_threads was called
    with pytest.raises(ValueError, match="n_threads"):
        with cpu_threads(0, torch.device("cpu")):
            pass


def test_a_gradient_hook_on_the_accelerator_fires():
    """The DEQ's implicit gradient is a hook on its output; the pretend accelerator
    must not drop it (it once registered hooks on an alias outside the graph)."""
    called = []
    layer = to_fake(torch.nn.Linear(3, 1, bias=False))
    with FakeAccelerator():
        y = layer(torch.ones(2, 3).to(FAKE))  # (2, 1)
        y.register_hook(lambda g: called.append(True) or g * 10)
        y.sum().backward()
        assert called == [True]
        assert torch.equal(layer.weight.grad.cpu(), torch.full((1, 3), 20.0))
