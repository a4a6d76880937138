"""recur.chapters.ch7_pondernet: hand-computed halting distributions, rows that sum to
1, gradient checks, the truncated prior, sampling frequencies, and the UT with PonderNet
halting."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.chapters.ch7_pondernet import gradients_beside_act
from recur.core.tasks import random_batch
from recur.models.halting import PonderHalting
from recur.models.pondernet import (
    draws_per_sum,
    expected_loss,
    geometric_prior,
    halting_distribution,
    kl_to_prior,
    sample_halting,
)
from recur.models.ut import UniversalTransformer

D64 = torch.float64


def ponder_ut(**options) -> UniversalTransformer:
    """A UT of the default size that halts by PonderNet's rule (its defaults)."""
    return UniversalTransformer(halting=PonderHalting(), **options)


def test_halting_distribution_by_hand():
    p = halting_distribution(torch.tensor([0.1, 0.3, 0.8, 0.5], dtype=D64))
    # 0.1; 0.9 * 0.3; 0.9 * 0.7 * 0.8; the rest 0.9 * 0.7 * 0.2 at the last round
    want = torch.tensor([0.1, 0.27, 0.504, 0.126], dtype=D64)
    assert torch.allclose(p, want)
    half = halting_distribution(torch.tensor([0.5, 0.5, 0.5], dtype=D64))
    assert torch.allclose(half, torch.tensor([0.5, 0.25, 0.25], dtype=D64))
    assert halting_distribution(torch.tensor([0.7], dtype=D64)).item() == 1.0


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=12),
    st.integers(1, 3),
)
def test_every_row_sums_to_one(values, rows):
    lambdas = torch.tensor([values] * rows, dtype=D64)  # (rows, N)
    p = halting_distribution(lambdas)
    assert p.shape == lambdas.shape
    assert bool((p >= 0).all())
    assert torch.allclose(p.sum(dim=-1), torch.ones(rows, dtype=D64))


def test_gradients_check():
    gen = torch.Generator().manual_seed(0)
    lambdas = (0.05 + 0.9 * torch.rand(2, 5, generator=gen, dtype=D64)).requires_grad_()
    losses = torch.rand(2, 5, generator=gen, dtype=D64)
    assert torch.autograd.gradcheck(halting_distribution, (lambdas,))
    assert torch.autograd.gradcheck(
        lambda lam: expected_loss(halting_distribution(lam), losses), (lambdas,)
    )
    assert torch.autograd.gradcheck(
        lambda lam: kl_to_prior(halting_distribution(lam), 0.3), (lambdas,)
    )


def test_every_lambda_gets_a_gradient_unlike_act():
    """PonderNet's loss reaches every lambda_r, also those after the round where ACT
    would have halted (ACT: d rho / d h_r = 0 for r >= N, Chapter 5)."""
    lambdas = torch.tensor([0.1, 0.3, 0.8, 0.5], dtype=D64, requires_grad=True)
    losses = torch.tensor([1.0, 0.8, 0.2, 0.1], dtype=D64)
    expected_loss(halting_distribution(lambdas), losses).backward()
    assert bool((lambdas.grad[:3] != 0).all())
    assert lambdas.grad[3] == 0  # p_N takes what is left: lambda_N plays no part
    # by hand: dL/dlambda_3 = (1 - 0.1)(1 - 0.3)(L_3 - L_4) = 0.63 * 0.1 > 0, so the
    # gradient lowers lambda_3: going on to round 4 (loss 0.1) beats halting at 3 (0.2)
    assert math.isclose(lambdas.grad[2].item(), 0.063)


def test_gradients_beside_act_by_hand():
    """ACT (Chapter 5, h = 0.1, 0.3, 0.8, 0.5: N = 3): -1, -1, 0, 0. PonderNet, losses
    1.0, 0.8, 0.2, 0.1: dL/dlambda_r = P(reach r) (L_r - E[L | past r]); E past 3 =
    0.1, past 2 = 0.8 * 0.2 + 0.2 * 0.1 = 0.18, past 1 = 0.3 * 0.8 + 0.7 * 0.18 = 0.366:
    1.0 - 0.366 = 0.634; 0.9 (0.8 - 0.18) = 0.558; 0.63 (0.2 - 0.1) = 0.063; 0."""
    table = gradients_beside_act([0.1, 0.3, 0.8, 0.5], [1.0, 0.8, 0.2, 0.1])
    assert table.iloc[:, 0].tolist() == [-1.0, -1.0, 0.0, 0.0]
    want = [0.634, 0.558, 0.063, 0.0]
    assert table.iloc[:, 1].tolist() == pytest.approx(want, abs=1e-12)


def test_truncated_geometric_prior_by_hand():
    # 0.5, 0.25, 0.125 renormalised by 0.875: 4/7, 2/7, 1/7
    want = torch.tensor([4 / 7, 2 / 7, 1 / 7], dtype=D64)
    assert torch.allclose(geometric_prior(0.5, 3), want)
    assert torch.allclose(kl_to_prior(want, 0.5), torch.zeros((), dtype=D64))
    one_hot = torch.tensor([1.0, 0.0, 0.0], dtype=D64)
    assert math.isclose(kl_to_prior(one_hot, 0.5).item(), math.log(7 / 4))


def test_sampled_halting_frequencies():
    gen = torch.Generator().manual_seed(0)
    n = 20_000
    lambdas = torch.tensor([0.3, 0.5, 0.0], dtype=D64).expand(n, 3)
    rounds = sample_halting(lambdas, torch.rand(n, 3, generator=gen, dtype=D64))
    share = torch.bincount(rounds, minlength=3).double() / n
    want = halting_distribution(lambdas[0])  # 0.3, 0.35, 0.35
    assert torch.allclose(share, want, atol=0.015)
    assert sample_halting(torch.ones(4, 3), torch.rand(4, 3)).tolist() == [0, 0, 0, 0]
    assert sample_halting(torch.zeros(4, 3), torch.rand(4, 3)).tolist() == [2, 2, 2, 2]


def test_a_draw_below_lambda_halts_by_hand():
    lambdas = torch.tensor([[0.5, 0.5, 0.5]])
    assert sample_halting(lambdas, torch.tensor([[0.7, 0.2, 0.1]])).tolist() == [1]
    assert sample_halting(lambdas, torch.tensor([[0.5, 0.5, 0.9]])).tolist() == [2]


def test_a_sum_gets_the_same_draws_in_any_batch_or_chunk():
    batch = random_batch(6, 5, seed=3)
    whole = draws_per_sum(batch.bits, 4, seed=0)  # (6 sums, 6 positions, 4 rounds)
    assert whole.shape == (6, 6, 4)
    alone = draws_per_sum(batch.bits[4:5], 4, seed=0)
    assert torch.equal(whole[4:5], alone)
    shuffled = draws_per_sum(batch.bits.flip(0), 4, seed=0)
    assert torch.equal(shuffled.flip(0), whole)
    assert not torch.equal(draws_per_sum(batch.bits, 4, seed=1), whole)
    assert not torch.equal(whole[0], whole[1])  # different sums, different draws


def test_evaluation_does_not_depend_on_the_chunk():
    """A sum's halting round must not change with the chunk it lands in."""
    from recur.training.evaluate import evaluate

    torch.manual_seed(0)
    model = ponder_ut(window=1, floor=True, inject=True, position="relative")
    batch = random_batch(10, 5, seed=0)
    whole = evaluate(model, batch, 6).correct  # (1, 10)
    chunked = evaluate(model, batch, 6, chunk=3).correct
    assert torch.equal(whole, chunked)
    model.eval()
    steps = model(batch.bits, 6).steps  # (10, 6)
    assert torch.equal(steps[7:], model(batch.bits[7:], 6).steps)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: halting_distribution(torch.tensor([0.5, 1.5])), r"\[0, 1\]"),
        (lambda: halting_distribution(torch.zeros(3, 0)), "last axis"),
        (lambda: geometric_prior(0.0, 3), "lambda_p"),
        (lambda: geometric_prior(0.5, 0), "n_rounds"),
        (lambda: expected_loss(torch.ones(3), torch.ones(4)), "differ"),
        (lambda: PonderHalting(lambda_p=0.0), "lambda_p"),
        (lambda: PonderHalting(beta=-1.0), "beta"),
    ],
)
def test_bad_input_is_a_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_ponder_ut_trains_on_the_expected_loss_and_halts_by_sampling():
    torch.manual_seed(0)
    model = ponder_ut(window=1, floor=True, inject=True, position="relative")
    batch = random_batch(8, 5, seed=0)  # 5-bit operands: 6 positions
    out = model(batch.bits, 6)  # training mode: every round
    assert out.logits.shape == (6, 8, 6) and out.halting.shape == (6, 8, 6)
    keep = torch.tensor([1.0, 1, 0, 1, 1, 0, 1, 1])  # two examples held out
    p = halting_distribution(out.halting.movedim(0, -1))  # (B, n, R)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(
        out.logits, batch.target.expand(6, -1, -1), reduction="none"
    )
    rec = (p * bce.movedim(0, -1)).sum(-1).mean(-1)  # (B,)
    rule = model.options.halting
    prior = geometric_prior(rule.lambda_p, 6).float()
    reg = (p * (p.log() - prior.log())).sum(-1).mean(-1)  # (B,): KL by its definition
    manual = ((rec + rule.beta * reg) * keep).sum() / 6
    assert torch.allclose(model.task_loss(out, batch.target, keep, 1), manual)
    assert out.aux_loss.item() == 0  # every term is in task_loss, held-out ones out
    model.eval()
    first, second = model(batch.bits, 6), model(batch.bits, 6)
    assert first.logits.shape == (1, 8, 6)
    assert torch.equal(first.steps, second.steps)  # seeded: the same halting rounds
    assert bool(((first.steps >= 1) & (first.steps <= 6)).all())


@pytest.mark.parametrize("setting", [{"loss_window": 2}, {"aux_warmup": 10}])
def test_training_a_model_with_its_own_loss_refuses_settings_it_ignores(setting):
    from recur.training.config import TrainConfig
    from recur.training.loop import train

    model = ponder_ut(window=1, inject=True, position="relative")
    cfg = TrainConfig(n_steps=1, n_rounds=4, progress=False, **setting)
    with pytest.raises(ValueError, match="do not apply"):
        train(model, cfg)


def test_comparison_words_follow_the_numbers():
    from recur.pages.ch7_fixed_points import comparison_words

    values = {"PonderNet_exact_64": 0.95, "ACT_exact_64": 0.99,
              "PonderNet_chains_64": 0.9, "ACT_chains_64": 0.8,
              "PonderNet_slope": 0.5, "ACT_slope": 1.0}  # fmt: skip
    words = {"exact_64": "fewer", "chains_64": "more", "rate": 0.5}
    assert comparison_words(values) == words
    values["ACT_chains_64"] = 0.9
    assert comparison_words(values)["chains_64"] == "as many"


def test_the_settings_the_chapter_states_are_the_ones_that_train_and_measure():
    """Chapter 7 glues ``ponder_settings``: they must be what ``train_ponder`` and the
    study script use, and PonderNet's training has no runs without a carry while
    Chapter 6's procedure has them (the chapter says so)."""
    import inspect

    from recur.chapters.ch7_pondernet import ponder_settings, train_ponder
    from recur.studies import ch7_study

    said = ponder_settings()
    trains = inspect.signature(train_ponder).parameters["seed"].default
    model, run = train_ponder(seed=trains, n_steps=1, eval_every=1, progress=False)
    rule = model.options.halting
    assert (rule.lambda_p, rule.beta) == (said["lambda_p"], said["beta"])
    assert (run.config.n_rounds, run.config.chain_kill_share) == (
        said["cap"],
        said["kill_share"],
    )
    assert (said["lambda_p"], said["beta"], said["prior_untruncated"]) == (0.2, 0.01, 5)
    assert (said["cap"], said["steps"]) == (16, 1200)
    assert (said["kill_share"], said["act_kill_share"]) == (0.0, 0.5)
    study = inspect.signature(ch7_study.run).parameters
    ran = (study["n_sums"].default, study["long_chains"].default)
    assert ran == (said["random"], said["chains"]) == (500, 200)


def test_seeds_that_wait_count_only_the_learned_seeds_at_or_above_the_bar():
    import pandas as pd

    from recur.chapters.ch7_pondernet import seeds_that_wait

    runs = pd.DataFrame(
        {
            "exact at 8 bits": [1.0, 0.999, 0.995, 0.98, 1.0],
            "value": [0.2, 1.1, 0.5, 2.0, 0.49],
        }
    )  # the bar counts (0.5 is at it), the unlearned 2.0 does not
    found = seeds_that_wait(runs, learned_at=0.99, slope_bar=0.5)
    assert found == {"others": 2, "others_min": 0.5, "others_max": 1.1}
    none = seeds_that_wait(runs.iloc[[0, 4]], learned_at=0.99, slope_bar=0.5)
    assert none["others"] == 0 and math.isnan(none["others_min"])


def test_ranking_words_count_the_measures_act_leads():
    from recur.pages.ch7_fixed_points import ranking_words

    values = {"ACT_exact_64": 1.0, "PonderNet_exact_64": 0.968, "ACT_chains_64": 1.0,
              "PonderNet_chains_64": 0.985, "ACT_beyond_8": 0.05,
              "PonderNet_beyond_8": 5.1}  # fmt: skip
    assert ranking_words(values).startswith("came out ahead on all three measures")
    values["PonderNet_chains_64"] = 1.0  # a tie is not a lead
    assert ranking_words(values).startswith("came out ahead on 2 of the three")
    values["ACT_beyond_8"] = 6.0  # more steps beyond the carry is behind
    assert ranking_words(values).startswith("came out ahead on 1 of the three")


def test_ponder_model_is_chapter_6s_model_without_act_written_out_by_hand():
    """Chapter 7 trains PonderNet as Chapter 6 trains its model, less ACT's own
    options, reading pairs as sets and the no-carry chains (its comment says why)."""
    from recur.chapters.ch7_pondernet import PONDER
    from recur.models.ut import UTOptions
    from recur.training.ut_recipe import UTRecipe

    assert PONDER.model == UTOptions(
        d_model=32, n_heads=4, d_ff=64, window=1, inject=True, position="relative",
        round_signal=False, floor=True, pause=0.25,
        halting=PonderHalting(lambda_p=0.2, beta=0.01),
    )  # fmt: skip
    assert PONDER == UTRecipe(
        PONDER.model, n_rounds=16, chain_share=0.25, lr=3e-3, lr_decay="cosine",
        n_steps=1200, eval_every=100, stop_at_exact=None,
    )  # fmt: skip


def test_crossing_values_by_hand():
    """ACT runs d + 1 rounds at distances 0..4; PonderNet's two seeds run 3 and 5
    everywhere (mean 4): more than ACT at d = 0, 1, 2 (4 > 1, 2, 3), not at d = 3
    (4 = 4). The farthest quarter is d >= 3: seed means 3 and 5."""
    from recur.chapters.ch7_pondernet import crossing_values

    rows = [("ACT", 0, d, d + 1.0) for d in range(5)]
    rows += [("PonderNet", s, d, v) for s, v in ((0, 3.0), (1, 5.0)) for d in range(5)]
    distance = pd.DataFrame(
        rows, columns=["method", "seed", "carry distance", "mean steps"]
    )
    assert crossing_values(distance) == {
        "cross": 3,
        "far_from": 3,
        "far_min": 3.0,
        "far_max": 5.0,
    }
    always = distance.assign(**{"mean steps": distance["mean steps"] + 10 * (
        distance["method"] == "PonderNet")})  # fmt: skip
    assert crossing_values(always)["cross"] == 5  # never: one past the last distance
