"""How large a figure's text is: measured when the figure is drawn, written into its PNG, read by the report.

A PNG shown in a page is scaled to the page's width, so its text is as large as the figure drew
it times that scale. A figure's smallest text (tick labels, legend entries, annotations) is
measured from the figure itself, in pixels of the PNG (points x dpi / 72), and written into the
PNG as a ``tEXt`` chunk (:data:`TEXT_KEY`); the report copies it onto the image
(``data-text-px``), and the browser test multiplies it by the shown width over the natural
width: the size a reader sees (tests/browser/). Every figure of the report and of the saved
results is saved with :func:`png_metadata`.

Nothing here imports matplotlib: the figure object is asked for its own text artists.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

__all__ = ["TEXT_KEY", "smallest_text_px", "png_metadata", "declared_text_px", "png_size"]

TEXT_KEY = "Smallest text (px)"
_PNG = b"\x89PNG\r\n\x1a\n"


def _texts(fig: Any) -> list[Any]:
    """The visible text artists of ``fig`` that hold text (titles, labels, tick labels, legends, annotations)."""
    def is_text(artist: Any) -> bool:
        return (hasattr(artist, "get_fontsize") and hasattr(artist, "get_text") and artist.get_visible()
                and bool(str(artist.get_text()).strip()))

    return list(fig.findobj(match=is_text))


def smallest_text_px(fig: Any, dpi: float, *, drawn: bool = False) -> float | None:
    """The smallest font of ``fig``'s text, in pixels of a PNG saved at ``dpi`` (None: the figure has no text).

    The figure is laid out first (without rendering): tick labels get their text only then.
    ``drawn``: the caller has just drawn it, so that layout is already done.
    """
    if not drawn:
        fig.draw_without_rendering()
    sizes = [float(text.get_fontsize()) for text in _texts(fig)]
    return min(sizes) * dpi / 72 if sizes else None


def png_metadata(fig: Any, dpi: float, *, drawn: bool = False) -> dict[str, str | None]:
    """``savefig(metadata=...)`` of a PNG: no Software field (the bytes depend on data and versions only), and
    the figure's smallest text (:data:`TEXT_KEY`), when it has any (``drawn``: see :func:`smallest_text_px`)."""
    smallest = smallest_text_px(fig, dpi, drawn=drawn)
    return {"Software": None, **({TEXT_KEY: f"{smallest:.2f}"} if smallest is not None else {})}


def png_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) in pixels from a PNG's header, or None when ``png`` is not one."""
    if not png.startswith(_PNG) or len(png) < 24 or png[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def declared_text_px(png: bytes) -> float | None:
    """The smallest text a PNG declares (:data:`TEXT_KEY`), or None (not a PNG, or drawn without it)."""
    if not png.startswith(_PNG):
        return None
    at = len(_PNG)
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        data = png[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"tEXt" and b"\0" in data:
            key, _, value = data.partition(b"\0")
        elif kind == b"zTXt" and b"\0" in data:
            key, _, rest = data.partition(b"\0")
            try:
                value = zlib.decompress(rest[1:])
            except zlib.error:
                continue
        else:
            if kind == b"IEND":
                break
            continue
        if key.decode("latin-1") == TEXT_KEY:
            try:
                return float(value.decode("latin-1"))
            except ValueError:
                return None
    return None
