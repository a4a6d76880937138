"""Functions whose numbers reach the book, each checked against a value worked out by
hand or by an independent counter, with inputs chosen so that a plausible one-line
bug changes the answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.flop_counter import FlopCounterMode

from recur.chapters.ch2_shared_update import ChainExperiment, first_right_table
from recur.chapters.ch3_input_injection import gradient_by_round
from recur.chapters.ch4_universal_transformer import rounds_table
from recur.chapters.ch6_measures import batch_wait_rounds
from recur.chapters.ch7_pondernet import study_values
from recur.core.tasks import batch_from_strings, random_batch
from recur.models.attention import UTBlock, flops_per_token
from recur.models.cell import LocalCell, Unroll


def test_flops_per_token_matches_a_counter_on_the_real_block():
    """Chapter 4's multiply-adds per token, against torch's own FLOP counter on one
    UTBlock (2 FLOPs per multiply-add). The counter sees the attention matrices only
    when the weights are asked for, so the attention is run that way here."""
    d_model, d_ff, seq_len = 16, 40, 7  # every term differs in size
    block = UTBlock(d_model, 4, d_ff)
    x = torch.randn(1, seq_len, d_model)  # (1, n, d)
    with FlopCounterMode(display=False) as counter:
        block.attn(x, x, x, need_weights=True)
        block.transition(x)
    per_token = counter.get_total_flops() / 2 / seq_len
    counted = flops_per_token(d_model, d_ff, seq_len, n_rounds=3)
    assert counted["per layer"] == per_token == 2528  # 4*16^2 + 2*16*40 + 2*7*16
    assert counted["3 layers or rounds"] == 3 * 2528


def test_first_right_table_by_hand():
    run = ChainExperiment(
        n_bits=8,
        chain_lengths=[0, 1, 5],
        exact=np.zeros((3, 9)),
        first_right=np.array([1, 2, -1]),
        stays_right=np.ones(3),
        right_at_end=np.ones(3),
    )
    other = ChainExperiment(
        8, [0, 1, 5], np.zeros((3, 9)), np.array([1, 1, 6]), *[np.ones(3)] * 2
    )
    table = first_right_table([run, other])
    assert table.columns.tolist() == [0, 1, 5]
    assert table.loc["exact rule"].tolist() == [1, 1, 5]  # a chain of 0 still needs 1
    assert table.loc["seed 0"].tolist() == [1, 2, -1]
    assert table.loc["seed 1"].tolist() == [1, 1, 6]


def test_study_values_by_hand():
    summary = pd.DataFrame(
        {
            ("exact", "ACT"): [1.0, 0.5],
            ("exact", "PonderNet"): [0.9, 0.25],
            ("mean steps", "ACT"): [2.0, 4.0],
        },
        index=pd.Index([8, 64], name="bits"),
    )
    distance = pd.DataFrame(
        {
            "method": ["ACT", "PonderNet", "ACT", "ACT", "PonderNet", "PonderNet"],
            "seed": [0, 0, 0, 1, 0, 1],
            "slope": [1.0, 0.2, 1.0, 0.5, 0.2, 0.4],
            "intercept": [1.0, 2.0, 1.0, 3.0, 2.0, 2.0],
            "carry distance": [3, 3, 1, 1, 1, 1],
            "mean steps": [4.0, 9.0, 2.0, 3.0, 5.0, 6.0],
        }
    )
    values = study_values(summary, distance)
    assert values["dmax"] == 3  # the largest distance, not the last row's
    assert values["ACT_at_dmax"] == 4.0 and values["PonderNet_at_dmax"] == 9.0
    assert values["ACT_slope"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)  # mean of rows
    assert values["PonderNet_intercept"] == pytest.approx(2.0)
    assert values["ACT_exact_64"] == 0.5 and values["PonderNet_exact_8"] == 0.9
    assert values["ACT_steps_64"] == 4.0


def test_batch_wait_rounds_by_hand():
    # LSB first: a = 1011 (bits 1,1,0,1), b = 0110 (0,1,1,0); propagate at 0, 2, 3
    # (the batch has a fifth position, 0 + 0, for the carry out)
    batch = batch_from_strings([("1011", "0110"), ("0000", "0000")])
    wait = batch_wait_rounds(batch)
    # bit 0: 1; bit 1: the run below reaches bit 0 -> 1; bit 2: bit 1 generates -> 1;
    # bit 3: bit 2 propagates, bit 1 stops it -> 2; bit 4: bits 3, 2 propagate -> 3
    assert wait.tolist() == [[1, 1, 1, 2, 3], [1, 1, 1, 1, 1]]


class RightFrom(nn.Module):
    """Fixed rounds: sum k of the batch is right from round k + 1 on, wrong before."""

    def __init__(self, truth: torch.Tensor):
        super().__init__()
        self.truth, self.dummy = truth, nn.Parameter(torch.zeros(()))

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        sign = self.truth * 2 - 1  # (B, n)
        first = torch.arange(1, bits.shape[0] + 1)[:, None]  # (B, 1)
        rounds = [torch.where(first <= r, sign, -sign) for r in range(1, n_rounds + 1)]
        return Unroll(torch.stack(rounds) + 0 * self.dummy, self.dummy * 0)


def test_rounds_table_reads_each_round():
    batch = random_batch(4, 6, seed=3)
    table = rounds_table({"m": RightFrom(batch.target)}, batch, n_rounds=5)
    assert table.index.tolist() == [1, 2, 3, 4, 5]
    assert table["m"].tolist() == [0.25, 0.5, 0.75, 1.0, 1.0]


def test_gradient_by_round_uses_that_rounds_loss_alone():
    """Against autograd on the round-r readout alone, computed directly: a bug that
    runs every round's loss, or always the last round, gives other norms."""
    torch.manual_seed(0)
    cell = LocalCell(inject=False)
    batch = random_batch(16, 6, seed=1)
    norms = gradient_by_round(cell, batch, n_rounds=3)
    for r in (1, 2, 3):
        logits = cell(batch.bits, r).logits[-1]  # (B, n): round r
        loss = F.binary_cross_entropy_with_logits(logits, batch.target)
        (grad,) = torch.autograd.grad(loss, cell.embed.weight)
        assert norms[r - 1] == pytest.approx(float(grad.norm()), rel=1e-5)
    assert len(set(np.round(norms, 8))) == 3  # the rounds differ: a real check


class CarryRule(nn.Module):
    """Chapter 1's rule as a DEQ update on a state (B, n, 2) = (carry in, propagate):
    the carry into bit i is g_{i-1} or (p_{i-1} and c_{i-1}). From z = 0, plain
    iteration has every carry right after L applications (L: the longest chain) and
    sees no change at the next: L + 1 iterations (2 when L = 0)."""

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        a, b = x[..., 0], x[..., 1]  # (B, n)
        g, p = a * b, a + b - 2 * a * b  # generate, propagate
        out = g + p * z[..., 0]  # (B, n): the carry out of each bit
        carry_in = F.pad(out[:, :-1], (1, 0))  # (B, n): shifted up one bit
        return torch.stack([carry_in, p], dim=-1)  # (B, n, 2)


class SumBit(nn.Module):
    """Readout: the sum bit c xor p, as a confident logit."""

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        c, p = z[..., 0], z[..., 1]
        return (20 * (c + p - 2 * c * p) - 10)[..., None]  # (B, n, 1)


def _rule_deq():
    from recur.models.deq import EquilibriumCell

    deq = EquilibriumCell(tol=1e-6)
    deq.cell.embed, deq.cell.readout = nn.Identity(), SumBit()
    deq.update = CarryRule().forward  # an instance attribute, over the method
    return deq


class Negated(nn.Module):
    """Every bit of ``model``'s answer flipped: wrong on every sum."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        out = self.model(bits, n_rounds)
        return Unroll(-out.logits, out.aux_loss)


def test_iterations_by_chain_counts_the_rule_by_hand():
    from recur.chapters.ch7_fixed_points import iterations_by_chain

    deq = _rule_deq()
    table = iterations_by_chain(deq, 8, [1, 3, 8], n_sums=20, methods=("iteration",))
    assert table["iterations"].tolist() == [2, 4, 9]  # L + 1, under the cap of 18
    assert table["converged"].all() and (table["exact"] == 1.0).all()


@pytest.mark.parametrize(
    "a, b",
    [("0111", "0001"), ("01111111", "00000001"), ("10110100", "01101101"), ("0", "0")],
)
def test_the_solver_walk_is_the_rule_round_by_round(a, b):
    """Chapter 7's explorer, on a DEQ whose update is the carry rule: after k
    iterations the readout is Chapter 1's rule after k rounds (carry out first), and
    the state moves in every iteration up to the longest chain and not after it. A
    walk that read the state before the update, or reported the fixed point at every
    iteration, differs."""
    from recur.core.carry import parallel_add
    from recur.models.running import solver_walk

    n_iter = 12
    walk = solver_walk(_rule_deq(), a, b, n_iter)
    rule = parallel_add(a, b, n_rounds=n_iter)
    for k in range(1, n_iter + 1):
        assert walk.loc[k, "readout"] == str(rule.carry_out(k)) + rule.readout(k), k
    chain = parallel_add(a, b).rounds_to_settle
    assert walk.loc[1, "change"] == pytest.approx(1.0) or a == b == "0"
    assert (walk.loc[: max(chain, 1), "change"] > 0).all() or a == b == "0"
    assert (walk.loc[chain + 1 :, "change"] == 0).all()
    with pytest.raises(ValueError, match="n_rounds"):
        solver_walk(_rule_deq(), a, b, 0)


def test_by_width_keeps_the_two_models_apart():
    from recur.chapters.ch7_fixed_points import by_width

    deq = _rule_deq()
    sizes = {8: 4100, 16: 30}  # 4,100 sums: two chunks of evaluate, the last small
    table = by_width(deq, Negated(_rule_deq()), sizes, seed=4)
    for n_bits, n_sums in sizes.items():
        batch = random_batch(n_sums, n_bits, seed=4 + n_bits)  # the sums it says
        longest = int(batch.distance.max())
        assert table.loc[n_bits, "longest chain"] == longest
        assert table.loc[n_bits, "solver iterations"] == max(longest, 1) + 1
        assert table.loc[n_bits, "DEQ exact"] == 1.0
        assert table.loc[n_bits, "unrolled exact"] == 0.0


class RightOnlyAt(nn.Module):
    """Fixed rounds: right after round ``k`` and wrong after every other round."""

    def __init__(self, k: int):
        super().__init__()
        self.k, self.dummy = k, nn.Parameter(torch.zeros(()))

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        truth = _rule_deq()(bits, 2 * bits.shape[1]).logits[0]  # (B, n): right
        rounds = [truth if r == self.k else -truth for r in range(1, n_rounds + 1)]
        return Unroll(torch.stack(rounds) + 0 * self.dummy, self.dummy * 0)


def test_exact_at_8_bits_reads_the_rounds_each_model_trained_with():
    from recur.studies import live

    # trained with 9 rounds (Chapter 2's cell), 18 (the DEQ cap), 16 (PonderNet cap)
    for training, rounds in (
        (live.CHAPTER2_CELL, 9),
        (live.CHAPTER7_DEQ, 18),
        (live.CHAPTER7_PONDERNET, 16),
    ):
        assert live.exact_at_8_bits(training, RightOnlyAt(rounds), seed=0) == 1.0
        assert live.exact_at_8_bits(training, RightOnlyAt(rounds - 1), seed=0) == 0.0


def test_step_size_by_hand():
    from recur.training.config import TrainConfig, step_size

    cosine = TrainConfig(lr=0.004, n_steps=100, lr_decay="cosine")
    assert step_size(1, cosine) == pytest.approx(0.004)  # the first step: all of lr
    assert step_size(51, cosine) == pytest.approx(0.002)  # half way: cos(pi/2) = 0
    assert step_size(100, cosine) == pytest.approx(
        0.004 * (1 - np.cos(np.pi / 100)) / 2
    )
    assert step_size(77, TrainConfig(lr=0.004, n_steps=100)) == 0.004  # no decay


def test_window_loss_by_hand():
    from recur.models.cell import window_loss

    zero, big = 0.0, 50.0  # a logit of 0 costs log 2; a right logit of 50 costs ~0
    logits = torch.tensor(
        [
            [[zero, zero], [zero, zero]],  # round 1
            [[big, -big], [zero, zero]],  # round 2: example 0 right, example 1 unsure
        ]
    )  # (R=2, B=2, n=2)
    target = torch.tensor([[1.0, 0.0], [1.0, 1.0]])  # (B, n)
    both = torch.ones(2)
    log2 = float(np.log(2))
    assert float(window_loss(logits, target, 1, both)) == pytest.approx(log2 / 2)
    assert float(window_loss(logits, target, 2, both)) == pytest.approx(3 * log2 / 4)
    only_second = torch.tensor([0.0, 1.0])  # example 0 held out: it must not count
    assert float(window_loss(logits, target, 1, only_second)) == pytest.approx(log2)
