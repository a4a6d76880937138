"""The holding recipe's switches (``recur.training.holding``) and the saturation cost
by hand."""

from __future__ import annotations

import pytest
import torch

from recur.models.cell import LocalCell, saturation_loss
from recur.training import holding


def test_saturation_loss_by_hand():
    raw = torch.tensor([0.0, 1.0, -0.5, 0.5]).reshape(2, 1, 1, 2)  # (R, B, n, d)
    # 1 - s^2: 1, 0, 0.75, 0.75; their mean 0.625
    assert saturation_loss(raw).tolist() == pytest.approx([0.625])


def test_each_piece_can_be_left_out():
    assert holding.model_options() == {"snap": True, "hold_cost": holding.HOLD_COST}
    assert holding.model_options(("snap",))["snap"] is False
    assert holding.model_options(("hold",))["hold_cost"] == 0.0
    assert holding.training_options() == holding.CHAIN_TRAINING
    assert holding.training_options(("chains",)) == {}
    assert holding.deq_options()["saturation_cost"] == holding.SATURATION_COST
    assert holding.deq_options(("saturate",))["saturation_cost"] == 0.0
    with pytest.raises(ValueError, match="unknown pieces"):
        holding.model_options(("snapping",))


def test_the_costs_reach_the_loss_only_in_training():
    torch.manual_seed(0)
    cell = LocalCell(snap=True, hold_cost=1.0, saturation_cost=0.1)
    bits = torch.randint(0, 2, (3, 5, 2)).float()
    assert cell.train()(bits, 4).aux_loss.shape == (3,)
    assert float(cell.eval()(bits, 4).aux_loss) == 0.0
