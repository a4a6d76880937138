"""The Universal Transformer block: masks, signals, shapes, parameter counts, ACT."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.core.tasks import random_batch
from recur.models import attention
from recur.models.attention import (
    MAX_OFFSET,
    banded_attention,
    count_parameters,
    local_mask,
    sinusoid,
)
from recur.models.halting import ActHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer, one_round
from recur.pages.ch4_universal_transformer import curve_words, example_words, full_words
from recur.studies.sweeps import act_runs, tau_sweep
from recur.training.config import TrainConfig
from recur.training.loop import train
from recur.training.ut_recipe import FIRST_ACT, UT_SIZE

ACT = ActHalting()  # ACT halting with its defaults


def _rule(act: bool) -> ActHalting | None:
    return ACT if act else None


def test_local_mask_lets_each_position_see_itself_and_the_window_below():
    mask = local_mask(5, window=1)
    allowed = ~mask
    for i in range(5):
        assert [j for j in range(5) if allowed[i, j]] == [
            j for j in (i - 1, i) if j >= 0
        ]
    assert local_mask(5, None) is None
    with pytest.raises(ValueError, match="window"):
        local_mask(5, -1)


def _small_local_ut(**options) -> UniversalTransformer:
    """A small UT with a local window of one, seeded 0, in eval mode."""
    torch.manual_seed(0)
    return UniversalTransformer(
        d_model=16, n_heads=2, d_ff=32, window=1, **options
    ).eval()


@pytest.mark.parametrize(
    ("position", "inject", "floor"),
    [
        ("sinusoid", False, False),
        ("relative", False, False),
        ("none", True, False),
        ("relative", True, False),
        ("none", True, True),
    ],
)
def test_local_attention_is_local(position, inject, floor):
    """With window 1 and r rounds, bit j can only influence positions j .. j + r."""
    model = _small_local_ut(position=position, inject=inject, floor=floor)
    if model.relative is not None:
        with torch.no_grad():
            model.relative.normal_()
    bits = random_batch(1, 12, seed=1).bits
    flipped = bits.clone()
    flipped[0, 4, 1] = 1 - flipped[0, 4, 1]
    diff = (model(bits, 3).logits - model(flipped, 3).logits).abs()[-1, 0]  # (n,)
    assert diff[:4].max() < 1e-6 and diff[8:].max() < 1e-6
    assert diff[4:8].max() > 0


def test_sinusoid_follows_eqs_6_7():
    table = sinusoid(torch.arange(4), 8)
    assert table.shape == (4, 8)
    assert table[2, 0].item() == pytest.approx(math.sin(2))
    assert table[2, 1].item() == pytest.approx(math.cos(2))
    assert table[3, 2].item() == pytest.approx(math.sin(3 / 10000 ** (2 / 8)), abs=1e-6)


def test_the_signal_evaluates_the_sinusoids_at_the_counts_from_0():
    """Chapter 4 says the code's (i, r) is the paper's (i + 1, r + 1) and that it
    evaluates the sinusoids at i and r, one less than the paper would there."""
    model = UniversalTransformer(d_model=8, n_heads=2, window=1)
    first = model.signal(3, 0, "cpu")  # (n, d): the first round
    assert first[0, 0::2].tolist() == [0.0] * 4  # sin(0) + sin(0) at bit 0
    assert first[0, 1::2].tolist() == [2.0] * 4  # cos(0) + cos(0)
    second = model.signal(3, 1, "cpu")  # the second round, r = 1
    assert second[2, 0].item() == pytest.approx(math.sin(2) + math.sin(1), abs=1e-6)
    assert second[2, 1].item() == pytest.approx(math.cos(2) + math.cos(1), abs=1e-6)


@pytest.mark.parametrize("window", [None, 0, 1, 2])
@given(n_bits=st.integers(1, 9), r=st.integers(0, 30), seed=st.integers(0, 2**16))
@settings(max_examples=10, deadline=None)
def test_the_round_written_out_is_the_models_round(window, n_bits, r, seed):
    """Chapter 4's round as Eqs. 4-7 write it (``one_round``: the signal built in
    place, the window as a mask) gives what the model's own round gives (a local
    window computed as a band) on the same weights and the same state H^{r-1}."""
    torch.manual_seed(seed)
    model = UniversalTransformer(window=window).eval()
    state = torch.randn(3, n_bits + 1, UT_SIZE["d_model"])  # (B, n, d)
    torch.testing.assert_close(one_round(model, state, r), model.step(state, r))


@pytest.mark.parametrize("window", [None, 1])
def test_the_rounds_written_out_give_the_models_readouts(window):
    """H^0 is the embedded bits and round r (counted from 0) is ``one_round``: the
    readouts after each round are the model's."""
    torch.manual_seed(3)
    model = UniversalTransformer(window=window).eval()
    bits = random_batch(5, 8, seed=4).bits  # (B, n, 2)
    state, readouts = model.embed(bits), []  # H^0: (B, n, d)
    for r in range(9):
        state = one_round(model, state, r)  # (B, n, d): H^{r+1} in the paper's count
        readouts.append(model.readout(state).squeeze(-1))  # (B, n)
    torch.testing.assert_close(torch.stack(readouts), model(bits, 9).logits)


@pytest.mark.parametrize(
    ("option", "value"),
    [("inject", True), ("position", "relative"), ("round_signal", False),
     ("pause", 0.25), ("position_offsets", 4), ("pair_as_set", True)],
)  # fmt: skip
def test_the_round_written_out_refuses_what_later_chapters_add(option, value):
    model = UniversalTransformer(d_model=8, n_heads=2, window=1, **{option: value})
    with pytest.raises(ValueError, match=option):
        one_round(model, torch.zeros(1, 3, 8), 0)


def test_fixed_rounds_return_a_readout_per_round():
    model = UniversalTransformer(d_model=16, n_heads=2, d_ff=32)
    out = model(random_batch(3, 5).bits, 4)
    assert out.logits.shape == (4, 3, 6)
    assert out.aux_loss.item() == 0


def test_act_mode_returns_one_readout_and_a_ponder_cost():
    model = UniversalTransformer(d_model=16, n_heads=2, d_ff=32, halting=ACT)
    out = model(random_batch(3, 5).bits, 6)
    assert out.logits.shape == (1, 3, 6)
    assert out.aux_loss.item() > 0
    steps = out.steps  # (B, n)
    assert torch.all((steps >= 1) & (steps <= 6))


def test_parameter_count_of_one_base_layer():
    counts = count_parameters(512, 2048, 12)
    assert counts["one layer"] == 3_152_384
    assert counts["12 separate layers"] == 37_828_608
    assert counts["weights only (12 d^2 at d_ff = 4d)"] == 12 * 512**2


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="divisible"):
        UniversalTransformer(d_model=30, n_heads=4)
    with pytest.raises(ValueError, match="position must be"):
        UniversalTransformer(d_model=16, n_heads=2, position="learned")
    with pytest.raises(ValueError, match="position_offsets"):
        UniversalTransformer(d_model=16, n_heads=2, position_offsets=-1)


def test_without_a_position_signal_every_position_gets_the_same_signal():
    model = UniversalTransformer(d_model=8, n_heads=2, position="none")
    signal = model.signal(5, 3, "cpu")  # (n, d)
    assert torch.equal(signal, sinusoid(torch.tensor([3]), 8).expand(5, 8))


def test_relative_bias_blocks_the_window_and_depends_on_the_offset_only():
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, window=1, position="relative")
    with torch.no_grad():
        model.relative.normal_()
    bias = model.attention_bias(5, 3, "cpu")  # (B * H, n, n)
    assert bias.shape == (6, 5, 5)
    assert torch.isinf(bias[:, local_mask(5, 1)]).all()
    assert torch.equal(bias[0], bias[2]) and not torch.equal(bias[0], bias[1])
    for head in range(2):
        below = model.relative[head, MAX_OFFSET + 1]
        assert bias[head, 3, 2] == bias[head, 4, 3] == below
        assert bias[head, 4, 4] == model.relative[head, MAX_OFFSET]


def test_position_offsets_shift_the_signal_only_while_training():
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, position_offsets=16)
    bits = random_batch(2, 3).bits
    offsets = set()
    for _ in range(40):
        _, step, _ = model.prepare(bits, 2)  # the round, its offset drawn
        offset = step.keywords["offset"]
        assert 0 <= offset <= 16
        offsets.add(offset)
        expected = sinusoid(torch.arange(offset, offset + 4), 8)
        round_1 = sinusoid(torch.tensor([1]), 8)
        assert torch.allclose(model.signal(4, 1, "cpu", offset), expected + round_1)
    assert len(offsets) > 5
    model.eval()
    assert model.prepare(bits, 2)[1].keywords["offset"] == 0


def test_act_studies_have_a_row_per_variant_seed_and_width():
    fast = {"n_steps": 4, "eval_every": 2, "eval_size": 50}
    runs = act_runs(
        {"sinusoid": FIRST_ACT, "none": FIRST_ACT.but(position="none")},
        seeds=[0, 1],
        widths=(4, 6),
        n_sums=20,
        **fast,
    )
    assert len(runs) == 8
    assert set(runs["variant"]) == {"sinusoid", "none"}
    assert runs["exact"].between(0, 1).all()
    assert runs["mean steps"].between(1, 12).all()
    assert (runs["train steps"] == 4).all()
    assert runs["steps beyond the carry"].notna().all()
    sweep = tau_sweep([0.01, 0.1], seeds=[0], n_sums=20, **fast)
    assert sweep["tau"].tolist() == [0.01, 0.1]


def test_short_training_reduces_the_loss():
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=16, n_heads=2, d_ff=32, window=1)
    cfg = TrainConfig(
        max_bits=4,
        n_steps=60,
        eval_every=30,
        eval_size=200,
        lr=3e-3,
        loss_window=5,
        stop_at_exact=None,
        progress=False,
    )
    history = train(model, cfg).history
    assert history["loss"].iloc[-1] < 0.6


def _block_inputs(model, bits, n_rounds):
    """What the shared block received and returned in each round."""
    seen, real = [], model.block.forward

    def spy(x, mask):
        out = real(x, mask)
        seen.append((x.detach(), out.detach()))
        return out

    model.block.forward = spy
    model(bits, n_rounds)
    return seen


@pytest.mark.parametrize("inject", [True, False])
def test_injection_feeds_the_same_embedded_input_to_every_round(inject):
    """Round r gets H^{r-1} + P^r (+ the embedded bits E with injection); H^0 is E
    without injection and 0 with it, so E reaches round 1 either way."""
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=16, n_heads=2, d_ff=32, inject=inject).eval()
    bits = random_batch(3, 5, seed=2).bits
    embedded = model.embed(bits).detach()  # (B, n, d)
    seen = _block_inputs(model, bits, 4)
    previous = torch.zeros_like(embedded) if inject else embedded
    for t, (x, out) in enumerate(seen):
        extra = x - previous - model.signal(bits.shape[1], t, bits.device)
        expected = embedded if inject else torch.zeros_like(embedded)
        assert torch.allclose(extra, expected, atol=1e-5), t
        previous = out


def test_injection_off_changes_no_number():
    bits = random_batch(4, 6, seed=0).bits
    outs = []
    for options in ({}, {"inject": False}):
        torch.manual_seed(0)
        model = UniversalTransformer(
            d_model=16, n_heads=2, d_ff=32, halting=ACT, **options
        )
        outs.append(model(bits, 8))
    assert torch.equal(outs[0].logits, outs[1].logits)
    assert torch.equal(outs[0].steps, outs[1].steps)


@pytest.mark.parametrize(
    ("make", "n_rounds", "message"),
    [
        (lambda n: torch.zeros(2, n, 3), 3, "shape"),
        (lambda n: torch.full((2, n, 2), 0.5), 3, "binary"),
        (lambda n: torch.full((2, n, 2), 2.0), 3, "binary"),
        (lambda n: torch.zeros(2, n, 2), 0, "n_rounds"),
    ],
)
@pytest.mark.parametrize("n_bits", [5, 64])
def test_bad_ut_input_raises(make, n_rounds, message, n_bits):
    model = UniversalTransformer(
        d_model=8, n_heads=2, d_ff=16, halting=ACT, inject=True
    )
    with pytest.raises(ValueError, match=message):
        model(make(n_bits), n_rounds)


def test_without_the_round_signal_every_round_gets_the_same_signal():
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, round_signal=False)
    first, later = model.signal(5, 0, "cpu"), model.signal(5, 7, "cpu")
    assert torch.equal(first, later)
    assert torch.equal(first, sinusoid(torch.arange(5), 8))  # the position part stays


@pytest.mark.parametrize("act", [False, True])
def test_without_a_floor_bit_0_and_a_bit_above_its_twin_look_the_same(act):
    """Softmax attention averages its keys, so a window holding one state, {s}, and one
    holding two equal states, {s, s}, give the same output. Bit 0 sees only itself, so
    with no position signal 1 + 1 at bit 0 (carry in 0) and 1 + 1 above it (carry in
    1) stay identical in every round; the floor (a 0 + 0 bit under bit 0) tells them
    apart, and leaves the output shapes as they were."""
    bits = torch.ones(1, 2, 2)  # (B, n, 2): 11 + 11
    outs = {}
    for floor in (False, True):
        model = _small_local_ut(
            position="none", inject=True, halting=_rule(act), floor=floor
        )
        outs[floor] = model(bits, 4)
    same = outs[False].logits[..., 0] - outs[False].logits[..., 1]
    assert same.abs().max() < 1e-6
    assert (outs[True].logits[..., 0] - outs[True].logits[..., 1]).abs().max() > 1e-3
    assert outs[True].logits.shape == outs[False].logits.shape
    if act:
        assert outs[True].steps.shape == outs[False].steps.shape == (1, 2)
        assert outs[True].halting.shape[1:] == (1, 2)


@pytest.mark.parametrize("window", [0, 1, 3])
@pytest.mark.parametrize("position", ["relative", "sinusoid", "none"])
def test_a_banded_ut_computes_what_the_masked_one_does(window, position):
    """Local windows run banded attention; the same function as the masked
    attention of Chapter 4, relative bias included (the bias made non-zero here)."""
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=window,
                                 position=position, inject=True).eval()  # fmt: skip
    if model.relative is not None:
        torch.nn.init.normal_(model.relative, std=1.0)
    bits = random_batch(5, 11, seed=1).bits
    banded = model(bits, 6).logits
    masked_model = UniversalTransformer(model.options, banded=False).eval()
    masked_model.load_state_dict(model.state_dict())
    masked = masked_model(bits, 6).logits
    assert torch.allclose(banded, masked, atol=1e-5)


def _slots_and_gradients(slots, q, k, v, below, bias, ring) -> list:
    """The mixed values of ``slots`` and the gradients of a fixed weighted sum of them
    with respect to every input."""
    inputs = [t.detach().clone().requires_grad_(True) for t in (q, k, v, *below, bias)]
    q, k, v, below_k, below_v, bias = inputs
    mixed = slots(q, k, v, (below_k, below_v), bias, ring)  # (B, n, H, d_h)
    weights = torch.linspace(-1, 1, mixed.numel()).view_as(mixed)
    return [mixed, *torch.autograd.grad((mixed * weights).sum(), inputs)]


@settings(max_examples=30, deadline=None)
@given(
    batch=st.integers(1, 6),
    n=st.integers(1, 12),
    heads=st.sampled_from([1, 2, 4]),
    scale=st.sampled_from([0.1, 1.0, 30.0]),
    ring=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_the_window_of_one_is_the_unfolded_window_bit_for_bit(
    batch, n, heads, scale, ring, seed
):
    """Banded attention's fast path for the book's window of one gives the same bits
    as the general unfolded one, values and gradients, so every trained model and every
    stored number stays what it was."""
    generator = torch.Generator().manual_seed(seed)
    q, k, v = scale * torch.randn(3, batch, n, heads, 8, generator=generator)
    bias = torch.randn(heads, 2, generator=generator)
    below = attention._below_zero(k, v, 1, ring)  # (B, 1, H, d_h) each
    fast = _slots_and_gradients(attention.two_slots, q, k, v, below, bias, ring)
    general = _slots_and_gradients(attention.unfolded_slots, q, k, v, below, bias, ring)
    for a, b in zip(fast, general, strict=True):
        assert torch.equal(a, b)


def _halting_apart(**options) -> UniversalTransformer:
    """A small ACT UT (relative positions, floor, no round signal) whose sums of 6 bits
    halt in rounds 7-10, not all at once; ``options`` go to the model."""
    torch.manual_seed(0)
    options = {"halting": ACT} | options
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1,
                                 position="relative", floor=True, round_signal=False,
                                 **options)  # fmt: skip
    torch.nn.init.normal_(model.halting.linear.weight, std=1.0)
    torch.nn.init.constant_(model.halting.linear.bias, 0.5)
    return model


def _training_pass(rows_only: bool, inject: bool) -> tuple:
    """One training forward and backward of a small ACT UT with pauses whose sums
    halt at different rounds: the output, the gradients and the row counts the shared
    block was run on."""
    rule = ActHalting(train_rows_only=rows_only)
    model = _halting_apart(inject=inject, pause=0.25, halting=rule).train()
    sizes = []
    model.block.register_forward_hook(lambda m, args, out: sizes.append(len(out)))
    bits = random_batch(40, 6, seed=3).bits  # (B, 7, 2)
    torch.manual_seed(1)  # the pauses
    out = model(bits, 12)
    (out.logits.sum() + out.aux_loss).backward()
    grads = {k: p.grad for k, p in model.named_parameters() if p.grad is not None}
    return out, grads, sizes


@pytest.mark.parametrize("inject", [True, False])
def test_training_on_the_running_sums_only_pauses_the_same_positions(inject):
    """``train_rows_only`` steps only the sums with a running position while training:
    the same pauses (drawn for the whole batch), so the same numbers up to rounding
    and the same halting rounds, from fewer rows. The oracle is every row stepped."""
    full, full_grads, full_sizes = _training_pass(False, inject)
    rows, row_grads, row_sizes = _training_pass(True, inject)
    assert set(full_sizes) == {40} and min(row_sizes) < 40 == max(row_sizes)
    assert torch.equal(rows.steps, full.steps)
    torch.testing.assert_close(rows.logits, full.logits, rtol=1e-4, atol=1e-5)
    assert full_grads.keys() == row_grads.keys()
    for name, grad in full_grads.items():
        torch.testing.assert_close(row_grads[name], grad, rtol=1e-3, atol=1e-5)


def test_pauses_keep_a_position_state_in_training_only():
    """With ``pause`` close to 1 almost every position keeps its state in training;
    in eval mode nothing pauses."""
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1, pause=0.99)
    state = torch.randn(4, 6, 8)
    model.train()
    kept = (model.step(state, 0) == state).all(dim=-1).float().mean()
    assert kept > 0.9
    model.eval()
    assert not (model.step(state, 0) == state).all(dim=-1).any()
    with pytest.raises(ValueError, match="pause"):
        UniversalTransformer(pause=1.0)


def test_a_held_position_keeps_its_first_round_state_for_its_rounds():
    """With ``held_until``, a position given last round r keeps the state of its
    first round (r = 0) through round r and moves again after it; no other position
    is held, in eval mode as in training; without it nothing is."""
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1, inject=True)
    bits = random_batch(3, 5, seed=2).bits
    until = torch.zeros(3, 6, dtype=torch.long)  # 5 bits and the carry-out bit
    until[0, 2], until[2, 4] = 3, 1  # held through round 3, through round 1
    for mode in (model.eval, model.train):
        mode()
        state, step, _ = model.prepare(bits, 8, held_until=until)
        states = [state]
        for r in range(6):
            states.append(step(states[-1], r))  # states[r + 1]: H after round r
        for b, i, last in [(0, 2, 3), (2, 4, 1)]:
            assert not torch.equal(states[1][b, i], states[0][b, i])  # round 0 ran
            for r in range(1, last + 1):
                assert torch.equal(states[r + 1][b, i], states[1][b, i])
            assert not torch.equal(states[last + 2][b, i], states[1][b, i])
        free = until == 0  # (B, n)
        assert not (states[2][free] == states[1][free]).all(dim=-1).any()
    state, step, _ = model.eval().prepare(bits, 8)  # the same model, nothing held
    assert not torch.equal(step(step(state, 0), 1)[0, 2], step(state, 0)[0, 2])


@pytest.mark.parametrize("window", [1, 2])
@pytest.mark.parametrize("act", [False, True])
def test_a_ring_computes_what_the_pattern_repeated_without_end_does(window, act):
    """In a ring, a pattern of n positions behaves as the same pattern repeated: after
    R rounds a position of the top copy of the pattern written out k times sees no
    further down than R * window positions, never bit 0 or the floor, so its outputs
    (and, with ACT, its halting probabilities) are those of the ring."""
    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=window,
                                 position="relative", inject=True, floor=True,
                                 halting=_rule(act), round_signal=False)  # fmt: skip
    model.eval()
    torch.nn.init.normal_(model.relative, std=1.0)
    if act:  # halting slowly: all six rounds run
        torch.nn.init.constant_(model.halting.linear.bias, -4.0)
    n, n_rounds = 5, 6
    pattern = random_batch(3, n, seed=4).bits[:, :n]  # (B, n, 2): no carry-out bit
    copies = n_rounds * window // n + 2
    long = pattern.repeat(1, copies, 1)  # (B, n * copies, 2)
    ring = model(pattern, n_rounds, ring=True)
    written_out = model(long, n_rounds)
    top = slice(n * (copies - 1), None)  # the top copy
    assert torch.allclose(ring.logits, written_out.logits[..., top], atol=1e-5)
    if act:
        assert ring.halting.shape[0] == n_rounds
        assert torch.allclose(ring.halting, written_out.halting[..., top], atol=1e-5)


def test_a_ring_refuses_what_cannot_be_one():
    for options in ({"window": None}, {"window": 1, "banded": False},
                    {"window": 1, "position": "sinusoid"}):  # fmt: skip
        model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, **options)
        with pytest.raises(ValueError, match="ring needs"):
            model(torch.zeros(1, 3, 2), 2, ring=True)
    attn = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    with pytest.raises(ValueError, match="window <= 2"):
        banded_attention(torch.zeros(1, 2, 8), attn, 3, ring=True)


def test_cached_masks_and_tables_come_back_as_copies():
    """Changing what one call returned must not change what the next one gets."""
    from recur.models.attention import position_table

    mask = local_mask(6, window=1)
    mask.fill_(True)
    assert not local_mask(6, window=1).all()
    table = position_table(6, 8)
    want = table.clone()
    table.zero_()
    assert torch.equal(position_table(6, 8), want)


def test_a_study_cannot_change_the_librarys_recipes():
    """A study's variants are recipes of their own, frozen: none can change the
    library's."""
    import dataclasses

    from recur.studies.act_studies import RECIPE_VARIANTS
    from recur.training.ut_recipe import BOOK_ACT, TUNED_ACT, UTRecipe

    variant = RECIPE_VARIANTS["no floor"]
    assert isinstance(variant, UTRecipe) and variant.model.floor is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        variant.model.floor = True
    assert TUNED_ACT.model.floor is True and BOOK_ACT.model.floor is True


@pytest.mark.parametrize("case", ["plain", "held", "ring"])
def test_measuring_runs_the_running_sums_only_and_gets_the_same_numbers(case):
    """Without gradients, in eval mode, an ACT model steps only the sums that still
    have a running position (``act_loop``'s ``rows_only``); every number must be what
    the full batch gives (with gradients on, every row steps every round), bit for
    bit, with the input re-fed, positions held (``held_until``) or run as a ring."""
    model = _halting_apart(inject=True).eval()
    bits = random_batch(40, 6, seed=3).bits  # (B, 7, 2)
    until = torch.randint(0, 12, (40, 8))  # floor, 6 bits, carry-out
    options = {"plain": {}, "held": {"held_until": until}, "ring": {"ring": True}}[case]
    with torch.enable_grad():
        full = model(bits, 12, **options)
    with torch.no_grad():
        rows = model(bits, 12, **options)
    last_round = full.steps.amax(dim=1)  # (B,): the round a sum's last position halted
    assert last_round.min() < last_round.max() == full.halting.shape[0]  # some dropped
    for name in ("logits", "aux_loss", "steps", "halting"):
        assert torch.equal(getattr(rows, name), getattr(full, name).detach()), name


def test_the_options_are_one_frozen_value_and_changes_are_checked():
    """A model's options are one frozen :class:`UTOptions`; keywords change fields of
    it, and a bad change fails as a bad option does."""
    import dataclasses

    from recur.models.ut import UTOptions

    base = UTOptions(window=1, halting=ACT)
    model = UniversalTransformer(base, floor=True)
    assert model.options == dataclasses.replace(base, floor=True)
    options = model.options
    assert options.floor and options.window == 1 and model.halting is not None
    assert base.floor is False  # the value passed in is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.options.window = 2
    with pytest.raises(ValueError, match="position must be"):
        UniversalTransformer(base, position="learned")
    with pytest.raises(TypeError):
        UniversalTransformer(base, no_such_option=1)


def _by_round(*shares: float) -> pd.Series:
    return pd.Series(shares, index=range(1, len(shares) + 1))


def test_curve_words_by_hand():
    """Chapter 4's sentence on the local UT against the rule, from a table by hand."""
    rule = _by_round(0.3, 0.6, 0.9, 1.0, 1.0)
    on_it = curve_words(_by_round(0.1, 0.6, 0.8, 1.0, 0.2), rule, 4)
    assert on_it.startswith("is below the rule's curve through round 3, by up to 20.0")
    assert "(after round 1), and on it from round 4 to round 4: it learned" in on_it
    assert curve_words(rule, rule, 5).startswith(
        "is on the rule's curve in every round"
    )
    below = curve_words(_by_round(0.3, 0.6, 0.9, 0.95, 1.0), rule, 4)
    assert below.startswith(
        "stays below the rule's curve through round 4, by up to 5.0"
    )
    above = curve_words(_by_round(0.1, 0.7, 0.9, 1.0, 1.0), rule, 5)
    assert above.startswith(
        "is above the rule's curve after round 2 (70.0% against 60.0%)"
    )


def test_example_words_by_hand():
    """The running example's sentences, for a rule right from round 3."""

    def words(local, full):
        first = {"exact rule": 3, "local": local, "full": full}
        return example_words(first, "local", "full")

    assert words(2, 1).startswith("The local UT is right from round 2, before the rule")
    assert "The full-attention UT is right from round 1, before a carry" in words(2, 1)
    assert words(3, 3).startswith("The local UT is right from round 3, like the rule")
    assert "did not make it faster than the rule" in words(3, 3)
    assert words(9, None).startswith("The local UT is right only from round 9")
    assert words(None, None).endswith("still wrong on it after the last listed round.")


def test_full_words_by_hand():
    rule = _by_round(0.3, 0.6, 0.9, 1.0)
    ahead = full_words(_by_round(0.5, 0.9, 0.95, 0.94), rule, 0.99, trained=3)
    assert ahead["shows"] == "and here it shows"
    assert ahead["exact"] == (
        "But fast is not exact: it does not reach 99% of the sums after any of the 4 "
        "rounds (95.0% after round 3, the last it was trained on, and 94.0% after "
        "round 4); its best is 95.0%, after round 3: more rounds cost it sums"
    )
    behind = full_words(_by_round(0.3, 0.6, 0.9, 1.0), rule, 0.99, trained=3)
    assert behind["shows"] == "though this run does not show it"
    assert behind["exact"].startswith("It reaches 99% of the sums after round 4 (")
    assert behind["reach"] == "reached 99% of the sums after round 4"
    assert ahead["reach"] == "did not reach 99% of the sums after any round"
    fell = full_words(_by_round(0.3, 0.99, 1.0, 0.893), rule, 0.99, trained=3)
    assert fell["reach"] == (
        "reached 99% of the sums after round 2, then fell to 89.3% by round 4"
    )
    assert fell["exact"].endswith(
        "; its best is 100.0%, after round 3: more rounds cost it sums"
    )
    assert behind["early"] == (
        "was right on no more sums than the rule after rounds 1 to 3"
    )
    # the page's run: 51% against 34.5% after round 1, 85.4% against 65.6% after
    # round 2, 84.6% against 84.6% after 3
    page_rule = _by_round(0.345, 0.656, 0.846, 1)
    once = full_words(_by_round(0.51, 0.854, 0.846, 0.9), page_rule, 0.99, trained=3)
    assert once["shows"] == "and here it shows after rounds 1 and 2"
    assert once["early"] == (
        "was right on more sums than the rule after rounds 1 and 2, and on no more "
        "after round 3"
    )
    only_2 = full_words(_by_round(0.3, 0.854, 0.846, 0.9), page_rule, 0.99, 3)
    assert only_2["shows"] == "and here it shows after round 2"


@pytest.mark.parametrize("act", [False, True])
def test_pairs_read_as_sets_make_1_plus_0_and_0_plus_1_one_input(act):
    torch.manual_seed(0)
    bits = random_batch(6, 10, seed=3).bits  # (B, n, 2)
    swap = torch.rand(bits.shape[:2]) < 0.5  # (B, n): swap a_i and b_i here
    swapped = torch.where(swap[..., None], bits.flip(-1), bits)
    for as_set in (True, False):
        torch.manual_seed(1)
        model = UniversalTransformer(
            d_model=8,
            n_heads=2,
            window=1,
            halting=_rule(act),
            floor=True,
            pair_as_set=as_set,
        ).eval()
        same = torch.equal(run_model(model, bits, 12).logits,
                           run_model(model, swapped, 12).logits)  # fmt: skip
        assert same == as_set  # without it, which operand holds the 1 matters
