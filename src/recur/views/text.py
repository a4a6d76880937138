"""The page's words and numbers: the library's own source shown in the book (so text
and code cannot disagree), glued values, and the few helpers that turn a measured number
into the words a sentence needs (``percent_text``, ``more_word``, ``fit_words``)."""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

import pandas as pd


def show_source(obj):
    """Syntax-highlighted source of a function, class, method or module of the
    library (a method's indent removed)."""
    from IPython.display import Code  # only where a page shows it

    return Code(textwrap.dedent(inspect.getsource(obj)), language="python")


def readable(
    table: pd.DataFrame, percent: tuple[str, ...] = (), decimals: int = 2
) -> pd.DataFrame:
    """``table`` as a reader wants it: the ``percent`` columns (fractions) as per cent
    to one decimal by the book's one rule (:func:`percent_text`, the same rounding as
    the glued prose); other
    float columns rounded to ``decimals``; missing values shown as "–". With two
    levels of columns (as after ``unstack``), the top level names the column. Returns
    strings; the numbers stay in ``table``."""
    out = table.copy()
    for name in out.columns:
        column = out[name]
        if (name[0] if isinstance(name, tuple) else name) in percent:
            out[name] = column.map(percent_text)
        elif pd.api.types.is_float_dtype(column):
            out[name] = column.map(lambda x: _fixed(x, decimals))
    return out


def _fixed(x: float, decimals: int) -> str:
    """``x`` to ``decimals`` places; "–" when missing, and never "-0.0" (a tiny
    negative rounds to 0)."""
    if pd.isna(x):
        return "–"
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def listed(items: list[str]) -> str:
    """Items as a sentence lists them: "a", "a and b", "a, b and c"."""
    if not items:
        raise ValueError("nothing to list")
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def percent_text(x: float) -> str:
    """The book's one rule for a share, in tables and (glued) prose alike: rounded to
    one decimal as Python's ``{:.1%}`` does, except that a miss never reads 100.0%
    (0.9996 -> "99.9%"): 0.8705 -> "87.1%" in a table as in a sentence."""
    if pd.isna(x):
        return "–"
    text = f"{x:.1%}"
    return "99.9%" if text == "100.0%" and x < 1 else text


def small_number(x: float, floor: float = 1e-7) -> str:
    """A small non-negative number for prose: ``2.9e-01``, or "less than 1e-07" below
    ``floor`` (where a float32 state's change is rounding, not movement)."""
    return f"less than {floor:.0e}" if x < floor else f"{x:.1e}"


def more_word(count: float, other: float) -> str:
    """How ``count`` compares with ``other``: "more", "fewer" or "as many"."""
    return "more" if count > other else "fewer" if count < other else "as many"


def share_words(share: float, every: str, some: str) -> str:
    """Words for a measured share at its limit and below it ("is at least
    100.0%" read oddly): ``every`` when it is 1, else ``some`` with ``{}`` filled by
    "at least" and :func:`percent_text`."""
    if not 0 <= share <= 1:
        raise ValueError(f"a share must be in [0, 1], got {share}")
    return every if share == 1 else some.format(f"at least {percent_text(share)}")


def fit_words(slope: float, intercept: float) -> str:
    """A fitted line ``steps = slope * d + intercept`` for a sentence, two decimals:
    "steps = d exactly" when both round to 1 and 0, "steps ≈ d + 0.12" when only the
    slope does, else "steps ≈ 1.02 · d − 0.30"."""
    slope_text, shift = f"{slope:.2f}", f"{abs(intercept):.2f}"
    if slope_text == "1.00" and shift == "0.00":
        return "steps = d exactly (to two decimals)"
    lead = "d" if slope_text == "1.00" else f"{slope_text} · d"
    if shift == "0.00":
        return f"steps ≈ {lead}"
    return f"steps ≈ {lead} {'−' if intercept < 0 else '+'} {shift}"


def margin_words(margin: float) -> str:
    """How far the mean steps lie above the fewest possible, for a sentence:
    "by at most 0.12" or, when that rounds to 0.00, "by nothing to two decimals"."""
    text = _fixed(margin, 2)
    return "by nothing, to two decimals" if text == "0.00" else f"by at most {text}"


WORDS_PER_MINUTE = 200  # a careful reader of technical prose


def minutes(words: int, per_minute: int = WORDS_PER_MINUTE) -> int:
    """``words`` at ``per_minute``, rounded up to a multiple of 5 minutes; at
    least 5."""
    if words < 0 or per_minute <= 0:
        raise ValueError(f"need words >= 0 and per_minute > 0: {words}, {per_minute}")
    return max(5, 5 * -(-words // (5 * per_minute)))


def reading_minutes(path) -> int:
    """About how many minutes a page's prose takes to read: the words of a notebook's
    markdown cells at :data:`WORDS_PER_MINUTE`, rounded up to a multiple of 5."""
    cells = json.loads(Path(path).read_text())["cells"]
    words = sum(
        len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown"
    )
    return minutes(words)
