"""The numbers of the user docs are generated (scripts/readme_numbers.py), and its check catches stale ones."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("readme_numbers", REPO / "scripts" / "readme_numbers.py")
assert _spec is not None and _spec.loader is not None
numbers = importlib.util.module_from_spec(_spec)
sys.modules["readme_numbers"] = numbers
_spec.loader.exec_module(numbers)

GOOD_OUTPUT = """
Printed by `python bench/dynamics.py` on 2026-11-27 (2 cores, load average 1.00 0.50 0.25 before the run):

```text
workload: B=2000, n=128, d=2, 8 layers, alpha=2.35, tokens from a synthetic embedding
  (a) per-token loop (baseline)      6.570 ms/config
  (b) simulate_batch                 0.052 ms/config   speed-up vs (a):   127.0x  (target >= 30x)
  (c) exact, python-flint            8.200 ms/config
  (d) exact, plain Fraction        808.000 ms/config   (c) vs (d):    99.0x  (target >= 10x)
```
"""


def _pages(tmp_path: Path, readme: str, doc: str = "") -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "reports").mkdir()
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    (tmp_path / "reports" / "README.md").write_text("", encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text(doc, encoding="utf-8")
    (tmp_path / "docs" / "theory.md").write_text("<!-- generated: nonsense -->", encoding="utf-8")  # not a page
    return tmp_path


def _block(name: str, body: str = "") -> str:
    return f"<!-- generated: {name} -->{body}<!-- end -->"


def test_the_docs_agree_with_the_sources_of_their_numbers():
    assert numbers.check() == []


def test_derived_blocks_are_recomputed_and_a_stale_one_is_named(tmp_path):
    selftest = numbers.selftest_sentence()
    assert selftest.startswith(f"{len(numbers.EXACT_MUTANTS) + len(numbers.FLOAT_MUTANTS)} wrong variants")
    repo = _pages(tmp_path, f"runs {_block('selftest_variants', selftest)}.\n",
                  f"# Page\n\nruns {_block('selftest_variants', selftest.replace('wrong', 'bad'))}.\n")
    problems = numbers.check(repo)
    assert [p for p in problems if "is stale" in p] == [
        "docs/page.md:3: the block 'selftest_variants' is stale (python scripts/readme_numbers.py rewrites it)"]
    # Every source needs a page, and the specification is not one of the pages.
    assert "no page holds the block 'limits'" in problems and not [p for p in problems if "nonsense" in p]
    assert numbers.refresh(repo=repo) == ["docs/page.md"]
    assert not [p for p in numbers.check(repo) if "is stale" in p]
    assert numbers.refresh(repo=repo) == []  # nothing left to rewrite


def test_markers_must_pair_and_names_must_be_known(tmp_path):
    _, problems = numbers.blocks("<!-- generated: a -->x<!-- generated: b -->y<!-- end --><!-- end -->\n"
                                 "<!-- generated: c -->", "p.md")
    assert problems == ["p.md:1: a block opens inside the block 'a'", "p.md:1: <!-- end --> without a block",
                        "p.md: the block 'c' has no <!-- end -->"]
    repo = _pages(tmp_path, _block("made_up", "42") + "\n")
    assert any("unknown block 'made_up'" in p for p in numbers.check(repo))


def test_command_output_blocks_are_checked_for_their_form_not_their_timings(tmp_path):
    source = numbers.SOURCES["bench_dynamics"]
    block = numbers.Block("bench_dynamics", 0, 0, GOOD_OUTPUT)
    assert numbers.check_output_block(block, source) == []
    other = numbers.Block("bench_dynamics", 0, 0, GOOD_OUTPUT.replace("python bench/dynamics.py", "python other.py"))
    assert numbers.check_output_block(other, source) == [
        "it quotes `python other.py`, the source is `python bench/dynamics.py`"]
    unloaded = numbers.Block("bench_dynamics", 0, 0, GOOD_OUTPUT.replace(", load average 1.00 0.50 0.25", ""))
    assert "load average" in numbers.check_output_block(unloaded, source)[0]
    # The quoted output must still have the lines the command prints (here the ratio line is gone).
    changed = numbers.Block("bench_dynamics", 0, 0, "\n".join(line for line in GOOD_OUTPUT.splitlines()
                                                              if "(b)" not in line))
    assert numbers.check_output_block(changed, source) == [
        f"no quoted line matches {source.expect[2]!r} (the command prints it)"]


def test_the_glance_block_must_match_the_registry_and_the_default_campaign():
    planned = len(numbers.plan_tasks(numbers.default_spec(), seed=0))
    claims = " | ".join(numbers.verdict_ids())
    body = (f"\nFrom `hardmax-verify report` (default campaign, seed 0), run on 2026-11-27:\n\n"
            f"Overall: **certified** (exit status 0) on {planned:,} configurations; all re-verified.\n\n"
            f"| claim | {claims} |\n")
    assert numbers.check_glance_block(numbers.Block("glance", 0, 0, body)) == []
    fewer = body.replace(f"on {planned:,} configurations", "on 12 configurations")
    assert numbers.check_glance_block(numbers.Block("glance", 0, 0, fewer)) == [
        f"it counts 12 configurations, the default campaign has {planned}"]
    missing = body.replace(" | replay", "")
    assert "registry's claims" in numbers.check_glance_block(numbers.Block("glance", 0, 0, missing))[0]


@pytest.mark.parametrize("typed", ["2.1x faster", "takes 4-13 s", "about 30 seconds", "reaches 0.8164"])
def test_typed_numbers_that_go_stale_are_refused_outside_the_blocks(typed):
    assert numbers.stale_numbers(f"Intro.\n\nIt {typed}.\n", "README.md") == [
        f"README.md:3: the typed number {numbers.STALE_NUMBER.search(typed).group(0)!r} goes stale; "
        "generate it or remove it"]
    assert numbers.stale_numbers(f"It {_block('x', typed)}.\n", "README.md") == []
    assert numbers.stale_numbers("T0..T4, docs/theory.md §4, 2^20-fold, exit status 3, 16 MiB.\n", "README.md") == []
