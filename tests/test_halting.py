"""recur.models.halting: a halting rule is one object. A toy rule ("every position
halts after a fixed number of rounds") is added the way the README's "How to add a
halting rule" says, one class and one recipe, and trains through the book's own
trainer; the model, the loop and the trainer never ask which rule they hold."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from recur.core.tasks import random_batch
from recur.models.cell import Unroll
from recur.models.halting import ActHalting, HaltingRule, PonderHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer, UTOptions
from recur.training.ut_recipe import UTRecipe, train_ut

LOSSES_READ: list[tuple] = []  # the logits' shape each time training took a loss


@dataclasses.dataclass(frozen=True)
class HaltAfter(HaltingRule):
    """The toy rule: every position halts after ``rounds`` rounds (or the cap)."""

    rounds: int = 3

    def task_loss(self, out, target, keep, loss_window) -> torch.Tensor:
        LOSSES_READ.append(tuple(out.logits.shape))  # which readouts training reads
        return super().task_loss(out, target, keep, loss_window)

    def run(self, model, bits, n_rounds, start) -> Unroll:
        state, step, real = start
        n_run = min(self.rounds, n_rounds)
        for r in range(n_run):
            state = step(state, r)  # (B, n, d)
        logits = model.readout(state).squeeze(-1)[None, :, real]  # (1, B, n)
        steps = torch.full(logits.shape[1:], float(n_run), device=logits.device)
        return Unroll(logits, bits.new_zeros(()), steps)


TOY = UTRecipe(
    UTOptions(window=1, halting=HaltAfter(rounds=3)),
    n_rounds=6,
    n_steps=20,
    eval_every=10,
    stop_at_exact=None,
)


def test_a_toy_rule_added_by_its_recipe_trains_and_answers_after_its_rounds():
    LOSSES_READ.clear()
    torch.manual_seed(0)
    untrained = UniversalTransformer(TOY.model)
    model, run = train_ut(TOY.but(progress=False, eval_size=50), seed=0)
    assert list(run.history["step"]) == [10, 20]  # it trained all its steps
    assert LOSSES_READ == [(1, 64, 9)] * 20  # the rule's loss, on its one readout
    changed = [
        name
        for name, value in model.state_dict().items()
        if not torch.equal(value.cpu(), untrained.state_dict()[name])
    ]
    assert "readout.weight" in changed and "block.transition.0.weight" in changed
    # Oracle: the same weights without a rule, read out after round 3 of 6
    fixed = UniversalTransformer(dataclasses.replace(model.options, halting=None))
    fixed.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
    fixed.to(next(model.parameters()).device)
    bits = random_batch(5, 7, seed=1).bits
    out, every_round = run_model(model, bits, 6), run_model(fixed, bits, 6)
    assert out.logits.shape == (1, 5, 8)
    assert torch.equal(out.logits[0], every_round.logits[2])
    assert torch.equal(out.steps, torch.full((5, 8), 3.0))


def test_a_rule_without_a_unit_adds_no_weights():
    """A rule's unit is its own: with none, the model holds the fixed-round weights."""
    with_rule = UniversalTransformer(TOY.model)
    without = UniversalTransformer(dataclasses.replace(TOY.model, halting=None))
    assert with_rule.halting is None
    assert with_rule.state_dict().keys() == without.state_dict().keys()


def test_each_rule_draws_its_unit_where_its_chapter_did():
    """ACT's unit is drawn before the readout, PonderNet's after it, so a seed gives
    each model the weights its chapter measured: the readout of an ACT model from seed
    0 is the second linear layer drawn after the block, PonderNet's the first."""
    outs = {}
    for name, rule in (("act", ActHalting()), ("ponder", PonderHalting())):
        torch.manual_seed(0)
        outs[name] = UniversalTransformer(window=1, halting=rule)
    act, ponder = outs["act"], outs["ponder"]
    act_order = [name for name, _ in act.named_children()]
    assert act_order.index("halting") < act_order.index("readout")
    ponder_order = [name for name, _ in ponder.named_children()]
    assert ponder_order.index("readout") < ponder_order.index("halting")
    # the same draws, in the other order: ACT's unit got what PonderNet's readout got
    assert torch.equal(act.halting.linear.weight, ponder.readout.weight)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: ActHalting(eps=1.0), "eps"),
        (lambda: ActHalting(ponder_weight=-0.1), "ponder_weight"),
        (lambda: UTOptions(halting="act"), "HaltingRule"),
        (lambda: PonderHalting(beta=-1.0), "beta"),
    ],
)
def test_bad_rule_settings_fail_where_they_are_written(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_misspelt_rule_setting_fails_where_it_is_written():
    with pytest.raises(TypeError, match="ponder_wieght"):
        ActHalting(ponder_wieght=0.1)
