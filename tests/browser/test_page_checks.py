"""The browser checks can fail: a deliberately broken page trips every one of them, its repair none.

The broken page has an image that does not load, a figure whose label runs off its edge, a table
wider than the page outside any scroll container, a link to an anchor that does not exist, a
script error, a block that ends below 900 px, and a figure whose text is shown at 4 px (drawn at 8
px, shown at half its width); the repaired page differs only in those seven places.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from page_checks import (bottom_of, broken_images, console_errors, cut_figures, dangling_anchors, load,
                         overflowing_elements, set_viewport, small_figure_text)

pytestmark = pytest.mark.slow   # starts a browser


def _png(*, cut: bool = False) -> str:
    fig = Figure(figsize=(2, 1.2), layout="constrained")  # a margin inside the border, as the report's figures
    FigureCanvasAgg(fig)
    fig.add_subplot(1, 1, 1).plot([0, 1], [0, 1])
    if cut:  # a label running off the picture's right edge
        fig.text(0.8, 0.5, "ridiculously", fontsize=12)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _page(*, broken: bool) -> str:
    image = 'src="no-such-figure.png"' if broken else f'src="data:image/png;base64,{_png()}"'
    cut = f'src="data:image/png;base64,{_png(cut=broken)}"'
    width = "1500px" if broken else "auto"
    wrapper = ("<div>", "</div>") if broken else ('<div style="overflow-x:auto">', "</div>")
    anchor = "#nowhere" if broken else "#results"
    script = "<script>undefinedFunction();</script>" if broken else "<script>document.title = 'fine';</script>"
    spacer = '<div style="height:1200px"></div>' if broken else ""
    # 200 px wide as drawn (2 inches at 100 dpi): its 8 px text at half that width is 4 px on the page.
    small = 'data-text-px="8" style="width:100px"' if broken else 'data-text-px="12" style="width:200px"'
    sizes = 'data-text-px="14"'
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>fixture</title>
<style>body{{max-width:1200px;margin:1em auto;padding:0 1em}}</style></head><body>
{spacer}<section class="glance" id="results"><h2>Results</h2><p>At a glance.</p></section>
<p><a href="{anchor}">to the results</a></p>
<figure><img alt="a figure" {sizes} {image}></figure>
<figure><img alt="a labelled figure" {sizes} {cut}></figure>
<figure><img alt="a figure with small text" {small} src="data:image/png;base64,{_png()}"></figure>
{wrapper[0]}<table style="width:{width}"><tr><td>a wide table</td></tr></table>{wrapper[1]}
{script}
</body></html>"""


@pytest.fixture(params=[False, True], ids=["repaired", "broken"])
def page(request: pytest.FixtureRequest, tmp_path: Path, chromium: Any) -> bool:
    path = tmp_path / "page.html"
    path.write_text(_page(broken=request.param), encoding="utf-8")
    chromium.get_log("browser")   # drop what earlier pages logged
    set_viewport(chromium, 900)
    load(chromium, path)
    return request.param


def test_every_check_reports_the_broken_page_and_passes_the_repaired_one(page: bool, chromium: Any) -> None:
    broken = page
    images = broken_images(chromium)
    overflow = overflowing_elements(chromium)
    anchors = dangling_anchors(chromium)
    errors = console_errors(chromium)
    figures = cut_figures(chromium)
    text = small_figure_text(chromium, 8)
    bottom = bottom_of(chromium, ".glance")
    assert bottom is not None
    if not broken:
        assert (images, overflow, anchors, errors, figures, text) == ([], [], [], [], [], [])
        assert bottom <= 900
        return
    assert images == ["a figure"]
    assert any("scrolls sideways" in p for p in overflow), overflow
    assert any(p.startswith("table") for p in overflow), overflow
    assert anchors == ["#nowhere"]
    assert len(figures) == 1 and figures[0].startswith("a labelled figure: ") and figures[0].endswith(
        "drawn pixels on its right edge (something is cut off)")
    assert any("undefinedFunction" in e for e in errors), errors
    assert any("no-such-figure.png" in e for e in errors), errors
    assert bottom > 900
    assert text == ["a figure with small text: its smallest text is shown at 4.0 px (drawn at 8 px, the image at "
                    "100 of its 200 px)"], text
