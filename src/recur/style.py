"""The look shared by every figure of the book: the palette of variants, the exact-match
axis, layout and closing, boxes and arrows for drawn diagrams, the no-kernel player of
an animation, and the width axis with one legend below the panels."""

from __future__ import annotations

import html
import re

import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation
from matplotlib.patches import FancyBboxPatch

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


def finish(fig: plt.Figure) -> plt.Figure:
    """Lay out, and close so that the figure is shown once, as the cell's value."""
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
        ax.set_xticks(widths, [str(w) for w in widths])
    ax.set_xlabel("bits per operand")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)


def legend_below(fig: plt.Figure, ax) -> plt.Figure:
    """One legend for all panels, four entries per row, below them."""
    handles, labels = ax.get_legend_handles_labels()
    n_rows = -(-len(labels) // 4)
    fig.set_figheight(fig.get_figheight() + 0.25 * n_rows)
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0.25 * n_rows / fig.get_figheight() + 0.01, 1, 1))
    plt.close(fig)
    return fig
