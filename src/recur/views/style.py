"""The look shared by every figure of the book: the palette of variants, the exact-match
axis, layout and closing, boxes and arrows for drawn diagrams, the no-kernel player of
an animation, and the width axis with one legend below the panels."""

from __future__ import annotations

import html
import re
import sys

import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Text

from recur.views.palette import PALETTE

# The PNG of a figure records, under this key, the size in points of its smallest
# text, so that a browser check can tell how large its letters are drawn on a phone.
TEXT_KEY = "Smallest text (pt)"


def figure_png(fig: plt.Figure):
    """``fig`` as a PNG at twice the pixels ("retina"), with its smallest text's size
    written into it under :data:`TEXT_KEY`; the display size is half the pixels."""
    from IPython.core.pylabtools import retina_figure  # only where a page shows it

    size = f"{smallest_text_pt(fig):.2f}"
    return retina_figure(fig, base64=False, metadata={TEXT_KEY: size})


def sharp_inline_figures() -> None:
    """In a running notebook, show figures with :func:`figure_png`, so that a figure
    shrunk into the column stays sharp; outside one, do nothing."""
    ipython = sys.modules.get("IPython")  # only a notebook has loaded it
    if ipython is None or ipython.get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats("retina")
    formatter = ipython.get_ipython().display_formatter.formatters["image/png"]
    formatter.for_type(plt.Figure, figure_png)


sharp_inline_figures()


def dodge(k: int, n: int, step: float = 0.12) -> float:
    """The offset of series ``k`` of ``n`` around 0, ``step`` apart: drawn at x plus
    (or, on a log axis, times 2 to the power of) it, series that coincide stay visible
    side by side."""
    return (k - (n - 1) / 2) * step


def variant_colors(n: int) -> list[str]:
    """``n`` distinct colours: the book's palette, then matplotlib's tab20."""
    extra = [plt.get_cmap("tab20")(k % 20) for k in range(max(0, n - len(PALETTE)))]
    return [*PALETTE, *extra][:n]


def with_colors(groups) -> list:
    """``(colour, group)`` for each of ``groups`` (a DataFrame groupby, a list), one
    distinct colour each however many there are: none is silently dropped."""
    groups = list(groups)
    return list(zip(variant_colors(len(groups)), groups, strict=True))


def exact_axis(ax: plt.Axes, label: str = "exact match") -> None:
    """A share of sums is drawn on its whole range, 0 to 1, never zoomed in."""
    ax.set_ylabel(label)
    ax.set_ylim(-0.02, 1.02)


# The text column at 1280 px holds about 6.8 inches of a figure at 100 px per inch, and
# at 420 px (a phone) about 3.72 inches: a wider figure is shrunk into it, and its
# letters with it.
COLUMN_INCHES = 6.8
PHONE_COLUMN_INCHES = 3.72
PX_PER_INCH = 100  # the page shows a figure at 100 CSS px per inch (retina PNGs at 2x)


MAX_TEXT_SCALE = 1.5
MIN_TEXT_PX = 12  # the smallest letters a figure may show at 1280 px
# The smallest a phone may show, with a margin for the tight bounding box of the PNG,
# which can be a little wider than the figure: the browser check's bar is 8 px.
MIN_PHONE_TEXT_PX = 8.5


def text_scale(fig: plt.Figure) -> float:
    """How much :func:`legible` enlarges the letters of ``fig``: its width over the
    column's, between 1 and :data:`MAX_TEXT_SCALE`."""
    return max(1.0, min(fig.get_figwidth() / COLUMN_INCHES, MAX_TEXT_SCALE))


def px_per_point(fig: plt.Figure, column: float = COLUMN_INCHES) -> float:
    """On-screen CSS pixels per point of text of ``fig`` in a column ``column`` inches
    wide (at 100 px per inch): at 1280 px unless told."""
    shrink = min(1.0, column / fig.get_figwidth())
    return PX_PER_INCH / 72 * shrink


def smallest_text_points(fig: plt.Figure) -> float:
    """The smallest size, in points, at which :func:`legible` leaves a text of ``fig``:
    :data:`MIN_TEXT_PX` at 1280 px and :data:`MIN_PHONE_TEXT_PX` at 420 px."""
    return max(
        MIN_TEXT_PX / px_per_point(fig),
        MIN_PHONE_TEXT_PX / px_per_point(fig, PHONE_COLUMN_INCHES),
    )


def _texts(fig: plt.Figure) -> tuple[list, list]:
    """The tick labels (by axis) and every other text of ``fig``."""
    ticks = [
        (ax, name, axis)
        for ax in fig.axes
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis))
    ]
    labels = [t for _, _, axis in ticks for t in axis.get_ticklabels(which="both")]
    tick_ids = {id(t) for t in labels}
    return ticks, [t for t in fig.findobj(Text) if id(t) not in tick_ids]


def smallest_text_pt(fig: plt.Figure) -> float:
    """The size of the smallest non-empty text of ``fig``, in points."""
    ticks, texts = _texts(fig)
    sizes = [
        t.get_fontsize()
        for _, _, axis in ticks
        for t in axis.get_ticklabels(which="both")
        if t.get_text()
    ]
    sizes += [t.get_fontsize() for t in texts if t.get_text()]
    return min(sizes, default=float("inf"))


def smallest_text_px(fig: plt.Figure, column: float = COLUMN_INCHES) -> float:
    """The on-screen size of the smallest non-empty text of ``fig``, in CSS px, in a
    column ``column`` inches wide (at 1280 px unless told)."""
    return smallest_text_pt(fig) * px_per_point(fig, column)


def _tick_size(axis, name: str) -> float:
    labels = axis.get_ticklabels(which="both")
    if labels:
        return labels[0].get_fontsize()  # as set
    size = FontProperties(size=plt.rcParams[f"{name}tick.labelsize"])
    return size.get_size_in_points()


def legible(fig: plt.Figure) -> plt.Figure:
    """Enlarge every text of a figure wider than the column by its width over the
    column's (at most :data:`MAX_TEXT_SCALE`), so that shrunk into the column its
    letters read as large as those of a figure that fits; then raise any text still
    smaller than :func:`smallest_text_points` (on a desktop or a phone) to it."""
    scale, floor = text_scale(fig), smallest_text_points(fig)
    ticks, texts = _texts(fig)
    for ax, name, axis in ticks:
        size = max(_tick_size(axis, name) * scale, floor)
        ax.tick_params(axis=name, which="both", labelsize=size)
    for text in texts:
        text.set_fontsize(max(text.get_fontsize() * scale, floor))
    return fig


def finish(fig: plt.Figure) -> plt.Figure:
    """Make its letters legible in the column (:func:`legible`), lay out, and close so
    that the figure is shown once, as the cell's value."""
    legible(fig)
    fig.tight_layout()
    plt.close(fig)
    return fig


EDGE = "#555555"  # outlines and arrows of drawn diagrams


def box(ax, x, y, text, color, w=1.1, h=0.56, pad=0.02, fontsize=9) -> None:
    """A rounded box of ``w`` by ``h`` centred at (x, y), with ``text`` in it."""
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle=f"round,pad={pad}",
            facecolor=color,
            edgecolor=EDGE,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize)


def arrow(ax, start, end, color=EDGE, **kw) -> None:
    """An arrow from ``start`` to ``end`` (data coordinates); ``kw`` go to its style."""
    ax.annotate(
        "", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=color, **kw)
    )


def player_html(anim: FuncAnimation, alt: str):
    """The animation as a play/step/scrub player (no kernel needed), with alt text,
    loading nothing from the network."""
    player = anim.to_jshtml(default_mode="once")
    player = re.sub(r"<link[^>]*font-awesome[^>]*>", "", player)
    for icon, text in _ICONS.items():
        player = player.replace(f'<i class="{icon}"></i>', text)
    from IPython.display import HTML  # only where a page shows it

    player = player.replace(  # a screen reader names the slider (WCAG 4.1.2)
        'class="anim-slider"', 'class="anim-slider" aria-label="frame of the animation"'
    )
    return HTML(player.replace("<img id=", f'<img alt="{html.escape(alt)}" id=', 1))


# matplotlib's player draws its buttons with Font Awesome icons from a public CDN; the
# book works offline, so the buttons get plain characters instead.
_ICONS = {
    "fa fa-minus": "\u2212",
    "fa fa-fast-backward": "|\u25c0\u25c0",
    "fa fa-step-backward": "|\u25c0",
    "fa fa-play fa-flip-horizontal": "\u25c0",
    "fa fa-pause": "||",
    "fa fa-play": "\u25b6",
    "fa fa-step-forward": "\u25b6|",
    "fa fa-fast-forward": "\u25b6\u25b6|",
    "fa fa-plus": "+",
}


def width_axis(ax, widths: list[int], trained_bits: int, title: str) -> None:
    """A width axis: the trained width marked, log-2 when widths span a factor of 4."""
    ax.axvline(trained_bits, color="k", ls=":", lw=1)
    ax.text(trained_bits * 1.03, 0.03, f"trained up to {trained_bits} bits", fontsize=9)
    if widths[-1] >= 4 * widths[0]:
        ax.set_xscale("log", base=2)
    ax.set_xticks(widths, [str(w) for w in widths])  # the widths measured, no others
    ax.set_xlabel("bits per operand")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)


CHAR_EM = 0.6  # a letter's mean width, in ems of its size (DejaVu Sans, about)


def _entries_that_fit(labels: list[str], size: float, width: float) -> int:
    """How many legend entries of ``labels`` at ``size`` points fit side by side in
    ``width`` inches (each with its handle and gap, about 3 ems): at least one. A
    legend wider than its figure widens the saved image, and shrinks every letter of it
    on a phone."""
    widest = max((len(label) for label in labels), default=1)
    entry = (widest * CHAR_EM + 3) * size / 72  # inches
    return max(1, int(width // entry))


def legend_below(fig: plt.Figure, ax, per_row: int = 4) -> plt.Figure:
    """One legend for all panels, ``per_row`` entries per row, below them, where it
    covers no data; the letters made legible (:func:`legible`) like every figure's."""
    handles, labels = ax.get_legend_handles_labels()
    size = max(9 * text_scale(fig), smallest_text_points(fig))  # as legible as the rest
    per_row = min(per_row, _entries_that_fit(labels, size, fig.get_figwidth()))
    n_rows = -(-len(labels) // per_row)
    row = 2 * size / 72  # inches per legend row: twice its letters' size
    fig.set_figheight(fig.get_figheight() + row * n_rows)
    legible(fig)
    fig.legend(
        handles, labels, loc="lower center", ncol=per_row, frameon=False, fontsize=size
    )
    fig.tight_layout(rect=(0, row * n_rows / fig.get_figheight() + 0.01, 1, 1))
    plt.close(fig)
    return fig
