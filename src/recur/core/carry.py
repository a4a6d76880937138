r"""The parallel-carry adder of Chapter 1: one rule, applied to every position at once.

Every position ``i`` (bit 0 is the least significant) keeps its two input bits and the
carry it received in the previous round. In one round all positions update together:

    carry_next[i+1] = (a[i] AND b[i]) OR ((a[i] XOR b[i]) AND carry[i])
    readout[i]      = a[i] XOR b[i] XOR carry[i]

The carry into bit 0 is always 0 and all carries are 0 before round 1, so a carry moves
one position per round. Strings are written most significant bit first, as people
write them (``"0111"`` is seven); arrays inside this module are least significant bit
first, so that index ``i`` is bit ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

BITS = np.uint8
RUNNING_EXAMPLE = ("0111", "0001")  # 7 + 1 = 8, the sum every chapter runs


def check_bits(s: str, name: str = "input") -> str:
    """Return ``s`` if it is a non-empty string of 0s and 1s; else ``ValueError``."""
    if not isinstance(s, str):
        raise ValueError(
            f"{name} must be a string of 0s and 1s, got {type(s).__name__}"
        )
    s = s.strip()
    if not s:
        raise ValueError(f"{name} is empty; type at least one binary digit")
    bad = sorted(set(s) - {"0", "1"})
    if bad:
        raise ValueError(
            f"{name} {s!r} is not binary: it contains {', '.join(map(repr, bad))}"
        )
    return s


def pad_pair(a: str, b: str) -> tuple[str, str]:
    """Check two binary strings; left-pad the shorter with zeros to the same width."""
    a, b = check_bits(a, "a"), check_bits(b, "b")
    width = max(len(a), len(b))
    return a.zfill(width), b.zfill(width)


def to_bits(s: str) -> np.ndarray:
    """``"0111"`` -> ``array([1, 1, 1, 0])``: least significant bit first."""
    return np.frombuffer(s[::-1].encode(), dtype=BITS) - ord("0")


def to_str(bits: np.ndarray) -> str:
    """Inverse of :func:`to_bits`: least-significant-first bits -> MSB-first string."""
    return "".join("1" if x else "0" for x in bits[::-1])


def step(gen: np.ndarray, prop: np.ndarray, carry: np.ndarray) -> np.ndarray:
    r"""One round of the rule, for every position at once.

    ``gen = a AND b`` (the position makes a carry), ``prop = a XOR b`` (it passes one
    on), ``carry[i]`` is the carry into bit ``i`` after the previous round; ``carry``
    has one more entry than there are bits, the last being the carry out of the top bit.
    """
    carry_next = np.zeros_like(carry)  # (..., n + 1); the carry into bit 0 stays 0
    carry_next[..., 1:] = gen | (prop & carry[..., :-1])  # (..., n)
    return carry_next


def readout(prop: np.ndarray, carry: np.ndarray) -> np.ndarray:
    """``readout[i] = a[i] XOR b[i] XOR carry[i]`` for the n input positions."""
    return prop ^ carry[..., :-1]  # (..., n)


@dataclass(frozen=True)
class CarryTrace:
    """Every round of a parallel addition.

    ``carries[r, i]`` is the carry into bit ``i`` after ``r`` completed rounds
    (least significant bit first; index ``n`` is the carry out of the top bit).
    """

    a: str
    b: str
    carries: np.ndarray  # (n_rounds + 1, n_bits + 1)

    @property
    def n_bits(self) -> int:
        return len(self.a)

    @property
    def n_rounds(self) -> int:
        return self.carries.shape[0] - 1

    @property
    def prop(self) -> np.ndarray:
        return to_bits(self.a) ^ to_bits(self.b)

    def readout(self, r: int) -> str:
        """The n-bit readout after ``r`` rounds, most significant bit first."""
        self._check_round(r)
        return to_str(readout(self.prop, self.carries[r]))

    def carry_out(self, r: int) -> int:
        """The carry out of the top bit after ``r`` rounds (0 or 1)."""
        self._check_round(r)
        return int(self.carries[r, -1])

    def moved(self, r: int) -> np.ndarray:
        """Positions (LSB first, n + 1) whose incoming carry changed in round ``r``."""
        self._check_round(r)
        if r == 0:
            return np.zeros(self.n_bits + 1, dtype=bool)
        return self.carries[r] != self.carries[r - 1]

    @property
    def rounds_to_settle(self) -> int:
        """The first round after which the readout never changes again.

        The carries are the whole state and the rule is deterministic, so once a round
        changes nothing, no later round will: the first repeat is a fixed point.
        """
        same = np.all(self.carries[1:] == self.carries[:-1], axis=1)  # (n_rounds,)
        if not same.any():
            raise ValueError(
                f"the trace of {self.n_rounds} rounds has not settled yet; "
                "call parallel_add with more rounds (or n_rounds=None)"
            )
        return int(np.argmax(same))

    @property
    def true_sum(self) -> str:
        """a + b by integer arithmetic, MSB first, with the carry-out bit: n + 1 digits,
        the width of every readout row that includes the carry out."""
        return format(int(self.a, 2) + int(self.b, 2), f"0{self.n_bits + 1}b")

    @property
    def result(self) -> str:
        """The settled sum, most significant bit first.

        It has ``n_bits`` digits, plus a leading ``"1"`` when a carry leaves the top
        bit, so ``int(result, 2) == int(a, 2) + int(b, 2)`` always.
        """
        r = self.rounds_to_settle
        return ("1" if self.carry_out(r) else "") + self.readout(r)

    def table(self) -> pd.DataFrame:
        """One row per round: carries into bits n-1..1 and the readout, high to low.

        A column for the carry out of the top bit is added only when one occurs.
        """
        rows = {"rounds completed": range(self.n_rounds + 1)}
        if self.n_bits > 1:  # a 1-bit sum has no carries inside it
            label = (
                "carry into bit 1"
                if self.n_bits == 2
                else f"carries into bits {self.n_bits - 1}..1"
            )
            rows[label] = [to_str(c[1:-1]) for c in self.carries]
        rows["readout"] = [self.readout(r) for r in range(self.n_rounds + 1)]
        if self.carries[:, -1].any():
            rows["carry out"] = self.carries[:, -1].astype(int)
        return pd.DataFrame(rows).set_index("rounds completed")

    def _check_round(self, r: int) -> None:
        if not 0 <= r <= self.n_rounds:
            raise ValueError(f"round {r} is outside this trace (0..{self.n_rounds})")


def parallel_add(a: str, b: str, n_rounds: int | None = None) -> CarryTrace:
    """Add two binary strings (MSB first) by the parallel-carry rule; keep every round.

    Strings of different lengths are left-padded with zeros. With ``n_rounds=None``
    the rule runs until the readout settles, plus one round to show that it stays.
    """
    a, b = pad_pair(a, b)
    if n_rounds is not None and (
        isinstance(n_rounds, bool)
        or not isinstance(n_rounds, int | np.integer)
        or n_rounds < 0
    ):
        raise ValueError(
            f"n_rounds must be a whole number >= 0 (or None), got {n_rounds!r}"
        )
    a_bits, b_bits = to_bits(a), to_bits(b)
    gen, prop = a_bits & b_bits, a_bits ^ b_bits  # (n,), (n,)
    carry = np.zeros(len(a) + 1, dtype=BITS)  # (n + 1,): all carries 0 before round 1
    history = [carry]
    while n_rounds is None or len(history) <= n_rounds:
        carry = step(gen, prop, carry)  # (n + 1,)
        history.append(carry)
        if n_rounds is None and np.array_equal(history[-1], history[-2]):
            break
    return CarryTrace(a, b, np.stack(history))


def carry_distance(a_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """How far the carry into each position travelled (LSB first, ``n + 1`` entries).

    Entry ``i`` is ``i - j`` when bit ``j`` generated the carry into bit ``i`` and
    every bit between passed it on; it is 0 when no carry arrives. That carry arrives
    in round ``i - j``. Works on a batch: inputs of shape ``(..., n)``.
    """
    gen, prop = a_bits & b_bits, a_bits ^ b_bits  # (..., n)
    n = gen.shape[-1]
    idx = np.arange(n, dtype=np.int32 if n >= 2**14 else np.int16)  # (n,)
    # Bits that do not propagate ("stops") decide the carry above them: 2*j + gen[j]
    # encodes stop j and whether it generates; propagating bits get -1. A running
    # maximum gives, for every i, the highest stop j <= i: the carry into i + 1
    # is gen[j].
    code = np.where(prop == 0, 2 * idx + gen, -1)  # (..., n)
    last_stop = np.maximum.accumulate(code, axis=-1)  # (..., n)
    dist = np.where(
        (last_stop >= 0) & (last_stop % 2 == 1), idx + 1 - last_stop // 2, 0
    )  # (..., n): into bits 1..n
    return np.concatenate([np.zeros_like(dist[..., :1]), dist], axis=-1)  # (..., n + 1)


def wait_rounds(a_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """Rounds before a local rule that reads one bit below per round can know the
    carry into each position (LSB first, ``n + 1`` entries, as ``carry_distance``).

    The carry into ``i`` is decided by the highest non-propagating bit ``j < i`` (it
    generates a carry or kills one), so the news needs ``i - j`` rounds; when every bit
    below propagates, seeing them all (``i`` rounds) is enough, since nothing comes in
    under bit 0. At least one round, as for any answer. Where a carry
    arrives this is its distance; where none arrives it still counts the propagating
    run below, which the rule must see past to know that nothing is coming.
    """
    prop = a_bits ^ b_bits  # (..., n)
    n = prop.shape[-1]
    idx = np.arange(n)  # (n,)
    last_stop = np.maximum.accumulate(np.where(prop == 0, idx, -1), axis=-1)  # (..., n)
    below = np.concatenate(
        [np.full_like(last_stop[..., :1], -1), last_stop], axis=-1
    )  # (..., n + 1): highest stop under positions 0..n
    return np.maximum(np.arange(n + 1) - np.maximum(below, 0), 1)  # (..., n + 1)


def longest_carry_chain(a: str, b: str) -> int:
    """The longest carry chain: for each generating bit (both inputs 1), 1 plus the run
    of propagating bits (exactly one input 1) directly above it; the maximum, 0 if none.

    It is the number of rounds the parallel rule needs, ``rounds_to_settle``.
    """
    a, b = pad_pair(a, b)
    return int(carry_distance(to_bits(a), to_bits(b)).max())


def random_pairs(
    n_pairs: int, n_bits: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Uniform random bit arrays of shape ``(n_pairs, n_bits)``, LSB first."""
    if n_pairs < 1 or n_bits < 1:
        raise ValueError(
            f"need n_pairs >= 1 and n_bits >= 1, got {n_pairs} and {n_bits}"
        )
    rng = np.random.default_rng(seed)
    n_bytes = -(-2 * n_pairs * n_bits // 8)
    bits = np.unpackbits(np.frombuffer(rng.bytes(n_bytes), dtype=np.uint8))
    bits = bits[: 2 * n_pairs * n_bits].reshape(2, n_pairs, n_bits)  # (2, B, n)
    return bits[0], bits[1]


def longest_chains(
    n_pairs: int, n_bits: int, seed: int = 0, chunk: int = 2**18
) -> np.ndarray:
    """Longest carry chain of ``n_pairs`` uniform random ``n_bits``-bit additions."""
    a_bits, b_bits = random_pairs(n_pairs, n_bits, seed)
    rows = max(1, chunk // n_bits)
    return np.concatenate(
        [
            carry_distance(a_bits[i : i + rows], b_bits[i : i + rows]).max(axis=-1)
            for i in range(0, n_pairs, rows)
        ]
    )


@dataclass(frozen=True)
class ChainGrowth:
    """Longest-chain statistics per width, and the least-squares line
    ``mean = slope * log2(n) + intercept``."""

    stats: pd.DataFrame  # index n_bits; columns mean, std, median, max
    slope: float
    intercept: float
    n_pairs: int

    @property
    def fit_text(self) -> str:
        """The fitted line as text, e.g. ``"1.00·log₂ n − 0.68"``."""
        sign = "−" if self.intercept < 0 else "+"
        return f"{self.slope:.2f}·log₂ n {sign} {abs(self.intercept):.2f}"


def chain_growth(widths: list[int], n_pairs: int = 4000, seed: int = 0) -> ChainGrowth:
    """Measure how the longest carry chain (the rounds needed) grows with width n."""
    rows = []
    for k, n_bits in enumerate(widths):
        chains = longest_chains(n_pairs, n_bits, seed=seed + k)
        rows.append(
            {
                "n_bits": n_bits,
                "mean": chains.mean(),
                "std": chains.std(),
                "median": np.median(chains),
                "max": chains.max(),
            }
        )
    stats = pd.DataFrame(rows).set_index("n_bits")
    slope, intercept = np.polyfit(np.log2(stats.index.to_numpy()), stats["mean"], 1)
    return ChainGrowth(stats, float(slope), float(intercept), n_pairs)


def longest_chain_span(trace: CarryTrace) -> tuple[int, int] | None:
    """``(j, i)``: the longest chain starts at generating bit ``j`` and ends with the
    carry into bit ``i`` (LSB indices; ``i == n_bits`` is the carry out).

    ``None`` when no carry is generated."""
    dist = carry_distance(to_bits(trace.a), to_bits(trace.b))  # (n + 1,)
    if dist.max() == 0:
        return None
    i = int(np.argmax(dist))
    return i - int(dist[i]), i
