"""The measurement layer of Chapters 2-6, checked against scripted models whose answers
are set by the test and against values worked out by hand or by Python integers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from recur.chapters import ch2_shared_update, ch6_check, ch7_fixed_points
from recur.chapters.ch2_shared_update import (
    _once_right_stays_right,
    chain_experiment,
    exact_by_round_and_width,
    exact_by_width,
    first_right_round,
    length_generalization,
    running_example_table,
    train_cell,
)
from recur.chapters.ch3_input_injection import ablation_summary, injection_ablation
from recur.chapters.ch6_check import budget_spent
from recur.chapters.ch6_measures import (
    act_length_table,
    halting_while_waiting,
    ponder_by_position,
    ponder_summary,
    ponder_vs_distance,
)
from recur.core import tasks
from recur.core.tasks import random_batch
from recur.models.act import mix_states
from recur.models.cell import RoundModel, Unroll
from recur.models.halting import ActHalting
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer, UTOptions
from recur.training import checked, loop
from recur.training.checked import STAY_ROUNDS, stays_right
from recur.training.config import TrainConfig
from recur.training.loop import train

ACT = ActHalting()  # ACT halting with its defaults


def _ints(bits: torch.Tensor) -> list[tuple[int, int]]:
    """(a, b) as Python integers for each row of bits (B, n, 2), LSB first."""
    rows = bits.long().tolist()
    return [
        tuple(sum(row[i][k] << i for i in range(len(row))) for k in (0, 1))
        for row in rows
    ]


def _sum_bits(bits: torch.Tensor) -> torch.Tensor:
    """(B, n) the true sum's bits, by Python integer addition."""
    n = bits.shape[1]
    return torch.tensor(
        [[((a + b) >> i) & 1 for i in range(n)] for a, b in _ints(bits)]
    ).float()


def _wait(a: int, b: int, n: int) -> list[int]:
    """Rounds until the carry into each of n positions is known to a rule reading one
    bit below per round: 1 + the run of propagating bits just below, or i if that run
    reaches bit 0 (nothing comes in under it); at least 1."""
    out = []
    for i in range(n):
        run = 0
        while run < i and ((a >> (i - 1 - run)) ^ (b >> (i - 1 - run))) & 1:
            run += 1
        out.append(max(1, i if run == i else run + 1))
    return out


def _ripple_distance(a: int, b: int, n: int) -> list[int]:
    """How far the carry into each of n positions travelled (0: no carry)."""
    out, run = [], 0
    for i in range(n):
        out.append(run)
        x, y = (a >> i) & 1, (b >> i) & 1
        run = 1 if x & y else (run + 1 if (x ^ y) and run else 0)
    return out


class Scripted(RoundModel):
    """Right after the rounds in ``right_at(n_positions)``, wrong (every bit flipped)
    after the others. With ``act``: one readout, and ACT steps = carry distance + 2
    (or ``at_zero`` steps where the distance is 0, if given)."""

    options = UTOptions()  # no 0 + 0 floor bit under bit 0, like the UT's default

    def __init__(self, right_at=lambda n: set(), act: bool = False, at_zero=None):
        super().__init__()
        self.right_at, self.act, self.at_zero = right_at, act, at_zero
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, bits: torch.Tensor, n_rounds: int, held_until=None) -> Unroll:
        # held positions change nothing here: the script ignores the state
        device = bits.device  # a model builds its tensors where its input is
        sign = _sum_bits(bits).to(device) * 2 - 1 + 0 * self.dummy  # (B, n)
        if self.act:
            n = bits.shape[1]
            steps = [_ripple_distance(a, b, n) for a, b in _ints(bits)]
            steps = torch.tensor(steps).float().to(device) + 2  # (B, n)
            if self.at_zero is not None:
                steps[steps == 2] = float(self.at_zero)
            rounds = torch.arange(1, int(steps.max()) + 1, device=device)
            rounds = rounds[:, None, None]  # (M, 1, 1)
            h = rounds / 100 + torch.arange(n, device=device) / 1000  # (M, 1, n)
            h = h.expand(-1, bits.shape[0], -1)  # (M, B, n)
            return Unroll(sign[None], self.dummy * 0, steps, h)
        right = self.right_at(bits.shape[1])
        rounds = [sign if r in right else -sign for r in range(1, n_rounds + 1)]
        return Unroll(torch.stack(rounds), self.dummy * 0)


# ----------------------------------------------------------- Chapters 2-3


def test_once_right_stays_right_by_hand():
    correct = torch.tensor(
        [  # rounds down, four sums across
            [True, False, False, True],
            [False, True, False, True],
            [True, True, False, True],
        ]
    )
    # sum 0 flips back (not stable), 1 and 3 stay, 2 is never right (not counted)
    assert _once_right_stays_right(correct) == pytest.approx(2 / 3)


def test_chain_experiment_first_right_and_stays_right():
    steady = chain_experiment(Scripted(lambda n: {3, 4, 5}), 8, [0, 4], 20, 5)
    assert steady.first_right.tolist() == [3, 3]
    assert steady.stays_right.tolist() == [1.0, 1.0]
    assert steady.exact.tolist() == [[0, 0, 1, 1, 1]] * 2
    flaky = chain_experiment(Scripted(lambda n: {2, 4}), 8, [0, 4], 20, 4)
    assert flaky.first_right.tolist() == [2, 2]
    assert flaky.stays_right.tolist() == [0.0, 0.0]
    assert flaky.right_at_end.tolist() == [1.0, 1.0]


def test_length_generalization_reads_the_named_round():
    """A model right only after exactly n + 1 rounds on n-bit sums (n + 1 positions):
    the "width + 1" column must read 100%, every other round 0%."""
    model = Scripted(lambda positions: {positions})  # n + 1 rounds for n bits
    table = length_generalization(
        model, {8: 30, 16: 30}, {"width + 1": 1.0, "half": 0.5}
    )
    assert table["rounds: width + 1"].tolist() == [9, 17]
    assert table["rounds: half"].tolist() == [4, 8]  # round(4.5) = 4, round(8.5) = 8
    assert table["exact: width + 1"].tolist() == [1.0, 1.0]
    assert table["exact: half"].tolist() == [0.0, 0.0]


def test_exact_by_round_and_width_by_hand():
    """Right only after round n + 1: each width's curve is 0 until its last round, 1
    there; the longest chain is the largest ripple distance in the same sample."""
    model = Scripted(lambda positions: {positions})
    curves, longest = exact_by_round_and_width(model, {4: 20, 8: 20}, seed=3)
    for n_bits in (4, 8):
        exact = curves[curves["bits"] == n_bits].set_index("round")["exact"]
        assert exact.index.tolist() == list(range(1, n_bits + 2))
        assert exact.tolist() == [0.0] * n_bits + [1.0]
        batch = random_batch(20, n_bits, seed=3 + n_bits)
        chains = [_ripple_distance(a, b, n_bits + 1) for a, b in _ints(batch.bits)]
        assert longest[n_bits] == max(max(c) for c in chains)


def _ablation_table(factor: int) -> pd.DataFrame:
    """A hand-made ablation table: exact match = round / 1000, one seed, 4 bits."""
    rounds = range(1, factor * 5 + 1)
    return pd.DataFrame(
        {
            "inject": True,
            "loss window": "1",
            "seed": 0,
            "bits": 4,
            "round": list(rounds),
            "exact": [r / 1000 for r in rounds],
            "train seconds": 1.0,
            "reached 100%": True,
        }
    )


def test_exact_by_width_reads_the_last_round():
    def rounds(n_bits):
        return 2 * (n_bits + 1)

    def last(n_positions):  # n_positions = n_bits + 1
        return {2 * n_positions}

    def before_last(n_positions):
        return {2 * n_positions - 1}

    right = exact_by_width(Scripted(last), [4, 8], 10, rounds, long_chains=6)
    assert right["rounds"].tolist() == [10, 18]
    assert right[["exact", "exact, long chains"]].to_numpy().tolist() == [[1, 1]] * 2
    wrong = exact_by_width(Scripted(before_last), [4, 8], 10, rounds)
    assert wrong["exact"].tolist() == [0.0, 0.0]


def test_ablation_summary_reads_width_plus_one_multiples():
    summary = ablation_summary(_ablation_table(4))
    row = summary.loc[(True, "1", 4)]
    assert (row["exact 1x"], row["exact 2x"], row["exact 4x"]) == (0.005, 0.01, 0.02)
    two = ablation_summary(_ablation_table(2)).loc[(True, "1", 4)]
    assert (two["exact 1x"], two["exact 2x"]) == (0.005, 0.01)
    assert "exact 4x" not in two


def test_ablation_with_a_smaller_test_factor_summarises():
    table = injection_ablation(
        [0], test_rounds_factor=2, widths=(4,), n_sums=10, n_steps=2, max_bits=4,
        eval_size=20,
    ).table  # fmt: skip
    assert table["round"].max() == 2 * 5
    assert list(ablation_summary(table).filter(like="exact").columns) == [
        "exact 1x",
        "exact 2x",
    ]


# ----------------------------------------------------------- training


def test_held_out_pairs_never_reach_the_loss(monkeypatch):
    seen = {}
    real_heldout, real_step = loop._heldout_exact, loop._step

    def spy_heldout(model, heldout, *args):
        seen["heldout"] = set(_ints(heldout.bits))
        return real_heldout(model, heldout, *args)

    def spy_step(model, opt, batch, keep, *args):
        seen.setdefault("steps", []).append((_ints(batch.bits), keep.tolist()))
        return real_step(model, opt, batch, keep, *args)

    monkeypatch.setattr(loop, "_heldout_exact", spy_heldout)
    monkeypatch.setattr(loop, "_step", spy_step)
    cfg = TrainConfig(
        max_bits=4, n_steps=20, eval_every=20, eval_size=60, progress=False
    )
    train(Scripted(lambda n: {5}), cfg)
    held, kept, dropped = seen["heldout"], 0, 0
    for pairs, keep in seen["steps"]:
        for pair, k in zip(pairs, keep, strict=True):
            assert k == (0.0 if pair in held else 1.0)
            kept, dropped = kept + k, dropped + (1 - k)
    assert dropped > 100 and kept > 100  # 4 bits: many draws hit the held-out pairs


def test_training_stops_on_the_whole_held_out_set(monkeypatch):
    """A model right on exactly the first 1,000 held-out pairs passes the screen but
    not the whole set: it must not stop, and it reports the whole set."""
    cfg = TrainConfig(max_bits=8, n_steps=4, eval_every=2, eval_size=3000,
                      stop_at_exact=0.99, progress=False)  # fmt: skip
    heldout, _ = loop.heldout_pairs(cfg)
    first = set(_ints(heldout.bits[:1000]))

    class RightOnFirst(Scripted):
        def forward(self, bits, n_rounds):
            sign = _sum_bits(bits).to(bits.device) * 2 - 1 + 0 * self.dummy
            right = torch.tensor([p in first for p in _ints(bits)])[:, None]
            right = right.to(bits.device)
            return Unroll(torch.where(right, sign, -sign)[None], self.dummy * 0)

    result = train(RightOnFirst(), cfg)
    expected = np.mean([p in first for p in _ints(heldout.bits)])
    assert result.seconds_to_target is None
    assert result.history["pairs"].tolist() == [3000, 3000]
    assert result.history["exact"].tolist() == pytest.approx([expected] * 2)


class FlipsOdd(Scripted):
    """Right after every round, except that sums with an odd ``a`` are wrong from
    round ``wrong_from`` on."""

    def __init__(self, wrong_from: int):
        super().__init__()
        self.wrong_from = wrong_from

    def forward(self, bits, n_rounds):
        sign = _sum_bits(bits).to(bits.device) * 2 - 1 + 0 * self.dummy  # (B, n)
        odd = torch.tensor([a % 2 == 1 for a, _ in _ints(bits)])[:, None]
        late = [r >= self.wrong_from for r in range(1, n_rounds + 1)]
        rounds = [torch.where(odd & w, -sign, sign) for w in late]
        return Unroll(torch.stack(rounds), self.dummy * 0)


def test_stays_right_by_hand():
    batch = random_batch(40, 6, seed=3)
    even = sum(a % 2 == 0 for a, _ in _ints(batch.bits)) / 40  # counted by hand
    model = FlipsOdd(wrong_from=5)
    assert stays_right(model, batch, 2, 4) == 1.0  # wrong only from round 5
    assert stays_right(model, batch, 2, 6) == pytest.approx(even)
    flicker = Scripted(lambda n: set(range(1, 11)) - {5})  # wrong in round 5 only
    assert stays_right(flicker, batch, 2, 10) == 0.0  # not only the last round
    assert stays_right(flicker, batch, 6, 10) == 1.0  # rounds before 6 do not count


def test_stays_right_refuses_rounds_out_of_order():
    batch = random_batch(4, 3, seed=0)
    for start, end in ((0, 5), (6, 5)):
        with pytest.raises(ValueError, match="from_round"):
            stays_right(Scripted(), batch, start, end)


def _scripted_cells(monkeypatch, models: list) -> list[int]:
    """Make ``train_cell`` build ``models`` in turn; the seeds it asked for."""
    seeds = []
    monkeypatch.setattr(checked, "seed_everything", seeds.append)
    monkeypatch.setattr(ch2_shared_update, "LocalCell", lambda: models[len(seeds) - 1])
    return seeds


CELL_SETTINGS = {"n_steps": 4, "eval_every": 2, "eval_size": 300, "progress": False}


def test_train_cell_goes_on_past_100_and_starts_again(monkeypatch):
    """First run: every held-out pair right after 9 rounds, but not after 12 (a check
    that fails at both steps); second run, from seed + 1000: right in every round."""
    drifts = Scripted(lambda n: set(range(9, 12)))
    seeds = _scripted_cells(monkeypatch, [drifts, Scripted(lambda n: set(range(99)))])
    cell = train_cell(seed=7, **CELL_SETTINGS)
    assert seeds == [7, 1007] and cell.attempts == 2 and cell.passed
    assert [(c.step, c.stays, c.passed) for c in cell.checks] == [
        (2, 0.0, False), (4, 0.0, False), (2, 1.0, True)
    ]  # fmt: skip
    assert cell.words().startswith(
        f"added all 300 held-out pairs after 2 steps and kept them right through "
        f"round {STAY_ROUNDS}, in 2 runs ("
    )


def test_train_cell_words_for_a_run_that_never_passes(monkeypatch):
    drifts = Scripted(lambda n: set(range(9, 12)))
    _scripted_cells(monkeypatch, [drifts, drifts, drifts])
    cell = train_cell(seed=0, **CELL_SETTINGS)
    assert cell.attempts == 3 and not cell.passed
    assert cell.words() == (
        "passed no check in 3 runs: after 4 steps it adds 100.00% of the 300 "
        "held-out pairs checked, and 0.00% of them stay right through round "
        f"{STAY_ROUNDS}"
    )
    _scripted_cells(monkeypatch, [Scripted()] * 3)  # never right: no check
    cell = train_cell(seed=0, **CELL_SETTINGS)
    assert cell.checks == [] and cell.words() == (
        "passed no check in 3 runs: after 4 steps it adds 0.00% of the 300 held-out "
        "pairs checked"
    )
    with pytest.raises(ValueError, match="max_attempts"):
        train_cell(max_attempts=0)


def test_train_deq_asks_the_pairs_to_be_right_with_a_cap_of_64(monkeypatch):
    """Chapter 2's procedure with the DEQ's check: first run right only when the
    solver stops at the trained cap of 18 (wrong at 64), second run right at any
    cap."""
    seeds = []
    monkeypatch.setattr(checked, "seed_everything", seeds.append)
    models = iter([Scripted(lambda n: {18}), Scripted(lambda n: set(range(99)))])
    monkeypatch.setattr(ch7_fixed_points, "EquilibriumCell", lambda: next(models))
    deq = ch7_fixed_points.train_deq(seed=5, **CELL_SETTINGS)
    assert seeds == [5, 1005] and deq.attempts == 2 and deq.passed
    assert [(c.step, c.stays) for c in deq.checks] == [(2, 0.0), (4, 0.0), (2, 1.0)]
    assert deq.run.config.n_rounds == 18 and deq.run.config.seed == 1005
    assert deq.words().startswith(
        "added all 300 held-out pairs after 2 steps and kept them right with a "
        "solver cap of 64, in 2 runs ("
    )
    models = iter([Scripted(lambda n: set(range(99))), Scripted()])
    first = ch7_fixed_points.train_deq(seed=5, **CELL_SETTINGS)
    assert first.attempts == 1 and first.passed  # no second run after a pass
    models = iter([Scripted(lambda n: {18}) for _ in range(2)])
    deq = ch7_fixed_points.train_deq(seed=5, **CELL_SETTINGS)
    assert deq.words() == (
        "passed no check in 2 runs: after 4 steps it adds 100.00% of the 300 "
        "held-out pairs checked, and 0.00% of them are right with a solver cap of 64"
    )


# ----------------------------------------------------------- Chapters 5-6


def test_mix_states_by_hand():
    """Chapter 5's example: weights .1, .3, .6 on states 1, 2, 3."""
    weights = torch.tensor([0.1, 0.3, 0.6])[:, None]  # (M, 1)
    states = torch.tensor([1.0, 2.0, 3.0])[:, None, None]  # (M, 1, 1)
    assert mix_states(weights, states, "mean_field").item() == pytest.approx(2.5)
    # 0.6 * 3 + 0.4 * (0.3 * 2 + 0.7 * (0.1 * 1)) = 2.068
    assert mix_states(weights, states, "interpolate").item() == pytest.approx(2.068)


def test_ponder_by_position_reads_the_model():
    batch = random_batch(40, 8, seed=3)
    steps, right = ponder_by_position(Scripted(act=True), batch, 12)
    expected = [_ripple_distance(a, b, 9) for a, b in _ints(batch.bits)]
    assert steps.tolist() == (np.array(expected) + 2).tolist()
    assert right.all()


def test_steps_beyond_the_carry_is_steps_minus_distance():
    """Scripted steps are d + 2 everywhere, so N - d = 2 at every position with d >= 1;
    mean steps = mean distance + 2, from Python's own ripple."""
    table = act_length_table(Scripted(act=True), [8, 16], 50, 20, seed=5)
    assert table["steps beyond the carry"].tolist() == [2.0, 2.0]
    for n_bits in (8, 16):
        batch = random_batch(50, n_bits, seed=5 + n_bits)
        d = [_ripple_distance(a, b, n_bits + 1) for a, b in _ints(batch.bits)]
        assert table.loc[n_bits, "mean steps"] == pytest.approx(np.mean(d) + 2)
        assert table.loc[n_bits, "longest chain"] == np.max(d)
    assert table["exact"].tolist() == [1.0, 1.0]


def test_ponder_fit_and_summary_by_hand():
    """Scripted steps are d + 2 where a carry arrives and 7 where none does: over the
    positions with a carry the line is exactly steps = d + 2, and every margin over d
    (at d >= 1) is 2; d = 0 shows up only as d0. Counts match Python's own ripple."""
    batch = random_batch(80, 8, seed=6)
    model = Scripted(act=True, at_zero=7)
    table, slope, intercept = ponder_vs_distance(model, batch, 20)
    assert slope == pytest.approx(1.0) and intercept == pytest.approx(2.0)
    summary = ponder_summary(table)
    assert summary["margin_min"] == pytest.approx(2.0)
    assert summary["margin_max"] == pytest.approx(2.0)
    assert summary["d0"] == pytest.approx(7.0) and summary["d1"] == pytest.approx(3.0)
    d = [x for a, b in _ints(batch.bits) for x in _ripple_distance(a, b, 9)]
    assert table["count"].to_dict() == {k: d.count(k) for k in sorted(set(d))}
    assert summary["dmax"] == max(d)


def test_halting_while_waiting_by_plain_loops():
    """Scripted: N = d + 2 and h = k/100 + i/1000 in round k at position i. Waiting
    means running (k <= N) with the carry-in not yet known (k < wait), where wait comes
    from a plain loop over the bits written here."""
    batch = random_batch(60, 8, seed=4)
    table, early = halting_while_waiting(Scripted(act=True), batch, 20)
    pairs = _ints(batch.bits)
    steps = [[d + 2 for d in _ripple_distance(a, b, 9)] for a, b in pairs]
    waits = [_wait(a, b, 9) for a, b in pairs]
    for k in range(1, 12):
        hs = [
            k / 100 + i / 1000
            for s, w in zip(steps, waits, strict=True)
            for i in range(9)
            if k <= s[i] and k < w[i]
        ]
        if not hs:
            assert k not in table.index
            continue
        assert table.loc[k, "waiting positions"] == len(hs)
        assert table.loc[k, "mean h while waiting"] == pytest.approx(np.mean(hs))
    flat = [
        (s < w)
        for ss, ws in zip(steps, waits, strict=True)
        for s, w in zip(ss, ws, strict=True)
    ]
    assert early == pytest.approx(np.mean(flat)) and early > 0


def test_halting_budget_used_while_waiting_by_plain_loops():
    """Scripted: h = k/100 + i/1000 in round k at position i, for rounds 1..M (M the
    most steps in the batch). A position whose carry-in is known in round w >= 2 has
    used h_1 + ... + h_{w-1} while waiting; the result is the largest such sum."""
    batch = random_batch(60, 8, seed=4)
    pairs = _ints(batch.bits)
    n_rounds = max(d + 2 for a, b in pairs for d in _ripple_distance(a, b, 9))
    spent = [
        sum(k / 100 + i / 1000 for k in range(1, min(w - 1, n_rounds) + 1))
        for a, b in pairs
        for i, w in enumerate(_wait(a, b, 9))
        if w >= 2
    ]
    got = budget_spent(run_model(Scripted(act=True), batch.bits, 20), batch)
    assert got == pytest.approx(max(spent))


def test_ponder_weight_scales_the_ponder_cost():
    bits = random_batch(4, 5, seed=0).bits
    costs = []
    for weight in (0.01, 0.5):
        torch.manual_seed(0)
        model = UniversalTransformer(
            d_model=8, n_heads=2, d_ff=16, halting=ActHalting(ponder_weight=weight)
        )
        costs.append(model(bits, 6).aux_loss.item())
    assert costs[1] / costs[0] == pytest.approx(50, rel=1e-5)


def test_running_example_table_by_hand():
    """0111 + 0001 = 01000. The rule's readouts by hand: 00100, 00000, then 01000 from
    round 3. A model right only after rounds 2 and 4-5 (every bit flipped otherwise)
    reads 10111 in round 1; its first round from which it stays right is 4."""
    model = Scripted(right_at=lambda n: {2, 4, 5})
    table = running_example_table({"m": model}, "0111", "0001", rounds=[1, 2, 3, 4, 5])
    assert table["exact rule"].tolist() == [
        "00100 ✗",
        "00000 ✗",
        "01000 ✓",
        "01000 ✓",
        "01000 ✓",
    ]
    assert table["m"].tolist() == [
        "10111 ✗",
        "01000 ✓",
        "10111 ✗",
        "01000 ✓",
        "01000 ✓",
    ]
    assert first_right_round(table) == {"exact rule": 3, "m": 4}
    assert first_right_round(table.loc[[1, 3]]) == {"exact rule": 3, "m": None}
    with pytest.raises(ValueError, match="rounds"):
        running_example_table({}, "0111", "0001", rounds=[])
    with pytest.raises(ValueError, match="rounds"):
        running_example_table({}, "0111", "0001", rounds=[0, 1])


def _wait_by_hand(a: list[int], b: list[int]) -> list[int]:
    """Rounds before a one-bit-per-round rule can know the carry into each position:
    i - j for the highest non-propagating bit j below i, else i (nothing comes in
    under bit 0); at least 1. A plain loop, not the library's cumulative maximum."""
    waits = []
    for i in range(len(a)):
        stops = [j for j in range(i) if a[j] == b[j]]
        waits.append(max(1, i - stops[-1] if stops else i))
    return waits


def test_halted_before_the_carry_counts_positions_that_stopped_too_soon():
    """Scripted steps: d + 2 where a carry arrives (never early, since the wait there
    is d), 1 where none does (early exactly where the wait is 2 or more)."""
    table = act_length_table(Scripted(act=True, at_zero=1), [8], 60, 20, seed=7)
    batch = random_batch(60, 8, seed=7 + 8)  # the table's sums: seed + width
    early = []
    for a, b in _ints(batch.bits):
        d = _ripple_distance(a, b, 9)
        bits_a = [(a >> i) & 1 for i in range(9)]
        bits_b = [(b >> i) & 1 for i in range(9)]
        waits = _wait_by_hand(bits_a, bits_b)
        steps = [di + 2 if di else 1 for di in d]
        early += [s < w for s, w in zip(steps, waits, strict=True)]
    assert 0 < np.mean(early) < 1  # the sample has both kinds
    assert table.loc[8, "halted before the carry"] == pytest.approx(np.mean(early))


def test_chapter_7_study_summary_takes_the_worst_seed_and_the_mean_steps():
    from recur.chapters.ch7_pondernet import study_summary

    rows = [  # method, seed, bits, exact, long chains, mean steps, beyond
        ("ACT", 0, 8, 1.0, 1.0, 2.0, 0.1),
        ("ACT", 1, 8, 0.9, 0.8, 4.0, 0.3),
        ("PonderNet", 0, 8, 0.5, 0.7, 6.0, 4.0),
        ("PonderNet", 1, 8, 0.6, 0.4, 8.0, 2.0),
    ]
    columns = ["method", "seed", "bits", "exact", "exact, long chains",
               "mean steps", "steps beyond the carry"]  # fmt: skip
    summary = study_summary(pd.DataFrame(rows, columns=columns))
    assert summary.loc[8, ("exact", "ACT")] == 0.9  # worst seed
    assert summary.loc[8, ("exact, long chains", "PonderNet")] == 0.4
    assert summary.loc[8, ("mean steps", "ACT")] == 3.0  # mean over seeds
    assert summary.loc[8, ("steps beyond the carry", "PonderNet")] == 3.0
    from recur.chapters.ch7_pondernet import SUMMARY_HEADERS

    headers = summary.rename(columns=SUMMARY_HEADERS, level=0).columns.levels[0]
    assert all(("worst seed" in h) != ("mean of seeds" in h) for h in headers)


def test_halted_before_the_carry_on_long_chains_by_hand():
    """The same count on the long-chain sums (where a failing run stops too
    soon is on the long chains): scripted steps, waits by a plain loop."""
    from recur.core.tasks import long_chain_batch

    table = act_length_table(
        Scripted(act=True, at_zero=1), [8], 10, 20, seed=7, long_chains=40
    )
    batch = long_chain_batch(40, 8, seed=7 + 8)  # the table's long chains
    early = []
    for a, b in _ints(batch.bits):
        d = _ripple_distance(a, b, 9)
        waits = _wait_by_hand(
            [(a >> i) & 1 for i in range(9)], [(b >> i) & 1 for i in range(9)]
        )
        steps = [di + 2 if di else 1 for di in d]
        early += [s < w for s, w in zip(steps, waits, strict=True)]
    assert 0 < np.mean(early) < 1
    column = "halted before the carry, long chains"
    assert table.loc[8, column] == pytest.approx(np.mean(early))


def test_shortfalls_name_each_width_that_misses_the_bar_by_hand():
    """Chapter 6's bar: 99% random, 97% long chains, at most 0.5 steps beyond the
    carry at 8 bits; the widths that miss it, written out by hand."""
    from recur.studies.seed_study import act_succeeded, shortfalls

    table = pd.DataFrame(
        {"exact": [1.0, 0.995, 0.98, 1.0], "exact, long chains": [1.0, 0.96, 1.0, 0.97],
         "steps beyond the carry": [0.6, 0.0, 0.0, 0.0]},
        index=pd.Index([8, 16, 32, 64], name="bits"),
    )  # fmt: skip
    assert shortfalls(table) == ["16 bits", "32 bits", "8 bits (it halts too late)"]
    table.loc[8, "steps beyond the carry"] = 0.5  # at the bar is within it
    table.loc[[16, 32], ["exact", "exact, long chains"]] = 0.99, 0.97
    assert shortfalls(table) == [] and act_succeeded(table)


def test_ablation_factors_are_the_powers_of_two_every_width_reached():
    from recur.chapters.ch3_input_injection import ablation_factors

    # 8 bits reached round 36 = 4 x 9; 16 bits round 51 = 3 x 17: every width reached 2x
    table = pd.DataFrame({"bits": [8, 8, 16, 16], "round": [1, 36, 1, 51]})
    assert ablation_factors(table) == [1, 2]


def test_length_table_reads_the_rounds_each_name_asks_for():
    from recur.chapters.ch2_shared_update import length_table

    rounds = range(1, 10)
    curves = pd.DataFrame(
        {"bits": 8, "round": list(rounds), "exact": [r / 10 for r in rounds]}
    )
    table = length_table(curves, {8: 5}, {8: 100}, {"half": 0.5, "most": 0.95})
    row = table.loc[8]  # indexed by width
    # half of n + 1 = 9 rounds is 4.5, rounded to 4 (Python rounds half to even)
    assert row["rounds: half"] == 4 and row["exact: half"] == 0.4
    assert row["rounds: most"] == 9 and row["exact: most"] == 0.9  # 8.55 rounds up
    assert row["longest chain"] == 5 and row["sums"] == 100


def test_the_check_keeps_the_worse_beyond_of_long_chains_and_random_sums(monkeypatch):
    """The check's steps beyond the carry: the larger of its long chains' and of
    1,000 random 8-bit sums' (seeded seed + 4,000,037), as the bar measures it on
    random sums."""

    drawn, real = [], tasks.random_batch
    monkeypatch.setattr(
        ch6_check, "random_batch", lambda *a, **k: drawn.append((a, k)) or real(*a, **k)
    )
    beyond = iter([0.1, 0.7])  # long chains first, then the random sums
    monkeypatch.setattr(
        ch6_check, "beyond_the_carry", lambda steps, batch: next(beyond)
    )
    rings = []  # a scripted model cannot run as a ring: record the call instead
    monkeypatch.setattr(
        ch6_check, "halting_in_a_ring", lambda *args: rings.append(args[1:]) or 0.25
    )
    row = {"step": 700, "exact": 1.0, "pairs": 10_000}
    check = ch6_check.act_check(Scripted(act=True), row, seed=5)
    assert drawn == [((1000, 8), {"seed": 4_000_042})]
    assert check.beyond == 0.7
    assert rings == [(8, 64)] and check.ring == 0.25  # 8 + 56 rounds, 8 pairs


def test_propagating_rings_are_every_pattern_of_1_plus_0_and_0_plus_1_by_hand():
    from recur.chapters.ch6_check import propagating_rings

    rings = propagating_rings(2)  # (4, 2, 2): pattern k has a = the bits of k
    assert rings.tolist() == [
        [[0, 1], [0, 1]],
        [[1, 0], [0, 1]],
        [[0, 1], [1, 0]],
        [[1, 0], [1, 0]],
    ]
    assert (propagating_rings(8).sum(-1) == 1).all()  # every pair propagates
    assert len(propagating_rings(8).unique(dim=0)) == 256
    with pytest.raises(ValueError, match="n_bits"):
        propagating_rings(0)


@pytest.mark.parametrize(
    "h, n_rounds, expected",
    [(0.01, 64, 0.64), (0.01, 16, 0.16), (0.01, 128, 1.0), (0.3, 64, 1.0)],
)
def test_halting_in_a_ring_sums_h_over_the_rounds_by_hand(h, n_rounds, expected):
    """A halting unit that says ``h`` whatever it sees: n_rounds * h of the budget,
    at most 1 (0.3 halts in round 4: 1.2, counted as 1)."""
    from recur.chapters.ch6_check import halting_in_a_ring

    torch.manual_seed(0)
    model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1, halting=ACT,
                                 position="relative", floor=True).eval()  # fmt: skip
    torch.nn.init.zeros_(model.halting.linear.weight)
    torch.nn.init.constant_(model.halting.linear.bias, float(np.log(h / (1 - h))))
    assert halting_in_a_ring(model, 4, n_rounds) == pytest.approx(expected, abs=1e-4)
    fixed = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1,
                                 position="relative")  # fmt: skip
    with pytest.raises(ValueError, match="ACT"):
        halting_in_a_ring(fixed, 4, 8)


def test_delayed_carries_hold_each_runs_lowest_waiting_position(monkeypatch):
    """``delayed_right`` holds, for ``delay`` rounds, each position whose carry-in is
    known in round 2. By hand: bit kinds from bit 0 up kill, propagate, propagate,
    generate, propagate x3, kill; positions 2 and 5 wait two rounds (3 and 6 with the
    floor bit below bit 0); the cap is 2(8 + 1) + delay for these 8-bit sums."""
    from recur.core.tasks import batch_from_strings

    seen, caps = [], []
    real_run = ch6_check.run_model

    def spy(m, bits, cap, held_until):
        seen.append(held_until)
        caps.append(cap)
        return real_run(m, bits, cap, held_until=held_until)

    monkeypatch.setattr(ch6_check, "run_model", spy)
    batch = batch_from_strings([("00111010", "01001100")])  # MSB first
    for floor, places in [(False, [2, 5]), (True, [3, 6])]:
        model = UniversalTransformer(d_model=8, n_heads=2, d_ff=16, window=1,
                                     halting=ACT, floor=floor)  # fmt: skip
        right, steps = ch6_check.delayed_right(model, batch, 5)
        expected = torch.zeros(1, 9 + floor, dtype=torch.long)
        expected[0, places] = 5
        assert torch.equal(seen[-1], expected)
        assert right.shape == (1,) and steps.shape == (1, 9)
    assert caps == [18 + 5, 18 + 5]


def test_act_check_by_hand(monkeypatch):
    """Chapter 6's training check on the scripted ACT model (always right; steps =
    carry distance + 2, or 1 where no carry comes in): the held-out share is the
    training row's only when that row covered every held-out pair; long chains all
    right; exactly 2 steps beyond the carry (positions with a carry only); the budget
    used on the check's own long chains (seed + 2,000,003) by plain loops, as in the
    test above."""
    from recur.core.tasks import long_chain_batch

    drawn = []
    monkeypatch.setattr(
        ch6_check,
        "long_chain_batch",
        lambda *a, **k: drawn.append((a, k)) or long_chain_batch(*a, **k),
    )

    monkeypatch.setattr(
        ch6_check, "halting_in_a_ring", lambda *args: 0.0
    )  # no ring here
    chains = long_chain_batch(1000, 8, seed=5 + 2_000_003)
    pairs = _ints(chains.bits)
    n_rounds = max(d + 2 for a, b in pairs for d in _ripple_distance(a, b, 9))
    spent = max(
        sum(k / 100 + i / 1000 for k in range(1, min(w - 1, n_rounds) + 1))
        for a, b in pairs
        for i, w in enumerate(_wait(a, b, 9))
        if w >= 2
    )
    row = {"step": 700, "exact": 0.97, "pairs": 10_000}
    check = ch6_check.act_check(Scripted(act=True, at_zero=1), row, seed=5)
    assert drawn == [  # apart from every test set
        ((1000, 8), {"seed": 2_000_008}),
        ((1000, 8), {"seed": 3_000_022, "kill_share": 0.5}),
    ]
    assert (check.step, check.heldout, check.long_chains) == (700, 0.97, 1.0)
    assert check.beyond == pytest.approx(2.0)  # positions with a carry only
    assert check.budget_used == pytest.approx(spent)
    assert check.delayed == 1.0  # the scripted model ignores holds: always right
    too_few = ch6_check.act_check(Scripted(act=True), row | {"pairs": 9_999}, seed=5)
    assert too_few.heldout == 0.0


def _waiting(seed: int, h_by_round: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"seed": seed, "round": range(1, len(h_by_round) + 1),
                         "mean h while waiting": h_by_round})  # fmt: skip


def test_clock_words_by_hand():
    """Three seeds worked by hand: seed 0 small (0.01) through round 8, 0.5 in round
    12 (late); seed 1 0.6 in rounds 1 and 2, its running sum 1.2 >= 0.99 in round 2
    (halts); seed 2 0.002 everywhere (never)."""
    from recur.chapters.ch6_measures import clock_kind
    from recur.pages.ch6_act_ut import clock_words

    late = [0.01] * 8 + [0.02, 0.05, 0.1, 0.5]
    halts = [0.6, 0.6]
    never = [0.002] * 12
    assert clock_kind(pd.Series(late, index=range(1, 13))) == ("late", 0.5, 12)
    assert clock_kind(pd.Series(halts, index=[1, 2])) == ("halts", 0.6, 2)
    assert clock_kind(pd.Series(never, index=range(1, 13)))[0] == "never"
    high = pd.Series([0.3] + [0.01] * 11, index=range(1, 13))  # sum 0.41: no halt
    assert clock_kind(high) == ("high", 0.3, 1)
    table = pd.concat([_waiting(0, late), _waiting(1, halts), _waiting(2, never)])
    assert clock_words(table) == (
        "differs from seed to seed. In one seed it stays below 0.1 up to round 8 and "
        "then grows, up to 0.50, as if the halting units read the round off the "
        "signal. In "
        "another seed it reaches 0.60 and its running sum passes 0.99 by round 2, so "
        "the positions halt long before their carry. In the third seed it stays below "
        "0.1 in every round"
    )
    both = pd.concat([_waiting(0, never), _waiting(1, never)])
    assert clock_words(both) == "in both seeds it stays below 0.1 in every round"
    three = pd.concat([_waiting(s, never) for s in range(3)])
    assert clock_words(three).startswith("in all three seeds it stays below")
    two_kinds = pd.concat([_waiting(0, never), _waiting(1, late), _waiting(2, late)])
    assert clock_words(two_kinds).startswith(
        "differs from seed to seed. In one seed it stays below 0.1 in every round. In "
        "the other two seeds it stays below 0.1 up to round 8"
    )


def test_named_rows_name_the_ablations_rows_as_the_prose_does():
    import pandas as pd

    from recur.chapters.ch3_input_injection import named_rows

    # the study table holds the final-round loss as "1" beside "all" (a text column)
    rows = [(True, "1", 8), (False, "all", 32), (True, 1, 16)]
    index = pd.MultiIndex.from_tuples(rows, names=["inject", "loss window", "bits"])
    named = named_rows(pd.DataFrame({"exact 1x": [1.0, 0.5, 0.25]}, index=index))
    assert list(named.index) == [
        ("yes", "final round", 8),
        ("no", "every round", 32),
        ("yes", "final round", 16),
    ]
    assert list(named.index.names) == ["injected", "loss on", "bits"]
    assert named["exact 1x"].tolist() == [1.0, 0.5, 0.25]
