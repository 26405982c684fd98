"""Figures of a sweep (docs/sweep.md): heatmaps of each cell's extreme and median, and curves against alpha.

Drawn from the sweep's record alone (``sweep.json``), with matplotlib's object API on the Agg
canvas (no pyplot state) and fixed PNG metadata (:func:`verify.core.figure_text.png_metadata`):
the same record gives the same bytes. Figures illustrate; which extremes are certified is
decided by the exact check and marked on the heatmap (an extreme that is not certified is
shown with a question mark). A sweep with the optimiser stage draws its certified best on the
curves as a second marker (a cross), beside the sampled extreme.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from verify.core.figure_text import png_metadata
from verify.core.io import atomic_write_bytes, safe_name
from verify.core.text import short_number

__all__ = ["write_sweep_figures", "STATISTICS"]

DPI = 110
# The two statistics a heatmap shows: the cell's extreme (its certified value when certified) and its median.
STATISTICS: tuple[tuple[str, str], ...] = (("max", "extreme"), ("q50", "median"))
STYLE = {"font.size": 9, "axes.titlesize": 9.5, "axes.labelsize": 9, "xtick.labelsize": 8, "ytick.labelsize": 8,
         "legend.fontsize": 8, "figure.titlesize": 10.5}


def _value(result: dict[str, Any], statistic: str) -> int | None:
    if statistic == "max" and result.get("extreme") and result["extreme"].get("certified"):
        return int(result["extreme"]["certified_value"])
    value = result.get(statistic)
    return None if value is None else int(value)


def _optimised_value(result: dict[str, Any]) -> int | None:
    """The optimiser's best where it is certified (an uncertified one is not drawn)."""
    found = result.get("optimised")
    return int(found["certified_value"]) if found and found.get("certified") else None


def _measured(record: dict[str, Any], family: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(e["cell"], e["result"]) for e in record["cells"]
            if e["cell"]["family"] == family and e.get("result") is not None]


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata=png_metadata(fig, DPI))
    return buffer.getvalue()


def _log2(alpha: str) -> float:
    """log2 of an exact alpha, also beyond float64's range (the curves' axis)."""
    value = Fraction(alpha)
    return math.log2(value.numerator) - math.log2(value.denominator)


def _figure(size: tuple[float, float]) -> Any:
    """A figure on its own Agg canvas (no pyplot state)."""
    # matplotlib: seconds to import, and needed only once the cells are done.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _heatmap(record: dict[str, Any], family: str) -> Any | None:
    cells = _measured(record, family)
    if not cells:
        return None
    ds = sorted({c["d"] for c, _ in cells})
    ns = sorted({c["n"] for c, _ in cells})
    alphas = sorted({c["alpha"] for c, _ in cells}, key=Fraction)
    by_cell = {(c["n"], c["d"], c["alpha"]): r for c, r in cells}
    fig = _figure((max(6.4, 0.7 * len(alphas) * len(ds) + 2.4), 1.4 + 0.5 * len(ns) * len(STATISTICS)))
    axes = fig.subplots(len(STATISTICS), len(ds), squeeze=False)
    values = [v for r in by_cell.values() for s, _ in STATISTICS if (v := _value(r, s)) is not None]
    low = min(0, min(values, default=0))
    high = max(values, default=0)
    high = high if high > low else low + 1
    for row, (statistic, label) in enumerate(STATISTICS):
        for column, d in enumerate(ds):
            ax = axes[row][column]
            grid = [[math.nan] * len(alphas) for _ in ns]
            for i, n in enumerate(ns):
                for j, alpha in enumerate(alphas):
                    result = by_cell.get((n, d, alpha))
                    value = None if result is None else _value(result, statistic)
                    if value is None:
                        continue
                    grid[i][j] = value
                    uncertified = statistic == "max" and not (result or {}).get("extreme", {}).get("certified")
                    ax.text(j, i, f"{value}{'?' if uncertified else ''}", ha="center", va="center", fontsize=8,
                            color="white" if value < (low + high) / 2 else "black")
            image = ax.imshow(grid, cmap="viridis", vmin=low, vmax=high, aspect="auto", origin="lower")
            ax.set_xticks(range(len(alphas)), [short_number(Fraction(a)) for a in alphas])
            ax.set_yticks(range(len(ns)), [str(n) for n in ns])
            ax.set_title(f"{label}, d = {d}")
            ax.set_xlabel("alpha")
            if column == 0:
                ax.set_ylabel("n")
    fig.colorbar(image, ax=axes, shrink=0.9, label=record["measurement"])
    fig.suptitle(f"{record['measurement']} per cell ({family}; ? = extreme not certified)")
    return fig


def _curves(record: dict[str, Any], family: str) -> Any | None:
    cells = _measured(record, family)
    alphas = {c["alpha"] for c, _ in cells}
    if len(alphas) < 2:
        return None
    # matplotlib: seconds to import, and needed only once the cells are done.
    from matplotlib.ticker import MaxNLocator

    ticks = sorted(alphas, key=Fraction)
    ds = sorted({c["d"] for c, _ in cells})
    ns = sorted({c["n"] for c, _ in cells})
    fig = _figure((max(6.4, 3.6 * len(ds) + 1.6), 3.4))
    axes = fig.subplots(1, len(ds), squeeze=False)[0]
    every = [v for _, r in cells for s, _ in STATISTICS if (v := _value(r, s)) is not None]
    every += [v for _, r in cells if (v := _optimised_value(r)) is not None]
    optimised = any(_optimised_value(r) is not None for _, r in cells)
    # Log scale where the values are positive and span more than a decade.
    logarithmic = bool(every) and min(every) > 0 and max(every) >= 10 * min(every)
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    for ax, d in zip(axes, ds):
        for index, n in enumerate(ns):
            points = sorted(((_log2(c["alpha"]), r) for c, r in cells if c["n"] == n and c["d"] == d),
                            key=lambda p: p[0])
            colour = colours[index % len(colours)]
            for (statistic, label), style in zip(STATISTICS, ("-", "--")):
                xs = [a for a, r in points if _value(r, statistic) is not None]
                ys = [_value(r, statistic) for a, r in points if _value(r, statistic) is not None]
                if xs:
                    ax.plot(xs, ys, style, marker="o", markersize=3, color=colour, label=f"n = {n}, {label}")
            found = [(a, v) for a, r in points if (v := _optimised_value(r)) is not None]
            if found:
                ax.plot([a for a, _ in found], [v for _, v in found], linestyle="none", marker="x", markersize=6,
                        color=colour, label=f"n = {n}, optimiser's best")
        ax.set_xticks([_log2(a) for a in ticks], [short_number(Fraction(a)) for a in ticks])
        if logarithmic:
            ax.set_yscale("log")
        else:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(bottom=min(0, min(every, default=0)), top=max(max(every, default=0) * 1.1, 1))
        ax.set_title(f"d = {d}")
        ax.set_xlabel("alpha (log scale)")
        ax.set_ylabel(record["measurement"])
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    if optimised:  # a longer key: on a line of its own
        fig.suptitle(f"{record['measurement']} against alpha ({family})\nsolid: extreme, dashed: median, "
                     "x: the optimiser's best (certified)")
    else:
        fig.suptitle(f"{record['measurement']} against alpha ({family}; solid: extreme, dashed: median)")
    return fig




def write_sweep_figures(record: dict[str, Any], out: Path) -> list[str]:
    """Draw the heatmap and the curves of every family of ``record`` into ``out/figures/``; the files written.

    A family with one alpha has no curve; a family with no measured cell, no figure.
    """
    import matplotlib  # matplotlib: seconds to import, only once the cells are done

    written: list[str] = []
    families: Sequence[str] = record["grid"]["families"]
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]  # the stubs list every rc key as a Literal
        for family in families:
            for kind, draw in (("heatmap", _heatmap), ("curves", _curves)):
                fig = draw(record, family)
                if fig is None:
                    continue
                name = f"figures/{safe_name(f'{kind}-{family}')}.png"
                (out / "figures").mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(out / name, _png(fig))
                written.append(name)
    return written
