"""report.md and report.html fold the same blocks (long tables, galleries) behind the same summary line."""

from __future__ import annotations

import re

from verify.app.report.figures import FigureInfo
from verify.app.report.render import LONG_TABLE_ROWS, Block, folded_summary, to_html, to_markdown

# A 1 x 1 PNG: the HTML embeds figures, so they must exist.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
SUMMARY = re.compile(r"<details><summary>(.*?)</summary>", re.S)


def _table(rows: int, name: str, text: str = "") -> Block:
    return Block("table", text=text, headers=["example", "status"], rows=[[f"{name}-{i}", "C"] for i in range(rows)])


def _blocks(tmp_path) -> list[Block]:
    (tmp_path / "figures").mkdir()
    figures = []
    for name in ("words", "curves", "single"):
        (tmp_path / "figures" / f"{name}.png").write_bytes(PNG)
        figures.append(FigureInfo(name, f"figures/{name}.png", None, f"model-d2: {name}", f"The {name}."))
    return [Block("h1", "Report"),
            _table(3, "short"),
            _table(LONG_TABLE_ROWS, "edge"),  # exactly at the limit: shown
            _table(LONG_TABLE_ROWS + 1, "long", text="21 examples: 21 **certified**"),
            Block("gallery", text="model-d2: words, curves", figures=figures[:2]),
            Block("figure", figure=FigureInfo("single", "figures/single.png", None, "Alone", "One figure."))]


def _folded_parts(text: str) -> list[str]:
    return re.findall(r"<details>.*?</details>", text, re.S)


def test_markdown_and_html_fold_the_same_blocks_behind_the_same_summary(tmp_path):
    blocks = _blocks(tmp_path)
    assert [folded_summary(b) is not None for b in blocks] == [False, False, False, True, True, False]
    markdown, page = to_markdown(blocks), to_html(blocks, report_dir=tmp_path)
    assert SUMMARY.findall(markdown) == SUMMARY.findall(page) == [
        "Show the table (21 examples: 21 <strong>certified</strong>)", "model-d2: words, curves (2 figures)"]
    for text in (markdown, page):
        table, gallery = _folded_parts(text)
        assert "long-0" in table and f"long-{LONG_TABLE_ROWS}" in table  # every row, inside the fold
        assert "figures/words.png" in gallery or "data:image/png" in gallery
        outside = re.sub(r"<details>.*?</details>", "", text, flags=re.S)
        assert "short-2" in outside and f"edge-{LONG_TABLE_ROWS - 1}" in outside
        assert "long-0" not in outside
    # Markdown inside <details> renders on GitHub only with blank lines around it.
    table, gallery = _folded_parts(markdown)
    assert table.startswith("<details><summary>Show the table") and "</summary>\n\n| example | status |" in table
    assert table.endswith("|\n\n</details>")
    assert "![model-d2: words]" in gallery and "![model-d2: curves]" in gallery
    assert "figures/single.png" in re.sub(r"<details>.*?</details>", "", markdown, flags=re.S)
