"""The hardest sums of a width: the sums a skeptic tries first.

Random sums almost never carry through every position, never run one pattern of
propagating bits the whole width, and never end a long chain exactly at the top bit;
:func:`hardest_sums` writes each such sum down for a width ``n``. Each is a pair of
``n``-bit numbers (MSB first, as people write them) with its name; the batch adds the
overflow position on top, as every batch does (:mod:`recur.core.tasks`), and
:meth:`HardestSums.wait` gives the rounds each position waits for its carry-in
(:func:`recur.core.carry.wait_rounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recur.core.carry import wait_rounds
from recur.core.tasks import AdditionBatch, batch_from_strings

MIN_BITS = 4  # below this, several of the sums are the same sum


def _alternating(n_bits: int, first: str) -> str:
    """``n_bits`` alternating digits whose lowest is ``first``, MSB first."""
    other = "1" if first == "0" else "0"
    return "".join(first if (n_bits - 1 - k) % 2 == 0 else other for k in range(n_bits))


def _pairs(n: int) -> dict[str, tuple[str, str]]:
    """The hardest ``n``-bit sums by name, as (a, b), MSB first."""
    ones, zero, one = "1" * n, "0" * n, "0" * (n - 1) + "1"
    alt, alt_other = _alternating(n, "1"), _alternating(n, "0")  # ...0101, ...1010
    top = "1" + "0" * (n - 1)
    return {
        # a carry made at bit 0 crosses every position and leaves at the top
        "all ones + 1": (ones, one),
        "1 + all ones": (one, ones),
        "1 + 1 under alternating propagates": (alt, alt_other[:-1] + "1"),
        # a carry made at bit 0 stops exactly at the top bit (no carry out)
        "0111…1 + 0000…1": ("0" + ones[1:], one),
        # every position passes a carry on, and none comes
        "all ones + 0": (ones, zero),
        "0 + all ones": (zero, ones),
        "alternating + its complement": (alt, alt_other),
        # a kill at bit 0 under a full run: the longest wait, for no carry
        "1111…0 + 0": (ones[:-1] + "0", zero),
        # every position makes a carry; or none; or a number plus zero
        "all ones + all ones": (ones, ones),
        "0 + 0": (zero, zero),
        "alternating + 0": (alt, zero),
        # the only carry is made by the top bit, out of the sum
        "top bit + top bit": (top, top),
    }


def batch_waits(batch: AdditionBatch) -> np.ndarray:
    """The rounds each position of ``batch`` waits for its carry-in, (B, n + 1)."""
    bits = batch.bits.cpu().numpy().astype(np.int64)  # (B, n + 1, 2)
    return wait_rounds(bits[..., 0], bits[..., 1])[:, :-1]  # (B, n + 1)


@dataclass(frozen=True)
class HardestSums:
    """The hardest sums of one width: their names and the batch (one row each)."""

    names: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    batch: AdditionBatch

    def wait(self) -> np.ndarray:
        """The rounds each position waits for its carry-in, (B, n + 1)."""
        return batch_waits(self.batch)


def hardest_sums(n_bits: int) -> HardestSums:
    """The hardest ``n_bits``-bit sums (at least :data:`MIN_BITS` bits), by name."""
    if not isinstance(n_bits, int) or n_bits < MIN_BITS:
        raise ValueError(f"n_bits must be an integer >= {MIN_BITS}, got {n_bits!r}")
    pairs = _pairs(n_bits)
    names = tuple(pairs)
    return HardestSums(
        names, tuple(pairs.values()), batch_from_strings(list(pairs.values()))
    )


# A skeptic's sums, written position by position (MSB first) in four kinds:
# g generates a carry (1 + 1), k kills one (0 + 0), a and b propagate one
# (a: the 1 is in the first number, b: in the second).
KIND_BITS = {"g": ("1", "1"), "k": ("0", "0"), "a": ("1", "0"), "b": ("0", "1")}


def pair_from_kinds(kinds: str) -> tuple[str, str]:
    """The sum (a, b), MSB first, whose positions are ``kinds`` (MSB first)."""
    if not kinds or set(kinds) - set(KIND_BITS):
        raise ValueError(f"kinds must be a non-empty string of g, k, a, b: {kinds!r}")
    a = "".join(KIND_BITS[k][0] for k in kinds)
    b = "".join(KIND_BITS[k][1] for k in kinds)
    return a, b


def _run(n: int, first: str = "a") -> str:
    """``n`` propagating positions, the 1 alternating between the numbers, MSB first,
    ``first`` at the bottom."""
    other = "b" if first == "a" else "a"
    return "".join(first if (n - 1 - i) % 2 == 0 else other for i in range(n))


def _families(n: int) -> dict[str, str]:
    """The skeptic's families at width ``n`` by name, as kinds (MSB first). Each asks a
    state to hold over a long run: a carry through it, or "no carry yet" until the
    news comes from below."""
    half, quarter = n // 2, n // 4
    return {
        # one carry, made low, walking the whole width through mixed operands
        "carry through mixed operands": _run(n - 1) + "g",
        # no carry at all, every position waiting on the run below it
        "1 + 111…10": "b" * (n - 1) + "a",
        "no carry under a top generate": "g" + "a" * (n - 2) + "k",
        # a chain that starts above bit 0, under or over long kills
        "chain from the middle": "a" * half + "g" + "k" * (n - half - 1),
        "chain from the middle, propagates below": "a" * half
        + "g"
        + "b" * (n - half - 1),
        "short chain at the top": "a" * 4 + "g" + "k" * (n - 5),
        # a long chain broken by one kill, a carry made just above it
        "chain broken by one kill": "a" * (half - 1) + "k" + "a" * (n - half - 1) + "g",
        "kill, then a new carry": "a" * (half - 1)
        + "g"
        + "k"
        + "a" * (n - half - 2)
        + "g",
        # several long chains at once
        "four chains": ("a" * (quarter - 1) + "g") * 4 + "a" * (n - 4 * quarter),
        "chains of 8": ("a" * 7 + "g") * (n // 8) + "k" * (n % 8),
        # generates over a long wait
        "generates over a long wait": "g" * half + "a" * (n - half),
    }


@dataclass(frozen=True)
class SkepticSums:
    """The skeptic's sums of one width: names, kinds (MSB first) and the batch."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    batch: AdditionBatch

    def wait(self) -> np.ndarray:
        """The rounds each position waits for its carry-in, (B, n + 1)."""
        return batch_waits(self.batch)


SKEPTIC_MIN_BITS = 16  # the families' halves and quarters need room


def skeptic_sums(n_bits: int, extra: tuple[Family, ...] = ()) -> SkepticSums:
    """The hardest sums of :func:`hardest_sums` and the skeptic's families at
    ``n_bits`` bits (at least :data:`SKEPTIC_MIN_BITS`), plus the ``extra`` families
    (such as :func:`search_families` keeps), each at ``n_bits`` bits."""
    if not isinstance(n_bits, int) or n_bits < SKEPTIC_MIN_BITS:
        raise ValueError(
            f"n_bits must be an integer >= {SKEPTIC_MIN_BITS}, got {n_bits!r}"
        )
    named = {name: pair for name, pair in _pairs(n_bits).items()}
    families = _families(n_bits) | {f.name: f.kinds(n_bits) for f in extra}
    for name, kinds in families.items():
        if len(kinds) != n_bits:
            raise ValueError(f"{name!r} has {len(kinds)} positions, not {n_bits}")
        named[name] = pair_from_kinds(kinds)
    kinds = tuple(_kinds_of(a, b) for a, b in named.values())
    return SkepticSums(tuple(named), kinds, batch_from_strings(list(named.values())))


def _kinds_of(a: str, b: str) -> str:
    """The kinds of the sum (a, b): the inverse of :func:`pair_from_kinds`."""
    back = {bits: kind for kind, bits in KIND_BITS.items()}
    return "".join(back[(x, y)] for x, y in zip(a, b, strict=True))


RUN_KINDS = ("g", "k", "a", "b", "ab")  # a run of one kind, or a/b alternating


@dataclass(frozen=True)
class Family:
    """A family of sums at every width: runs of one kind, MSB first, each taking a
    ``share`` of the positions (the last run takes what is left)."""

    runs: tuple[tuple[str, float], ...]

    def kinds(self, n_bits: int) -> str:
        """The family's sum at ``n_bits`` bits, as kinds (MSB first)."""
        out, used = [], 0
        for k, (kind, share) in enumerate(self.runs):
            last = k == len(self.runs) - 1
            length = n_bits - used if last else max(1, round(share * n_bits))
            length = min(length, n_bits - used - (len(self.runs) - 1 - k))
            out.append(_run(length) if kind == "ab" else kind * length)
            used += length
        return "".join(out)

    @property
    def name(self) -> str:
        """ "drawn" and the family at 16 bits, as kinds: ``drawn aaaaaaaagkkkkkkk``."""
        return f"drawn {self.kinds(SKEPTIC_MIN_BITS)}"


def random_family(gen: np.random.Generator) -> Family:
    """One family for :func:`search_families`: two to five runs of kinds drawn from
    :data:`RUN_KINDS`, their shares of the width drawn at random."""
    n_runs = int(gen.integers(2, 6))
    shares = gen.dirichlet(np.ones(n_runs))
    kinds = gen.choice(RUN_KINDS, n_runs)
    return Family(
        tuple((str(k), round(float(s), 2)) for k, s in zip(kinds, shares, strict=True))
    )


def search_families(passes, n_bits: int, n_draws: int, seed: int) -> list[Family]:
    """The families among ``n_draws`` drawn by :func:`random_family` (from ``seed``)
    whose ``n_bits``-bit sum some model gets wrong: ``passes(batch)`` returns a (B,)
    bool per sum of the batch (True: every model got it right, as it is read)."""
    if n_bits < SKEPTIC_MIN_BITS or n_draws < 1:
        raise ValueError(
            f"need n_bits >= {SKEPTIC_MIN_BITS} and n_draws >= 1, "
            f"got {n_bits} and {n_draws}"
        )
    gen = np.random.default_rng(seed)
    families = [random_family(gen) for _ in range(n_draws)]
    pairs = [pair_from_kinds(f.kinds(n_bits)) for f in families]
    ok = passes(batch_from_strings(pairs))
    return [f for f, right in zip(families, ok.tolist(), strict=True) if not right]
