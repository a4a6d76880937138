"""Tests of the learning side: data, device, the shared cell, the training loop and the
experiments of Chapters 2 and 3. Models that ``train`` places go to the pretend
accelerator (``tests/conftest.py``), the rest run on the CPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.chapters.ch2_shared_update import (
    accuracy_by_round,
    chain_experiment,
    length_generalization,
    rule_exact_by_round,
)
from recur.chapters.ch3_input_injection import (
    ablation_summary,
    gradient_comparison,
    injection_ablation,
)
from recur.core.carry import longest_carry_chain, wait_rounds
from recur.core.device import pick_device, seed_everything
from recur.core.tasks import batch_from_strings, chain_batch, random_batch
from recur.models.cell import LocalCell, Unroll, n_parameters
from recur.models.running import learned_readouts
from recur.training import loop
from recur.training.cell_variants import train_variant
from recur.training.config import TrainConfig, aux_scale
from recur.training.evaluate import evaluate
from recur.training.loop import train


def _as_int(bits_lsb_first) -> int:
    return sum(int(x) << i for i, x in enumerate(bits_lsb_first))


# ------------------------------------------------------------------ tasks and device


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 40), st.integers(1, 16), st.integers(0, 10_000))
def test_random_batch_targets_are_integer_sums(n_bits, batch_size, seed):
    batch = random_batch(batch_size, n_bits, seed=seed)
    assert batch.bits.shape == (batch_size, n_bits + 1, 2)
    assert batch.target.shape == batch.distance.shape == (batch_size, n_bits + 1)
    assert batch.bits.dtype == batch.target.dtype == torch.float32
    assert batch.distance.dtype == torch.int64
    assert torch.all(batch.bits[:, -1] == 0)  # the overflow position has no input
    for bits, target in zip(batch.bits, batch.target, strict=True):
        a, b = _as_int(bits[:, 0]), _as_int(bits[:, 1])
        assert _as_int(target) == a + b


def test_batches_are_seeded_and_widths_drawn():
    assert torch.equal(random_batch(8, 5, seed=3).bits, random_batch(8, 5, seed=3).bits)
    assert not torch.equal(
        random_batch(8, 5, seed=3).bits, random_batch(8, 5, seed=4).bits
    )


def _highest_one(batch) -> torch.Tensor:
    """(B,) the highest bit where a or b holds a 1; -1 for 0 + 0."""
    ones = batch.bits.sum(-1) > 0  # (B, n)
    index = torch.arange(ones.shape[1]).expand_as(ones)
    return torch.where(ones, index, -1).max(dim=1).values


def test_min_bits_draws_widths_and_zeroes_the_bits_above():
    """Widths uniform in 2..8: no 1 above bit 3 when the width is 2, 3 or 4 (3/7), or
    by chance at width w > 4 (4^-(w-4)): 3/7 + (1/4 + 1/16 + 1/64 + 1/256)/7 = 0.476.
    With every width 8, only 4^-4 = 1/256 of sums."""
    narrow = _highest_one(random_batch(4000, 8, seed=0, min_bits=2))
    assert 0.45 < float((narrow <= 3).float().mean()) < 0.50
    wide = _highest_one(random_batch(4000, 8, seed=0, min_bits=8))
    assert float((wide <= 3).float().mean()) < 0.01


@pytest.mark.parametrize("length", [0, 1, 2, 5, 16])
def test_chain_batch_has_exactly_the_asked_chain(length):
    batch = chain_batch(300, 16, length, seed=length)
    assert torch.all(batch.distance.max(dim=1).values == length)
    a = "".join(str(int(x)) for x in batch.bits[0, :-1, 0].flip(0))
    b = "".join(str(int(x)) for x in batch.bits[0, :-1, 1].flip(0))
    assert longest_carry_chain(a, b) == length


def test_chain_batch_kills_plant_a_wait_with_no_carry():
    """kill_share=1, a run of the full width: bit 0 is 0 + 0 and every bit above it
    propagates, so nothing carries (the sum is a xor b) and the top bit waits 7 rounds
    (1 plus the 6 propagating bits below it, bit 0 stops the run)."""
    batch = chain_batch(20, 8, 8, seed=0, kill_share=1.0)
    a, b = batch.bits[:, :8, 0], batch.bits[:, :8, 1]  # (B, 8): the operands
    assert torch.all(a[:, 0] + b[:, 0] == 0) and torch.all(a[:, 1:] + b[:, 1:] == 1)
    assert torch.all(batch.distance == 0)
    assert torch.equal(batch.target[:, :8], (a + b) % 2)
    wait = wait_rounds(a.long().numpy(), b.long().numpy())  # (B, 9)
    assert (wait[:, 7] == 7).all()
    half = chain_batch(400, 8, 8, seed=1, kill_share=0.5)
    no_carry = float((half.distance.max(dim=1).values == 0).float().mean())
    assert 0.4 < no_carry < 0.6  # rows drawn one by one, half of them kills
    assert torch.equal(
        chain_batch(9, 8, 5, seed=2, kill_share=0.0).bits,
        chain_batch(9, 8, 5, seed=2).bits,
    )


def test_batch_from_strings_matches_carry_module():
    batch = batch_from_strings([("0111", "0001"), ("1", "1")])
    assert batch.target[0].tolist() == [0, 0, 0, 1, 0]
    assert batch.distance[0].tolist() == [0, 1, 2, 3, 0]
    assert batch.target[1].tolist() == [0, 1, 0, 0, 0]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: random_batch(0, 8), "empty batch"),
        (lambda: random_batch(4, 0), "n_bits"),
        (lambda: random_batch(4, 8, min_bits=9), "min_bits"),
        (lambda: chain_batch(4, 8, 9), "chain_length"),
        (lambda: chain_batch(4, 8, 3, kill_share=1.5), "kill_share"),
        (lambda: TrainConfig(chain_kill_share=-0.1).check(), "chain_kill_share"),
        (lambda: batch_from_strings([]), "empty"),
        (lambda: batch_from_strings([("10", "2")]), "not binary"),
    ],
)
def test_bad_task_arguments_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.real_devices
def test_pick_device(monkeypatch):
    monkeypatch.setenv("RECUR_DEVICE", "cpu")
    assert pick_device("auto") == torch.device("cpu")
    assert pick_device("cpu") == torch.device("cpu")
    monkeypatch.delenv("RECUR_DEVICE")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert pick_device("auto").type in {expected, "mps"}
    with pytest.raises(ValueError, match="unknown device"):
        pick_device("abacus")


def test_seed_everything_is_repeatable():
    seed_everything(5)
    first = torch.rand(3)
    seed_everything(5)
    assert torch.equal(first, torch.rand(3))
    with pytest.raises(ValueError, match="seed"):
        seed_everything("five")


# ------------------------------------------------------------------ the shared cell


def test_unroll_returns_one_readout_per_round():
    model = LocalCell()
    out = model(random_batch(4, 6).bits, 7)
    assert out.logits.shape == (7, 4, 7)
    assert out.aux_loss.shape == ()


def test_cell_is_deterministic_for_a_seed():
    batch = random_batch(4, 6)
    torch.manual_seed(1)
    first = LocalCell()(batch.bits, 3).logits
    torch.manual_seed(1)
    assert torch.equal(first, LocalCell()(batch.bits, 3).logits)


def test_injection_changes_the_computation_not_the_parameters():
    torch.manual_seed(0)
    injected = LocalCell(inject=True)
    once = LocalCell(inject=False)
    once.load_state_dict(injected.state_dict())  # same weights, same count
    assert n_parameters(injected) == n_parameters(once)
    bits = random_batch(8, 6).bits
    assert not torch.allclose(injected(bits, 3).logits, once(bits, 3).logits)
    assert torch.allclose(
        injected(bits, 1).logits, once(bits, 1).logits
    )  # same 1st round


def test_cell_is_local():
    """After r rounds, changing bit j cannot change readouts below j or above j + r."""
    torch.manual_seed(0)
    model = LocalCell()
    bits = random_batch(1, 12, seed=1).bits
    flipped = bits.clone()
    flipped[0, 4, 0] = 1 - flipped[0, 4, 0]
    diff = (model(bits, 3).logits - model(flipped, 3).logits).abs()[-1, 0]  # (n,)
    assert torch.all(diff[:4] == 0) and torch.all(diff[8:] == 0)
    assert diff[4:8].max() > 0


@pytest.mark.parametrize(
    ("bits", "n_rounds", "message"),
    [
        (torch.zeros(0, 5, 2), 3, "empty batch"),
        (torch.zeros(2, 5, 2), 0, "n_rounds"),
        (torch.zeros(2, 5, 3), 3, "shape"),
    ],
)
def test_bad_unroll_arguments_raise(bits, n_rounds, message):
    with pytest.raises(ValueError, match=message):
        LocalCell()(bits, n_rounds)


# ------------------------------------------------------------------ training


def test_training_on_4_bit_numbers_learns():
    torch.manual_seed(0)
    model = LocalCell()
    cfg = TrainConfig(max_bits=4, n_steps=800, eval_size=2000, seed=0, progress=False)
    result = train(model, cfg)
    acc = evaluate(model, random_batch(2000, 4, seed=99), 5)
    assert float(acc.exact[-1]) >= 0.99
    assert list(result.history.columns) == ["step", "loss", "exact", "pairs", "seconds"]
    assert result.history["loss"].iloc[-1] < result.history["loss"].iloc[0]


def test_training_is_deterministic_for_a_seed():
    cfg = TrainConfig(
        max_bits=4, n_steps=60, eval_every=20, eval_size=200, progress=False
    )
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        runs.append(train(LocalCell(), cfg).history[["step", "loss", "exact"]])
    assert runs[0].equals(runs[1])


@given(st.integers(1, 3000), st.integers(0, 1000))
def test_aux_warmup_ramps_from_zero_to_one(step, warmup):
    scale = aux_scale(step, warmup)
    assert 0 <= scale <= 1
    assert scale <= aux_scale(step + 1, warmup)
    if step > warmup:
        assert scale == 1
    if warmup and step == 1:
        assert scale == 0


def test_training_passes_the_warmup_weight(monkeypatch):

    weights = []
    real_step = loop._step

    def recording_step(*args):
        weights.append(args[5])
        return real_step(*args)

    monkeypatch.setattr(loop, "_step", recording_step)
    cfg = TrainConfig(max_bits=4, n_steps=5, eval_size=50, aux_warmup=4, progress=False)
    train(LocalCell(), cfg)
    assert weights == [0, 0.25, 0.5, 0.75, 1]


def test_ctrl_c_keeps_model_and_history(monkeypatch):

    calls = {"n": 0}
    real_step = loop._step

    def interrupting_step(*args):
        calls["n"] += 1
        if calls["n"] == 30:
            raise KeyboardInterrupt
        return real_step(*args)

    monkeypatch.setattr(loop, "_step", interrupting_step)
    model = LocalCell()
    cfg = TrainConfig(
        max_bits=4, n_steps=100, eval_every=10, eval_size=100, progress=False
    )
    result = train(model, cfg)
    assert result.interrupted
    assert result.model is model
    assert result.history["step"].tolist() == [10, 20]


@pytest.mark.parametrize(
    "cfg",
    [
        TrainConfig(n_steps=0),
        TrainConfig(batch_size=0),
        TrainConfig(min_bits=5, max_bits=4),
        TrainConfig(loss_window=20),
        TrainConfig(max_rounds=3),
    ],
)
def test_bad_training_config_raises(cfg):
    with pytest.raises(ValueError):
        train(LocalCell(), cfg)


def test_evaluate_counts_exact_and_bits():
    class Oracle(torch.nn.Module):
        """Answers right from round 2 on."""

        def __init__(self, target):
            super().__init__()
            self.target = target
            self.dummy = torch.nn.Parameter(torch.zeros(()))

        def forward(self, bits, n_rounds):
            right = self.target * 2 - 1  # (B, n) logits with the right sign
            logits = torch.stack([-right] + [right] * (n_rounds - 1))
            return Unroll(logits, logits.new_zeros(()))

    batch = random_batch(50, 6, seed=0)
    acc = evaluate(Oracle(batch.target), batch, 3)
    assert acc.exact.tolist() == [0.0, 1.0, 1.0]
    assert acc.bit.tolist() == [0.0, 1.0, 1.0]


# ------------------------------------------------------------------ experiments


@pytest.fixture(scope="module")
def trained():
    model, _ = train_variant(True, 1, seed=0, max_bits=4, n_steps=800, eval_size=1000)
    return model


def test_rule_accuracy_by_round_counts_chains():
    batch = batch_from_strings([("0111", "0001"), ("0001", "0001"), ("1010", "0101")])
    # chains 3, 1, 0: the rule is right for 2/3 after round 1, all after round 3
    assert rule_exact_by_round(batch, 3).tolist() == pytest.approx([2 / 3, 2 / 3, 1.0])


def test_experiment_tables_have_their_shape(trained):
    table = accuracy_by_round(trained, random_batch(200, 4, seed=1), 6)
    assert list(table.index) == list(range(1, 7))
    assert table["exact rule"].iloc[-1] == 1.0
    lengths = length_generalization(trained, {8: 50}, {"width + 1": 1.0})
    assert lengths.loc[8, "rounds: width + 1"] == 9
    run = chain_experiment(trained, 8, [0, 2, 8], n_sums=30, max_rounds=18)
    assert run.exact.shape == (3, 18)
    assert 0 <= run.stays_right.min() <= run.stays_right.max() <= 1
    readouts = learned_readouts(trained, "0111", "0001", 4)
    assert len(readouts) == 4 and all(len(r) == 5 for r in readouts)


def test_gradient_vanishes_without_injection_at_init():
    norms = gradient_comparison(n_rounds=6, n_sums=64, seed=0)
    assert norms["injection"][-1] > 0.1 * norms["injection"][0]
    assert norms["no injection"][-1] < 0.01 * norms["no injection"][0]


def test_ablation_runs_every_variant():
    ablation = injection_ablation(
        [0], widths=(4,), n_sums=20, n_steps=20, max_bits=4, eval_size=50
    )
    table = ablation.table
    assert set(ablation.models) == {
        (inject, window, 0) for inject in (True, False) for window in (1, "all")
    }
    assert set(
        map(tuple, table[["inject", "loss window"]].drop_duplicates().values)
    ) == {(True, "1"), (True, "all"), (False, "1"), (False, "all")}
    assert table["round"].max() == 4 * 5
    summary = ablation_summary(table)
    assert summary.shape[0] == 4
    assert np.isfinite(summary["exact 4x"]).all()


def test_held_out_keys_are_exact_beyond_64_bits():
    """Integer ids of 2 x 40 bits would overflow int64; the keys must still tell every
    pair apart (two pairs that differ only in the top bit of b)."""
    from recur.training.loop import _not_held_out, _pair_keys

    a = "1" + "0" * 39
    pairs = batch_from_strings([(a, "1" + "0" * 39), (a, "0" * 40)])
    keys = _pair_keys(pairs.bits)
    assert keys[0] != keys[1]
    keep = _not_held_out(pairs.bits, frozenset(keys[:1]))
    assert keep.tolist() == [0.0, 1.0]
    cfg = TrainConfig(
        max_bits=40, n_steps=2, eval_every=1, eval_size=20, progress=False
    )
    assert len(train(LocalCell(), cfg).history) == 2


def test_chain_share_mixes_long_carry_chains_into_each_batch(monkeypatch):

    batches, real_step = [], loop._step

    def spy(model, opt, batch, *args):
        batches.append(batch)
        return real_step(model, opt, batch, *args)

    monkeypatch.setattr(loop, "_step", spy)
    cfg = TrainConfig(
        max_bits=8,
        n_steps=6,
        batch_size=40,
        chain_share=0.25,
        eval_size=50,
        progress=False,
    )
    train(LocalCell(), cfg)
    lengths = set()
    for batch in batches:
        chains = batch.distance[30:].max(dim=1).values  # (10,) the planted sums
        assert len(set(chains.tolist())) == 1 and 1 <= int(chains[0]) <= 8
        lengths.add(int(chains[0]))
        assert batch.bits.shape == (40, 9, 2)
    assert len(lengths) > 1  # the chain length is drawn anew each step
    with pytest.raises(ValueError, match="chain_share"):
        train(LocalCell(), TrainConfig(chain_share=1.5))


@pytest.mark.real_devices  # the pretend accelerator's .cpu() drops the graph anyway
def test_measurements_build_no_graph_for_gradients():
    """run_model, the one way measurements run a model, must not keep autograd's graph:
    over a long run it would keep every round's activations (a 1,024-bit ACT run once
    took 20 GB)."""
    from recur.core.tasks import random_batch
    from recur.models.cell import LocalCell
    from recur.models.running import run_model

    out = run_model(LocalCell(), random_batch(4, 6, seed=0).bits, 5)
    assert not out.logits.requires_grad


def test_the_static_page_gets_no_progress_bar(monkeypatch, capsys):
    """A finished bar with its rate says nothing on a static page; run in
    Jupyter or a terminal, training shows one."""
    cfg = TrainConfig(max_bits=2, n_steps=2, eval_every=2, eval_size=10, n_rounds=3)
    train(LocalCell(), cfg)
    assert "training" in capsys.readouterr().err
    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    train(LocalCell(), cfg)
    assert "training" not in capsys.readouterr().err


def test_training_batches_pass_the_kill_share_on(monkeypatch):

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs.get("kill_share"))
        return chain_batch(*args, **kwargs)

    monkeypatch.setattr(loop, "chain_batch", spy)
    cfg = TrainConfig(batch_size=8, chain_share=0.5, chain_kill_share=0.25)
    batch = loop._training_batch(cfg, torch.Generator().manual_seed(0))
    assert seen == [0.25] and batch.bits.shape[0] == 8
