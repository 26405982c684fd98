"""The numbers of the user docs are generated (scripts/readme_numbers.py), and its check catches stale ones."""

from __future__ import annotations

import re

from pathlib import Path

import pytest

from tests.common.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
numbers = load_script("scripts/readme_numbers.py", "readme_numbers")

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


def test_the_docs_agree_with_the_sources_of_their_numbers_without_running_the_report():
    assert numbers.check(quick=True) == []


@pytest.mark.slow
def test_the_docs_agree_with_the_sources_of_their_numbers_the_report_run_again():
    """The whole at-a-glance block, campaign included, is what `hardmax-verify report` says today."""
    assert numbers.check() == []


def _copy_of_the_docs(tmp_path: Path) -> Path:
    for page in numbers.pages():
        target = tmp_path / page.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_stale_saved_result_at_a_glance_fails_the_check_and_a_refresh_mends_it(tmp_path, monkeypatch, capsys):
    """A README that still says an older reproduction mean than runs/ gives is refused (exit 1)."""
    repo = _copy_of_the_docs(tmp_path)
    readme = (repo / "README.md").read_text(encoding="utf-8")
    line = next(text for text in readme.splitlines() if text.startswith("- Sentiment reproduction:"))
    mean = re.search(r"\d\.\d{4} ±", line).group(0)
    older = f"{float(mean[:-2]) - 0.01:.4f} ±"
    _edit(repo / "README.md", line, line.replace(mean, older, 1))
    problems = numbers.check(repo, quick=True)
    assert len(problems) == 1 and "glance: its lines of saved results are stale" in problems[0]
    assert older in problems[0] and mean in problems[0]
    monkeypatch.setattr(numbers, "REPO", repo)
    assert numbers.main(["--check", "--quick"]) == 1
    assert "stale" in capsys.readouterr().out
    assert numbers.refresh(repo=repo, quick=True) == ["README.md"]
    assert numbers.check(repo, quick=True) == []


@pytest.mark.parametrize("page, old, new", [
    ("README.md", "| 2 | `d2-paper` | 0.7914 | 0.7799 |", "| 2 | `d2-paper` | 0.7914 | 0.7800 |"),
    ("README.md", "configurations generated from seed 0 across", "configurations generated from seed 1 across"),
    ("docs/sentiment.md", "| d2-paper | 2.60 | 0.7799 | 0.7924 |", "| d2-paper | 2.60 | 0.7799 | 0.7942 |"),
    ("docs/conjectures.md", " (evidence, not a proof), 0 surprises", " (evidence, not a proof), 1 surprises"),
])
def test_a_stale_derived_block_fails_the_check(tmp_path, page, old, new):
    repo = _copy_of_the_docs(tmp_path)
    _edit(repo / page, old, new)
    problems = numbers.check(repo, quick=True)
    assert len(problems) == 1 and "is stale" in problems[0] and page in problems[0]


def test_the_campaign_lines_at_a_glance_are_compared_with_a_report_run(tmp_path):
    """Given a report's results (as --check gets by running one), the whole block must be its text."""
    repo = _copy_of_the_docs(tmp_path)
    text = (repo / "README.md").read_text(encoding="utf-8")
    found, _ = numbers.blocks(text, "README.md")
    glance = next(b for b in found if b.name == "glance")
    results = {"campaign": {"seed": 0}, "summary": {"overall": "certified", "exit_status": 0, "examples": 0,
                                                    "claims": {}}, "examples": [], "optional_sections": {}}
    problems = numbers.check_glance_block(glance, results=results)
    assert len(problems) == 1 and problems[0].startswith("stale: it says")
    assert numbers.check_glance_block(numbers.Block("glance", 0, 0, numbers.glance_block(results)),
                                      results=results) == []


def test_derived_blocks_are_recomputed_and_a_stale_one_is_named(tmp_path):
    selftest = numbers.selftest_sentence()
    assert selftest.startswith(f"{len(numbers.EXACT_MUTANTS) + len(numbers.FLOAT_MUTANTS)} wrong variants")
    repo = _pages(tmp_path, f"runs {_block('selftest_variants', selftest)}.\n",
                  f"# Page\n\nruns {_block('selftest_variants', selftest.replace('wrong', 'bad'))}.\n")
    problems = numbers.check(repo)
    stale = [p for p in problems if "is stale" in p]
    assert len(stale) == 1 and stale[0].startswith("docs/page.md:3: the block 'selftest_variants' is stale: it says")
    assert "bad variants" in stale[0] and "wrong variants" in stale[0]
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
    body = (f"\nFrom `hardmax-verify report` (default campaign, seed 0), with the saved results of `runs/`:\n\n"
            f"Overall: **certified** (exit status 0) on {planned:,} configurations; all re-verified.\n\n"
            f"| claim | {claims} |\n\n- Verification campaign: all certified.\n- Lab: one line.\n")
    assert numbers.check_glance_block(numbers.Block("glance", 0, 0, body), saved_results=["- Lab: one line."]) == []
    assert "stale" in numbers.check_glance_block(numbers.Block("glance", 0, 0, body),
                                                 saved_results=["- Lab: two lines."])[0]
    fewer = body.replace(f"on {planned:,} configurations", "on 12 configurations")
    assert numbers.check_glance_block(numbers.Block("glance", 0, 0, fewer), saved_results=["- Lab: one line."]) == [
        f"it counts 12 configurations, the default campaign has {planned}"]
    missing = body.replace(" | replay", "")
    assert "registry's claims" in numbers.check_glance_block(numbers.Block("glance", 0, 0, missing),
                                                             saved_results=["- Lab: one line."])[0]


@pytest.mark.parametrize("typed", ["2.1x faster", "takes 4-13 s", "about 30 seconds", "reaches 0.8164"])
def test_typed_numbers_that_go_stale_are_refused_outside_the_blocks(typed):
    assert numbers.stale_numbers(f"Intro.\n\nIt {typed}.\n", "README.md") == [
        f"README.md:3: the typed number {numbers.STALE_NUMBER.search(typed).group(0)!r} goes stale; "
        "generate it or remove it"]
    assert numbers.stale_numbers(f"It {_block('x', typed)}.\n", "README.md") == []
    assert numbers.stale_numbers("T0..T4, docs/theory.md §4, 2^20-fold, exit status 3, 16 MiB.\n", "README.md") == []


def test_typed_numbers_are_refused_on_every_page_but_not_in_fenced_code(tmp_path):
    repo = _pages(tmp_path, "Intro.\n", "# Page\n\nThe run reached 0.8164 in 30 s.\n\n```\n$ cmd\nerror: within 2 s\n```\n")
    problems = [p for p in numbers.check(repo, quick=True) if "goes stale" in p]
    assert problems == ["docs/page.md:3: the typed number '0.8164' goes stale; generate it or remove it",
                        "docs/page.md:3: the typed number '30 s' goes stale; generate it or remove it"]
