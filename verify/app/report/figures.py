"""The report's figures (matplotlib, object API on the Agg canvas: no global pyplot state).

Every figure is drawn from the campaign's records (and, for the worked configurations, from
an exact trajectory recomputed with :func:`verify.core.trajectory.simulate`, which is cheap for
their 8 to 10 tokens). Figures illustrate; the verdicts are decided elsewhere, exactly.
"""

from __future__ import annotations

import functools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar, cast

import matplotlib
import matplotlib.image
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from verify.core.config import parse_configuration
from verify.core.figure_text import png_metadata
from verify.core.trajectory import simulate
from verify.core.text import short_number

__all__ = ["FigureInfo", "write_figures", "hull_order", "PANEL_LAYERS"]

PANEL_LAYERS = (0, 1, 2, 5)   # plus the last layer, as in [P1] Figure 2
WORKED_LAST_LAYER = 30        # [P1] Figure 2 runs 30 layers
DPI = 110
# Every figure is drawn as wide as report.html shows it (its content column, 1,166 px at 1,400 px
# of window), with no text under 8 points: shown full width, its smallest text is 12 px; at 900 px
# of window, 9 px (and a click shows it at its own size). tests/browser/ measures it in the page.
WIDTH_INCHES = 10.6
STYLE: dict[str, Any] = {"font.size": 9, "axes.titlesize": 9.5, "axes.labelsize": 9, "xtick.labelsize": 8, "ytick.labelsize": 8,
         "legend.fontsize": 8, "legend.title_fontsize": 8, "figure.titlesize": 10.5}
# Fixed metadata: the PNG/SVG bytes then depend on the data and the matplotlib version only.
SVG_METADATA = {"Date": None, "Creator": None}
_Draw = TypeVar("_Draw", bound=Callable[..., Any])


def _styled(draw: _Draw) -> _Draw:
    """Draw (and save) within :data:`STYLE`: the fonts are read when each text is made."""
    @functools.wraps(draw)
    def drawing(*args: Any, **kwargs: Any) -> Any:
        with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]  # the stubs list every rc key as a Literal
            return draw(*args, **kwargs)
    return drawing  # type: ignore[return-value]


@dataclass(frozen=True)
class FigureInfo:
    """A written figure: file names relative to the report folder, a caption and alt text."""

    name: str
    png: str
    svg: str | None
    title: str
    caption: str


def _save(fig: Figure, out_dir: Path, name: str, *, svg: bool = False) -> tuple[str, str | None]:
    canvas = FigureCanvasAgg(fig)
    figures = out_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    png = f"figures/{name}.png"
    fig.set_dpi(DPI)
    # One pass lays the figure out (constrained layout), renders the PNG's pixels and gives every
    # text its size; the pixels are then written as savefig's PNG path writes them (matplotlib's
    # _print_pil), with the figure's own colours: a matplotlibrc's savefig.* keys do not apply.
    canvas.draw()
    metadata = png_metadata(fig, DPI, drawn=True)
    # metadata's None (no Software field) is what savefig passes too; the stubs only list str values.
    matplotlib.image.imsave(out_dir / png, canvas.buffer_rgba(), format="png", origin="upper", dpi=DPI,
                            metadata=cast("dict[str, str]", metadata))
    # The layout is done: the SVG below is drawn without computing it again (a full layout each time).
    fig.set_layout_engine("none")
    svg_name = None
    if svg:
        svg_name = f"figures/{name}.svg"
        # SVG element ids (clip paths) are random unless salted: a fixed salt makes the same
        # figure the same bytes on every run.
        # The savefig.* keys at their defaults, as the PNG above has them whatever a matplotlibrc says.
        with matplotlib.rc_context({"svg.hashsalt": "hardmax-verify", "savefig.facecolor": "auto",
                                    "savefig.edgecolor": "auto", "savefig.transparent": False,
                                    "savefig.bbox": None}):
            fig.savefig(out_dir / svg_name, metadata=SVG_METADATA)
    return png, svg_name


def hull_order(points: np.ndarray) -> np.ndarray:
    """Indices of the 2-D convex hull vertices in counter-clockwise order (segment or point when degenerate).

    [P1]'s code draws the polytope in index order, which draws a self-crossing polygon; this
    draws K as a polygon. Collinear points give the two extreme ones.
    """
    points = np.asarray(points, dtype=float)
    if len(points) <= 2:
        return np.arange(len(points))
    from scipy.spatial import ConvexHull, QhullError

    try:
        return np.asarray(ConvexHull(points).vertices)
    except QhullError:
        order = np.lexsort((points[:, 1], points[:, 0]))
        return np.array([order[0], order[-1]])


def _limit(fate: dict[str, Any]) -> np.ndarray | None:
    if not fate.get("limit"):
        return None
    return np.array([float(Fraction(x)) for x in fate["limit"]])


# Categories (families, limits, dimensions) get distinct hues: matplotlib's tab10 and two more,
# never the pale half of tab20, and each its own marker, so that two close hues still differ. Past
# 12 categories the hues repeat with a dashed line (_styles).
QUALITATIVE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
               "#17becf", "#000000", "#0b3d91")
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p")
LINE_STYLES: tuple[Any, ...] = ("-", "--", ":", "-.")


def _palette(n: int) -> list[Any]:
    return [QUALITATIVE[i % len(QUALITATIVE)] for i in range(n)]


def _styles(n: int) -> list[tuple[Any, Any, str]]:
    """(colour, line style, marker) for ``n`` categories: distinct hues and markers, then the hues again dashed, ..."""
    return [(QUALITATIVE[i % len(QUALITATIVE)], LINE_STYLES[(i // len(QUALITATIVE)) % len(LINE_STYLES)],
             MARKERS[i % len(MARKERS)]) for i in range(n)]


def _legend_outside(fig: Figure, handles: Sequence[Any], *, title: str | None = None) -> None:
    """The figure's legend to the right of its axes, never over the data (the figure is constrained-layout)."""
    fig.legend(handles=list(handles), loc="outside right upper", title=title, frameon=False)


def _alpha_text(alpha: Fraction) -> str:
    """alpha by the rule of every readable output (0.1, 1/2, 355/113), as the report's tables write it."""
    return short_number(alpha)


def _limit_label(limit: Sequence[str]) -> str:
    """An exact limit by the rule of every readable output (verify.core.text.short_number): (-1/18, 5/36)."""
    return "(" + ", ".join(short_number(Fraction(x)) for x in limit) + ")"


@_styled
def worked_panels(records: Sequence[dict[str, Any]], out_dir: Path) -> FigureInfo | None:
    """[P1] Figure 2 style: one row per worked configuration, columns at layers 0, 1, 2, 5 and the last.

    A token keeps one colour in every column: the colour of its certified limit (tokens that
    share a limit share a colour; grey: no certified limit), listed in the row's legend.
    """

    worked = [r for r in records if r["task"]["kind"] == "worked" and r.get("status") != "error"
              and len(r["configuration"]["tokens"][0]) == 2]
    if not worked:
        return None
    last = WORKED_LAST_LAYER
    columns = list(PANEL_LAYERS) + [last]
    fig = Figure(figsize=(WIDTH_INCHES, 2.0 * len(worked) + 0.8), layout="constrained")
    grid = fig.add_gridspec(len(worked), len(columns))
    for row, record in enumerate(worked):
        config = parse_configuration(record["configuration"], outside_hypotheses=True)
        trajectory = simulate(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                              layers=last)
        positions = np.array([[[float(x) for x in p] for p in layer] for layer in trajectory.positions])
        n = config.n
        fates = {f["token"]: f for f in record["fates"]}
        limits = sorted({tuple(f["limit"]) for f in record["fates"] if f.get("limit")},
                        key=lambda limit: [float(Fraction(x)) for x in limit])
        limit_colour = dict(zip(limits, _palette(len(limits))))
        colours = [limit_colour.get(tuple(fates.get(i, {}).get("limit") or ()), "0.6") for i in range(n)]
        leader_limits = [(f["token"], _limit(f)) for f in record["fates"] if f["kind"] == "leader" and f.get("limit")]
        other_limits = [_limit(f) for f in record["fates"] if f["kind"] != "leader" and f.get("limit")]
        low, high = positions.reshape(-1, 2).min(axis=0), positions.reshape(-1, 2).max(axis=0)
        pad = 0.08 * max(float((high - low).max()), 1e-9)
        for col, k in enumerate(columns):
            ax = fig.add_subplot(grid[row, col])
            # One collection per kind of mark (not one artist per token): drawing stays fast.
            ax.add_collection(LineCollection([positions[:k + 1, i] for i in range(n)], colors="0.75",
                                             linewidths=0.8, zorder=1))
            if leader_limits:
                vertices = np.array([v for _, v in leader_limits])
                order = hull_order(vertices)
                closed = np.vstack([vertices[order], vertices[order[:1]]])
                ax.plot(closed[:, 0], closed[:, 1], color="0.2", linewidth=1.0, linestyle="--", zorder=2)
            attention = trajectory.attention[k]
            leads = [attention[i] == frozenset({i}) for i in range(n)]
            ties = [len(attention[i]) > 1 for i in range(n)]
            for is_leader, marker, size in ((False, "o", 30), (True, "*", 110)):
                chosen = [i for i in range(n) if leads[i] == is_leader]
                if chosen:
                    ax.scatter(positions[k, chosen, 0], positions[k, chosen, 1], s=size, marker=marker,
                               facecolors=[colours[i] for i in chosen],
                               edgecolors=["black" if (ties[i] or leads[i]) else colours[i] for i in chosen],
                               linewidths=[1.4 if ties[i] else 0.8 for i in chosen], zorder=3)
            marks = np.array([limit for limit in other_limits if limit is not None])
            if len(marks):
                ax.scatter(marks[:, 0], marks[:, 1], marker="x", color="black", s=35, linewidths=1.2, zorder=4)
            ax.set_xlim(low[0] - pad, high[0] + pad)
            ax.set_ylim(low[1] - pad, high[1] + pad)
            ax.set_aspect("equal", adjustable="box")
            ax.xaxis.set_major_locator(MaxNLocator(3))
            ax.yaxis.set_major_locator(MaxNLocator(3))
            if row == 0:
                ax.set_title(f"layer {k}")
            if col == 0:
                ax.set_ylabel(f"{record['task']['name'].replace('_', ' ')}\nalpha = {_alpha_text(config.alpha)}",
                              fontsize=STYLE["axes.titlesize"])
        # The row's limits, beside its last panel: which colour is which certified limit.
        handles = [Line2D([], [], marker="o", linestyle="", markerfacecolor=limit_colour[limit],
                          markeredgecolor=limit_colour[limit], label=_limit_label(limit)) for limit in limits]
        if any(tuple(fates.get(i, {}).get("limit") or ()) not in limit_colour for i in range(n)):
            handles.append(Line2D([], [], marker="o", linestyle="", color="0.6", label="no certified limit"))
        ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.04, 0.5), frameon=False,
                  title="colour: the limit", borderaxespad=0.0, handletextpad=0.3)
    # What the marks mean, once for every row.
    keys = [Line2D([], [], marker="*", linestyle="", markersize=10, color="0.3", label="leader (C_i = {i})"),
             Line2D([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor="black",
                    markeredgewidth=1.4, label="tie (|C_i| > 1)"),
             Line2D([], [], marker="x", linestyle="", color="black", label="non-vertex limit"),
             Line2D([], [], linestyle="--", color="0.2", label="K, hull of the leaders' limits"),
             Line2D([], [], color="0.75", label="trail since layer 0")]
    fig.legend(handles=keys, loc="outside lower center", ncol=len(keys), frameon=False)
    fig.suptitle(f"The worked configurations of docs/theory.md §4: exact hardmax dynamics, layers "
                 f"{', '.join(str(k) for k in columns)}")
    png, svg = _save(fig, out_dir, "worked_panels", svg=True)
    return FigureInfo("worked_panels", png, svg, "Worked configurations (docs/theory.md §4, [P1] Figure 2)",
                      "Rows: the worked configurations; columns: layers 0, 1, 2, 5 and 30 of the exact dynamics. "
                      "Colour: the token's certified limit, the same in every column (tokens with the same limit "
                      "share a colour; the key beside each row gives the limits). Stars: leaders at that layer "
                      "(C_i = {i}); a thick black edge marks a tie (|C_i| > 1). Grey lines: trails since layer 0. "
                      "Dashed polygon: K, the convex hull of the leaders' certified limits. "
                      "Crosses: certified limits of non-leaders (fixed or locked tokens, docs/theory.md D7).")


def _families(records: Sequence[dict[str, Any]]) -> list[str]:
    return sorted({r["task"]["family"] for r in records})


def _alpha_value(record: dict[str, Any]) -> Fraction:
    return Fraction(str(record["configuration"]["alpha"]))


def _alpha_colours(alphas: Sequence[Fraction]) -> dict[Fraction, Any]:
    """Distinct alphas on a sequential colour map (small alpha light-blue to large alpha dark-red)."""
    from matplotlib import colormaps

    cmap = colormaps["plasma"]
    ordered = sorted(set(alphas))
    if len(ordered) == 1:
        return {ordered[0]: cmap(0.1)}
    return {a: cmap(0.05 + 0.8 * i / (len(ordered) - 1)) for i, a in enumerate(ordered)}


def _selection(records: Sequence[dict[str, Any]]) -> str:
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    return f"{len(records):,} configurations ({worked:,} worked, {len(records) - worked:,} generated)"


@_styled
def convergence_figure(records: Sequence[dict[str, Any]], out_dir: Path) -> FigureInfo | None:
    ok = [r for r in records if r.get("status") != "error" and r.get("convergence", {}).get("max_A_distance")]
    if not ok:
        return None
    alphas = _alpha_colours([_alpha_value(r) for r in ok])
    fig = Figure(figsize=(WIDTH_INCHES, 4.4), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    longest = max(len(r["convergence"]["max_A_distance"]) for r in ok)
    handles: list[Any] = []
    for alpha, colour in alphas.items():
        group = [r for r in ok if _alpha_value(r) == alpha]
        for record in group:
            series = np.array(record["convergence"]["max_A_distance"], dtype=float)
            # Exactly zero once every token with a limit sits on it: no point on a log scale (a gap).
            ax.semilogy(np.arange(len(series)), np.where(series > 0, series, np.nan), color=colour, alpha=0.5,
                        linewidth=0.9)
        # D7: after its lock layer a token approaches its limit by the factor 1/(1 + alpha) per layer,
        # a straight line of slope -log(1 + alpha) on this scale; drawn from the group's largest start.
        start = max(float(r["convergence"]["max_A_distance"][0]) for r in group)
        layers = np.arange(longest)
        ax.semilogy(layers, np.maximum(start * (1 + float(alpha)) ** -layers, 1e-300), color=colour, linestyle="--",
                    linewidth=1.6)
        handles.append(Line2D([], [], color=colour, marker="o", markersize=5, linewidth=1.2,
                              label=f"alpha = {_alpha_text(alpha)} ({len(group):,} examples)"))
    handles.append(Line2D([], [], color="0.3", linestyle="--", linewidth=1.6,
                          label="dashed: rate 1/(1 + alpha)\nper layer after locking (D7)"))
    top = max((max(r["convergence"]["max_A_distance"]) for r in ok), default=1.0)
    smallest = min((x for r in ok for x in r["convergence"]["max_A_distance"] if x > 0), default=1e-30)
    ax.set_ylim(max(smallest, 1e-35) / 10, max(top, 1e-30) * 10)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("layer k")
    ax.set_ylabel("max_i ||z_i^k - s_i||_A")
    ax.set_title(f"A-distance to the certified limits,\n{_selection(ok)}")
    ax2 = fig.add_subplot(1, 2, 2)
    families = _families(ok)
    for index, family in enumerate(families):
        points = [(f["layer"], _alpha_value(r)) for r in ok if r["task"]["family"] == family for f in r["fates"]
                  if f["kind"] != "leader" and f.get("layer") is not None]
        if points:
            jitter = np.linspace(-0.25, 0.25, len(points)) if len(points) > 1 else np.zeros(1)
            ax2.scatter(np.array([p[0] for p in points]), index + jitter, s=9, alpha=0.8,
                        color=[alphas[p[1]] for p in points])
    last_lock = max((f["layer"] for r in ok for f in r["fates"] if f["kind"] != "leader" and f.get("layer") is not None),
                    default=0)
    ax2.set_xlim(-0.5, max(last_lock, 1) + 0.5)
    ax2.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.set_yticks(range(len(families)))
    ax2.set_yticklabels(families)
    ax2.set_ylim(-0.6, len(families) - 0.4)
    ax2.set_xlabel("layer at which a non-leader locked or became fixed (D7)")
    ax2.set_title("Locking layers by family,\none dot per non-leader, coloured by alpha")
    # One legend for both panels: the colours are alpha's in each.
    _legend_outside(fig, handles, title="colour: alpha\n(both panels)")
    png, svg = _save(fig, out_dir, "convergence")
    return FigureInfo("convergence", png, svg, "Convergence",
                      "Left: for each example, the largest A-distance between a token and its certified limit "
                      "against the layer (log scale), coloured by alpha: exact squared distances, square root in "
                      "float64. A curve ends where every certified token sits exactly on its limit (distance 0, "
                      "which a log scale cannot show). Dashed, "
                      "in the same colour: the rate D7 proves after a token locks, a factor 1/(1 + alpha) per "
                      "layer (slope -log(1 + alpha)), drawn from the largest starting distance of that alpha. "
                      "Right: the layer at which each non-leader locked or became fixed (exact, docs/theory.md D7), "
                      "one row per family, coloured by alpha. The legend gives the colour of each alpha in both "
                      "panels.")


def family_envelope(records: Sequence[dict[str, Any]]) -> np.ndarray:
    """Per layer, the largest |float - exact| over ``records`` (NaN past a record's last layer)."""
    series = [np.array(r["float_comparison"]["max_abs_difference"], dtype=float) for r in records]
    longest = max(len(x) for x in series)
    padded = np.full((len(series), longest), np.nan)
    for row, values in enumerate(series):
        padded[row, :len(values)] = values
    return np.nanmax(padded, axis=0)


@_styled
def float_figure(records: Sequence[dict[str, Any]], out_dir: Path) -> FigureInfo | None:
    ok = [r for r in records if r.get("float_comparison")]
    if not ok:
        return None
    families = _families(ok)
    styles = dict(zip(families, _styles(len(families))))
    fig = Figure(figsize=(WIDTH_INCHES, 5.4), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.15, 1])  # type: ignore[misc]  # an array of two
    ax = left.add_subplot(1, 1, 1)
    # Zero is exact agreement. The scale is logarithmic above 1e-18 and linear below it, so that 0
    # is drawn at 0, not at an invented tiny value (a log scale has no zero).
    threshold = 1e-18
    for family in families:
        colour, style, marker = styles[family]
        group = [r for r in ok if r["task"]["family"] == family]
        envelope = family_envelope(group)
        ax.plot(np.arange(len(envelope)), envelope, color=colour, linestyle=style, marker=marker, markersize=4,
                markevery=max(1, len(envelope) // 8), linewidth=1.2, label=family)
        for record in group:
            c = record["float_comparison"]
            if c["first_differing_layer"] is not None:
                k = c["first_differing_layer"]
                ax.scatter([k], [c["max_abs_difference"][k]], marker=marker, s=40, color=colour,
                           edgecolors="black", linewidths=0.8, zorder=3)
    ax.set_yscale("symlog", linthresh=threshold, linscale=0.4)
    ax.set_ylim(bottom=0)
    top = max(float(np.nanmax(family_envelope([r for r in ok if r["task"]["family"] == f]))) for f in families)
    decades = range(-16, max(int(np.ceil(np.log10(max(top, 1e-16)))), -15) + 1, 4)
    ax.set_yticks([0.0, *(10.0 ** e for e in decades)], ["0", *(f"1e{e}" for e in decades)])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("layer k")
    ax.set_ylabel("largest |float - exact| of the family (0: exact agreement)")
    ax.set_title(f"How far float64 drifts from the exact run,\n{_selection(ok)}")
    handles = [Line2D([], [], color=styles[f][0], linestyle=styles[f][1], marker=styles[f][2], markersize=5,
                      linewidth=1.4, label=f) for f in families]
    handles.append(Line2D([], [], marker="o", linestyle="", color="0.6", markeredgecolor="black",
                          label="black-edged mark: first layer\nwith another attention set"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False,
              title="family (this panel)")
    ax2 = right.add_subplot(1, 1, 1)
    counts = []
    for family in families:
        rows = [r["float_comparison"] for r in ok if r["task"]["family"] == family]
        counts.append((sum(c["first_undecided_layer"] is not None for c in rows),
                       sum(c["first_differing_layer"] is not None for c in rows), len(rows)))
    positions = np.arange(len(families))
    ax2.bar(positions - 0.2, [c[0] for c in counts], width=0.4, color="0.35", label="float flagged a set undecided")
    ax2.bar(positions + 0.2, [c[1] for c in counts], width=0.4, color="0.75", edgecolor="0.35", linewidth=0.6,
            label="float chose a different set")
    ax2.set_xticks(positions)
    ax2.set_xticklabels(families, rotation=40, ha="right")
    ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.set_ylabel("examples")
    ax2.set_title("Float attention sets against exact ones,\nper family")
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=1, frameon=False)
    png, svg = _save(fig, out_dir, "exact_vs_float")
    return FigureInfo("exact_vs_float", png, svg, "Exact against float",
                      "Left: per family, the largest coordinate difference between the float64 and the exact "
                      "positions at each layer, over the family's examples; the vertical scale is logarithmic "
                      "above 1e-18 and linear below, so exact agreement is drawn at 0 (legend under the panel; "
                      "black-edged marks: the first layer at which float64 chose a different attention set than "
                      "exact arithmetic, one per example). Right: per family, examples where float64 flagged a set "
                      "undecided and examples where it chose a different attention set than exact arithmetic.")


@_styled
def denominator_figure(records: Sequence[dict[str, Any]], out_dir: Path) -> FigureInfo | None:
    ok = [r for r in records if r.get("denominator_bits")]
    if not ok:
        return None
    families = _families(ok)
    styles = dict(zip(families, _styles(len(families))))
    fig = Figure(figsize=(WIDTH_INCHES, 4.4), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    for family in families:
        colour, style, _ = styles[family]
        for record in (r for r in ok if r["task"]["family"] == family):
            bits = record["denominator_bits"]
            ax.plot(range(len(bits)), bits, color=colour, linestyle=style, alpha=0.8, linewidth=1.0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.set_xlabel("layer k")
    ax.set_ylabel("bit length of the common denominator")
    ax.set_title(f"The cost of exactness, {_selection(ok)}")
    _legend_outside(fig, [Line2D([], [], color=styles[f][0], linestyle=styles[f][1], linewidth=1.6, label=f)
                          for f in families], title="family")
    png, svg = _save(fig, out_dir, "denominator_bits")
    return FigureInfo("denominator_bits", png, svg, "The cost of exactness",
                      "Bit length of the common denominator of all positions at each layer of the exact run "
                      "(exact), one line per example, coloured by family. Growth is roughly linear in the layer: "
                      "each layer multiplies by (1 + alpha) and by the sizes of the attention sets.")


@_styled
def leaders_figure(records: Sequence[dict[str, Any]], out_dir: Path) -> FigureInfo | None:
    ok = [r for r in records if r.get("status") != "error" and r.get("fates")]
    if not ok:
        return None
    fig = Figure(figsize=(WIDTH_INCHES, 4.2), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    dims = sorted({len(r["configuration"]["tokens"][0]) for r in ok})
    styles = dict(zip(dims, _styles(len(dims))))
    for d in dims:
        rows = [r for r in ok if len(r["configuration"]["tokens"][0]) == d]
        n = [len(r["configuration"]["tokens"]) for r in rows]
        leaders = [sum(f["kind"] == "leader" for f in r["fates"]) for r in rows]
        ax.scatter(n, leaders, color=styles[d][0], marker=styles[d][2], s=24, label=f"d = {d} ({len(rows):,} examples)",
                   alpha=0.8)
    top = max(len(r["configuration"]["tokens"]) for r in ok)
    ax.plot([0, top], [0, top], color="0.6", linewidth=0.8, linestyle=":", label="every token leads")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0, top + 1)
    ax.set_ylim(0, top + 1)
    ax.set_xlabel("number of tokens n")
    ax.set_ylabel("number of leaders")
    ax.set_title(f"Leaders against n and d, {_selection(ok)}")
    _legend_outside(fig, ax.get_legend_handles_labels()[0])
    png, svg = _save(fig, out_dir, "leaders")
    return FigureInfo("leaders", png, svg, "Leaders",
                      "Number of leaders (tokens with C_i = {i} at some layer, exact) against the number of "
                      "tokens n, coloured by the dimension d; dotted: every token leads.")


# Costliest first: with two processes the worked panels take one, the rest the other.
FIGURES = (worked_panels, convergence_figure, float_figure, denominator_figure, leaders_figure)
_drawing: tuple[Sequence[dict[str, Any]], Path] | None = None  # a forked drawer's records and folder


def _adopt(records: Sequence[dict[str, Any]], out_dir: Path) -> None:
    global _drawing
    _drawing = (records, out_dir)


def _draw_adopted(index: int) -> FigureInfo | None:
    assert _drawing is not None
    return FIGURES[index](*_drawing)


def write_figures(records: Sequence[dict[str, Any]], out_dir: Path, *, jobs: int = 1) -> list[FigureInfo]:
    """Draw every figure the records support into ``out_dir/figures``; return what was written.

    With ``jobs`` > 1 (where processes can fork) the figures are drawn side by side in forked
    processes, which inherit the records instead of receiving a copy; each figure is drawn by the
    same code either way, so its bytes do not depend on ``jobs``.
    """
    if jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(max_workers=min(jobs, len(FIGURES)), mp_context=multiprocessing.get_context("fork"),
                                 initializer=_adopt, initargs=(records, out_dir)) as pool:
            drawn = list(pool.map(_draw_adopted, range(len(FIGURES))))
    else:
        drawn = [draw(records, out_dir) for draw in FIGURES]
    return [info for info in drawn if info is not None]
