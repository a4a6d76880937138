"""One colour scheme for every figure and widget of the book, so that a colour means the
same thing on every page: blue is a 1 bit, orange a carry that arrived in the round
shown, pink a bit that differs from the true sum, purple the longest carry chain; in
Chapter 5's halting figures grey is a halting probability and green an ACT weight.
Plotted series take :data:`PALETTE` in order, each with a marker of :data:`MARKERS`."""

from __future__ import annotations

COLORS = {
    "one": "#cfe3f6",  # a bit that is 1
    "zero": "white",  # a bit that is 0
    "moved": "#f6a04d",  # a carry that arrived in the round shown
    "wrong": "#f9c4d2",  # a readout bit that differs from the true sum
    "late": "#c0392b",  # a readout bit still or again wrong once the sum is read
    "chain": "#6c3483",  # the longest carry chain
    "halting": "#bbbbbb",  # a halting probability h_r (Chapter 5)
    "weight": "#2e8b57",  # an ACT weight p_r (Chapter 5)
}
MEANING = {  # short enough for a legend under a 4-bit grid: one per colour
    "one": "1 bit",
    "zero": "0 bit",
    "moved": "new carry",
    "wrong": "wrong bit",
    "late": "wrong after the read",
    "chain": "longest chain",
    "halting": "halting probability",
    "weight": "ACT weight",
}


def legend_html(keys: tuple[str, ...]) -> str:
    """A one-line HTML legend: a swatch in each colour and what it means."""
    unknown = [k for k in keys if k not in COLORS]
    if unknown:
        raise ValueError(f"no colour named {unknown}; the palette has {list(COLORS)}")
    items = [
        f'<span style="display:inline-block;width:1em;height:1em;'
        f'background:{COLORS[k]};border:1px solid #999;vertical-align:middle">'
        f"</span> {MEANING[k]}"
        for k in keys
    ]
    return "&nbsp;&nbsp;".join(items)


# A colour per plotted series, in order: dark blue, red, orange, light blue, green, ...
PALETTE = (
    "#1f4e79",
    "#c0392b",
    "#f39c12",
    "#5b9bd5",
    "#2e8b57",
    "#8e44ad",
    "#7f7f7f",
    "#e377c2",
    "#bcbd22",
    "#17becf",
)
MARKERS = "osD^vPX*h<>p"  # a marker per series, so that lines on top of each other show
