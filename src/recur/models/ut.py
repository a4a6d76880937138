r"""The Universal Transformer block (Dehghani et al., arXiv 1807.03819, Section 2.1).

One block, shared by every round:

    A^r = LayerNorm((H^{r-1} + P^r) + MultiHeadSelfAttention(H^{r-1} + P^r))   (Eq. 5)
    H^r = LayerNorm(A^r + Transition(A^r))                                    (Eq. 4)

with the transition a position-wise ReLU feed-forward layer, and the coordinate signal

    P^r_{i,2j}   = sin(i / 10000^{2j/d_model}) + sin(r / 10000^{2j/d_model})
    P^r_{i,2j+1} = cos(i / 10000^{2j/d_model}) + cos(r / 10000^{2j/d_model})  (Eqs. 6-7)

added before every round (tensor2tensor can learn the timestep part instead; this
library uses the paper's sinusoid). The paper writes t for the round and d for the model
width; this book writes r and d_model. The paper counts positions i and rounds from 1;
this code counts both from 0: its (i, r) is the paper's position i + 1 in round r + 1,
and there it evaluates the same sinusoids at i and r, each argument one less than in
the paper's P^{r+1} at position i + 1. For Chapter 6's
length study the position part can also be left out (``position="none"``), shifted by a
random offset at each training step (``position_offsets``; shifted positions as in
SHAPE, Kiyono et al., arXiv 2109.05644), or replaced by a learned bias of each head's
attention scores for each relative offset i - j (``position="relative"``, in the manner
of T5's relative attention bias, Raffel et al., arXiv 1910.10683, Section 2.1), which
says which key is "below" at any length. ``round_signal=False`` drops the timestep
part, so the layer cannot count its rounds. With ``inject=True`` the state starts at
zero and the embedded bits are added before every round (input injection, Chapter 3;
Looped Transformers, arXiv 2311.12424).

Attention is full, or local: each position sees itself and the ``window`` positions
below it, like the carry rule, so a carry can then move at most ``window`` positions per
round.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import torch
from torch import nn

from recur.models.attention import (
    MAX_OFFSET,
    UTBlock,
    local_mask,
    position_table,
    sinusoid,
)
from recur.models.cell import RoundModel, Unroll, check_bits_tensor, check_rounds
from recur.models.halting import HaltingRule, Start


@dataclass(frozen=True)
class UTOptions:
    """Every option of :class:`UniversalTransformer`, with its default. Chapter 6's
    model is ``UTOptions(window=1, halting=ActHalting(ponder_weight=0.1, noise=2.0,
    train_rows_only=True), position="relative", inject=True, round_signal=False,
    floor=True, pause=0.25, pair_as_set=True)``
    (:data:`recur.training.ut_recipe.BOOK_ACT`)."""

    d_model: int = 32
    n_heads: int = 4
    d_ff: int = 64
    window: int | None = None  # local attention: itself and this many positions below
    # when each position stops (recur.models.halting): None runs the rounds asked for
    halting: HaltingRule | None = None
    position: str = "sinusoid"  # "sinusoid", "none" or "relative" (a learned bias)
    position_offsets: int = 0  # training shifts the sinusoid by up to this many
    inject: bool = False  # re-feed the embedded bits before every round
    round_signal: bool = True  # False: no timestep part in P^r
    floor: bool = False  # a 0 + 0 bit under bit 0, read out by no one
    banded: bool = True  # a local window runs banded, not masked, attention
    pause: float = 0.0  # in training, each position skips a round with this chance
    # read each pair as a set, (min, max): 1 + 0 and 0 + 1 give the model one input,
    # as they give addition one carry
    pair_as_set: bool = False

    def __post_init__(self) -> None:
        if self.d_model % 2 or self.d_model % self.n_heads:
            raise ValueError(
                f"d_model ({self.d_model}) must be even and divisible by n_heads"
            )
        if self.position not in ("sinusoid", "none", "relative"):
            raise ValueError(
                "position must be 'sinusoid', 'none' or 'relative', "
                f"got {self.position!r}"
            )
        if self.position_offsets < 0:
            raise ValueError(
                f"position_offsets must be >= 0, got {self.position_offsets}"
            )
        if not 0 <= self.pause < 1:
            raise ValueError(f"pause must be in [0, 1), got {self.pause}")
        if self.halting is not None and not isinstance(self.halting, HaltingRule):
            raise ValueError(f"halting must be a HaltingRule or None: {self.halting!r}")


class UniversalTransformer(RoundModel):
    """A UT encoder for binary addition: embed the bits, run the shared block, read out
    each position's sum bit. Fixed rounds, or a halting rule per position
    (``halting=ActHalting()``: ACT; ``PonderHalting()``: PonderNet)."""

    def __init__(self, options: UTOptions | None = None, **changes):
        """``options``, with ``changes`` to any of its fields (``window=1``)."""
        super().__init__()
        options = replace(options or UTOptions(), **changes)
        self.options = options  # the one place every option is read from
        d_model, n_heads = options.d_model, options.n_heads
        self.embed = nn.Linear(2, d_model)
        self.block = UTBlock(d_model, n_heads, options.d_ff)
        rule = options.halting
        self.halting = None  # the halting rule's own unit, if any
        if rule is not None and rule.unit_before_readout:
            self.halting = rule.unit(d_model)
        self.relative = None  # (H, offsets): a learned score bias per relative offset
        if options.position == "relative":
            self.relative = nn.Parameter(torch.zeros(n_heads, 2 * MAX_OFFSET + 1))
        self.readout = nn.Linear(d_model, 1)
        if rule is not None and not rule.unit_before_readout:
            self.halting = rule.unit(d_model)
        self.attend = self._attention_path()  # (x, n, ring) -> the block's output

    def _attention_path(self):
        """The attention every round runs, chosen once from the options: banded for a
        local window (the same function as the masked one, O(n w) instead of
        O(n^2)) unless ``banded=False``; else masked, with the relative bias if any."""
        options = self.options
        if options.banded and options.window is not None:
            return self._banded_attention
        if self.relative is not None:
            return self._relative_attention
        return self._masked_attention

    def _banded_attention(self, x: torch.Tensor, n: int, ring: bool) -> torch.Tensor:
        window, bias = self.options.window, self.window_bias()  # bias: (H, w + 1)
        return self.block(x, window=window, bias=bias, ring=ring)  # (B, n, d)

    def _relative_attention(self, x: torch.Tensor, n: int, ring: bool) -> torch.Tensor:
        mask = self.attention_bias(n, x.shape[0], x.device)  # (B * H, n, n)
        return self.block(x, mask)  # (B, n, d)

    def _masked_attention(self, x: torch.Tensor, n: int, ring: bool) -> torch.Tensor:
        return self.block(x, local_mask(n, self.options.window, x.device))

    def signal(self, n: int, r: int, device, offset: int = 0) -> torch.Tensor | None:
        """P^r for positions 0..n-1 (Eqs. 6-7; the position part shifted by
        ``offset``, drawn for each forward pass while training with
        ``position_offsets``), timestep part sinusoidal, built on ``device``; ``None``
        when there is no signal to add."""
        d_model, round_signal = self.options.d_model, self.options.round_signal
        if self.options.position == "sinusoid":
            table = position_table(n + offset, d_model, device)
            position = table[offset:]  # (n, d)
        elif not round_signal:
            return None  # no position part, no round part
        else:
            position = torch.zeros(n, d_model, device=device)  # (n, d)
        if not round_signal:  # the shared layer cannot tell the rounds apart
            return position
        return position + position_table(r + 1, d_model, device)[r]  # (n, d)

    def step(
        self,
        state: torch.Tensor,
        r: int,
        problem: torch.Tensor | None = None,
        rows: torch.Tensor | None = None,
        batch_size: int | None = None,
        held_until: torch.Tensor | None = None,
        ring: bool = False,
        offset: int = 0,
    ) -> torch.Tensor:
        """One round: H^r from H^{r-1}; with injection the embedded bits ``problem``
        are added too, as in Chapter 3's cell: ``H^r = Block(H^{r-1} + P^r + E)``,
        through the attention chosen at construction (:meth:`_attention_path`).
        ``rows``: ``state`` holds only these rows (sums) of the batch of
        ``batch_size`` (ACT's ``rows_only``: when measuring, or ``train_rows_only``).
        ``offset`` shifts the position signal (:meth:`signal`). ``held_until`` and
        ``ring``: see :meth:`forward`."""
        if rows is not None and problem is not None:
            problem = problem[rows]  # (b, n, d)
        n = state.shape[1]
        x = state
        signal = self.signal(n, r, state.device, offset)
        if signal is not None:
            x = x + signal  # (B, n, d)
        if problem is not None:
            x = x + problem  # (B, n, d): input injection
        new_state = self.attend(x, n, ring)  # (B, n, d)
        pause = self.options.pause
        if self.training and pause:  # paused positions keep H^{r-1}
            # drawn for every row of the batch, so the draws do not depend on ``rows``
            all_rows = state.shape[0] if batch_size is None else batch_size  # B
            paused = torch.rand(all_rows, n, device=state.device) < pause  # (B, n)
            paused = paused if rows is None else paused[rows]  # (b, n)
            new_state = torch.where(paused[..., None], state, new_state)  # (B, n, d)
        if held_until is not None and r >= 1:
            held_until = held_until if rows is None else held_until[rows]
            held = held_until >= r  # (B, n): held after its first round
            new_state = torch.where(held[..., None], state, new_state)  # (B, n, d)
        return new_state

    def window_bias(self) -> torch.Tensor | None:
        """The learned relative bias for the key slots i - window .. i of banded
        attention, (H, window + 1); ``None`` without ``position="relative"``."""
        if self.relative is None:
            return None
        slots = torch.arange(self.options.window, -1, -1, device=self.relative.device)
        return self.relative[:, slots.clamp(max=MAX_OFFSET) + MAX_OFFSET]  # (H, w+1)

    def attention_bias(self, n: int, batch_size: int, device) -> torch.Tensor:
        """Float attention mask for ``position="relative"``: each head's learned bias
        for the offset i - j (clipped to +-MAX_OFFSET); -inf where the window forbids.
        """
        i = torch.arange(n, device=device)
        offset = (i[:, None] - i[None, :]).clamp(-MAX_OFFSET, MAX_OFFSET)  # (n, n)
        bias = self.relative[:, offset + MAX_OFFSET]  # (H, n, n)
        blocked = local_mask(n, self.options.window, device)
        if blocked is not None:
            bias = bias.masked_fill(blocked, float("-inf"))
        return bias.repeat(batch_size, 1, 1)  # (B * H, n, n), batch-major as MHA wants

    def prepare(
        self,
        bits: torch.Tensor,
        n_rounds: int,
        held_until: torch.Tensor | None = None,
        ring: bool = False,
    ) -> Start:
        """Check the input, embed it (with the floor bit if asked) and return H^0, the
        round function ``step(state, r)`` and the slice of the positions asked for."""
        check_bits_tensor(bits)
        check_rounds(n_rounds)
        if ring:
            self._check_ring()
        options = self.options
        floor = options.floor and not ring  # a ring has no bit below bit 0
        if floor:  # bit 0 then sees two keys, like every other position
            bits = nn.functional.pad(bits, (0, 0, 1, 0))  # (B, 1 + n, 2)
        real = slice(1, None) if floor else slice(None)  # the positions asked for
        if options.pair_as_set:
            bits = bits.sort(dim=-1).values  # (B, n, 2): (a AND b, a OR b)
        embedded = self.embed(bits)  # (B, n, d)
        problem = embedded if options.inject else None
        state = torch.zeros_like(embedded) if options.inject else embedded  # H^0
        offset = 0  # the position signal's shift, one draw per forward pass
        if self.training and options.position_offsets:
            offset = int(torch.randint(options.position_offsets + 1, (1,)))
        step = functools.partial(
            self.step,
            problem=problem,
            batch_size=len(bits),
            held_until=held_until,
            ring=ring,
            offset=offset,
        )
        return Start(state, step, real)

    def _check_ring(self) -> None:
        if self.attend != self._banded_attention:
            raise ValueError("a ring needs a local window run as banded attention")
        if (
            self.options.position == "sinusoid"
        ):  # position i would still tell where it sits
            raise ValueError("a ring needs a model without an absolute position signal")

    def forward(
        self,
        bits: torch.Tensor,
        n_rounds: int,
        held_until: torch.Tensor | None = None,
        ring: bool = False,
    ) -> Unroll:
        """Fixed rounds: a readout after each. With a halting rule, up to ``n_rounds``
        rounds per position, run by the rule (:meth:`HaltingRule.run`; ACT: the
        readout of the mixed state, the ponder cost as ``aux_loss``).

        Two ways to make a position wait longer than the sum's width makes it, for
        Chapter 6's check. ``held_until`` (B, n) gives the last round r (counted from
        0) through which each position keeps the state of its first round (0: never
        held), on the positions the model runs (with the floor bit, one more below
        bit 0): a carry that must pass a held position arrives that much later.
        ``ring=True`` runs the positions as a ring: the positions below bit 0 are the
        top ones and there is no floor bit (banded local attention only), so for n
        propagating bits each position sees what a position deep inside a run of them
        sees while its carry has not come."""
        start = self.prepare(bits, n_rounds, held_until, ring)
        if self.options.halting is not None:
            return self.options.halting.run(self, bits, n_rounds, start)
        state, step, real = start
        logits = []
        for r in range(n_rounds):
            state = step(state, r)  # (B, n, d)
            logits.append(self.readout(state).squeeze(-1))  # (B, n)
        return Unroll(torch.stack(logits)[..., real], bits.new_zeros(()))  # (R, B, n)

    def task_loss(self, out: Unroll, target, keep, loss_window: int) -> torch.Tensor:
        """The halting rule's loss, or cross-entropy on the last rounds' readouts."""
        rule = self.options.halting
        if rule is None:
            return super().task_loss(out, target, keep, loss_window)
        return rule.task_loss(out, target, keep, loss_window)

    def check_training(self, loss_window: int, aux_warmup: int) -> None:
        if self.options.halting is not None:
            self.options.halting.check_training(loss_window, aux_warmup)


def one_round(model: UniversalTransformer, state: torch.Tensor, r: int) -> torch.Tensor:
    """One round of Chapter 4's UT as Eqs. 4-7 write it: H^r from H^{r-1} (``state``,
    (B, n, d)), with ``model``'s weights; what ``model.step(state, r)`` computes, up to
    float rounding (with a local window the model's round attends within a band, this
    one through a mask).
    Rounds and positions count from 0: round r and position i here are the paper's round
    r + 1 and position i + 1, and the signal is the sinusoids evaluated at i and r, each
    argument one less than in the paper's P^{r+1} at position i + 1."""
    _refuse_later_options(model)
    n, d_model = state.shape[1], state.shape[2]
    p = sinusoid(torch.arange(n), d_model)  # (n, d): position i, Eqs. 6-7
    p = p + sinusoid(torch.tensor([r]), d_model)  # (n, d): plus round r, P^r
    x = state + p.to(state.device)  # (B, n, d): H^{r-1} + P^r
    unseen = local_mask(n, model.options.window, state.device)  # (n, n); None: all
    block = model.block  # the one block that every round shares
    mixed = block.attn(x, x, x, attn_mask=unseen, need_weights=False)[0]  # (B, n, d)
    a = block.norm_attn(x + mixed)  # (B, n, d): A^r = LN(x + MHSA(x)), Eq. 5
    return block.norm_out(a + block.transition(a))  # (B, n, d): H^r, Eq. 4


def _refuse_later_options(model: UniversalTransformer) -> None:
    """:func:`one_round` leaves out what later chapters add to the round."""
    options = model.options
    later = {
        "position": options.position != "sinusoid",
        "position_offsets": options.position_offsets != 0,
        "inject": options.inject,
        "round_signal": not options.round_signal,
        "pause": options.pause != 0,
        "pair_as_set": options.pair_as_set,
    }
    if any(later.values()):
        names = ", ".join(name for name, used in later.items() if used)
        raise ValueError(f"one_round is Chapter 4's round, without {names}")
