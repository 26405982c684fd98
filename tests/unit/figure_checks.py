"""Does any text of a matplotlib figure reach past the figure's edge, where the saved image cuts it?

:func:`text_outside` draws the figure and measures every visible text (titles, axis labels,
tick labels, legend entries, annotations) against the figure's box in pixels;
:func:`legends_over_content` finds a legend over the data or over another text;
:func:`annotations_across_axes` finds a note on the data that runs over its axes' frame;
:func:`saved_figures` records every figure saved while it is active, so that a test can run
a drawing function as it is (one that saves through ``Figure.savefig`` or ``pyplot``, or writes the
pixels of an Agg canvas itself) and then measure what it saved.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

# Sub-pixel anti-aliasing at the edge is not a cut.
TOLERANCE_PX = 1.0


def text_outside(fig: Figure) -> list[str]:
    """One line per visible text whose extent leaves the figure (empty: every text is inside)."""
    renderer = drawn(fig)
    if getattr(fig, "saved_tight", False):
        return []
    width, height = fig.bbox.width, fig.bbox.height
    problems = []
    for text in _drawn_texts(fig):
        box = text.get_window_extent(renderer)
        sides = [side for side, beyond in (("left", -box.x0), ("right", box.x1 - width), ("bottom", -box.y0),
                                           ("top", box.y1 - height)) if beyond > TOLERANCE_PX]
        if sides:
            problems.append(f"{text.get_text()!r} crosses the {' and '.join(sides)} edge "
                            f"(x {box.x0:.0f}..{box.x1:.0f} of {width:.0f}, y {box.y0:.0f}..{box.y1:.0f} of {height:.0f} px)")
    return problems


def legends_over_content(fig: Figure) -> list[str]:
    """Legends lying over an axes' plotting area, or over a text that is not their own (a label, a title)."""
    renderer = drawn(fig)
    legends = [legend for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if legend is not None]
    problems = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        own = {id(text) for text in legend.findobj(Text)}
        problems += [f"a legend ({', '.join(t.get_text() for t in legend.get_texts()[:2])}, ...) lies over the axes "
                     f"titled {ax.get_title()!r}" for ax in fig.axes if box.overlaps(ax.bbox)]
        problems += [f"a legend lies over the text {text.get_text()!r}" for text in _drawn_texts(fig)
                     if id(text) not in own and box.overlaps(text.get_window_extent(renderer))]
    return problems


def annotations_across_axes(fig: Figure) -> list[str]:
    """Annotations of an axes (notes at data points) whose extent crosses that axes' frame."""
    renderer = drawn(fig)
    problems = []
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            if not (text.get_visible() and text.get_text().strip() and _drawn(text)):
                continue
            box = text.get_window_extent(renderer)
            sides = [side for side, beyond in (("left", frame.x0 - box.x0), ("right", box.x1 - frame.x1),
                                               ("bottom", frame.y0 - box.y0), ("top", box.y1 - frame.y1))
                     if beyond > TOLERANCE_PX]
            if sides:
                problems.append(f"{text.get_text()!r} crosses the {' and '.join(sides)} side of the axes "
                                f"titled {ax.get_title()!r}")
    return problems


def _drawn_texts(fig: Figure) -> list[Text]:
    """The texts the renderer draws: an axis keeps labels for ticks outside its view, which it does not draw."""
    every_tick_label: set[int] = set()
    shown: list[Text] = []
    for ax in fig.axes:
        for axis in ax._axis_map.values():  # type: ignore[attr-defined]
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                every_tick_label.update((id(tick.label1), id(tick.label2)))
            for tick in axis._update_ticks():  # the ticks this draw shows
                shown += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    shown += [text for text in fig.findobj(Text) if id(text) not in every_tick_label]
    return [text for text in shown if text.get_visible() and text.get_text().strip() and _drawn(text)]


def drawn(fig: Figure) -> Any:
    """Draw ``fig`` on the Agg canvas (the one the report saves with) and return its renderer."""
    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()  # type: ignore[attr-defined]


def _drawn(text: Text) -> bool:
    """Whether the renderer draws ``text`` (annotations whose point lies outside their axes are not drawn)."""
    if hasattr(text, "_check_xy"):
        try:
            return bool(text._check_xy(text.figure.canvas.get_renderer()))  # type: ignore[union-attr,attr-defined]
        except (AttributeError, TypeError):
            return True
    return True


@contextmanager
def saved_figures() -> Iterator[list[Figure]]:
    """Every figure saved inside the block, in order: by ``Figure.savefig`` (which pyplot's savefig calls
    too), or drawn on an Agg canvas whose pixels the caller takes out to write itself (the report's
    figures). A figure only drawn (to measure it, say) is not saved, and not listed."""
    saved: list[Figure] = []
    original_save, original_pixels = Figure.savefig, FigureCanvasAgg.buffer_rgba

    def keep(fig: Figure) -> None:
        if not any(fig is other for other in saved):
            saved.append(fig)

    def recording(self: Figure, *args: object, **kwargs: object) -> object:
        # A figure saved with bbox_inches="tight" is cut to the box around everything drawn: no
        # text can be cut, whatever the figure's own size (text_outside then has nothing to say).
        self.saved_tight = kwargs.get("bbox_inches") == "tight"  # type: ignore[attr-defined]
        keep(self)
        return original_save(self, *args, **kwargs)

    def pixels(self: FigureCanvasAgg) -> object:
        keep(self.figure)
        return original_pixels(self)

    Figure.savefig = recording  # type: ignore[method-assign]
    FigureCanvasAgg.buffer_rgba = pixels  # type: ignore[method-assign]
    try:
        yield saved
    finally:
        Figure.savefig = original_save  # type: ignore[method-assign]
        FigureCanvasAgg.buffer_rgba = original_pixels  # type: ignore[method-assign]
