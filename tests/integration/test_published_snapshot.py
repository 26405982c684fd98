"""reports/published/ is a snapshot of one commit, made as scripts/publish-report.sh makes it, and it still verifies.

The snapshot ships report.md, results.json and the PNG figures. Checked here:

* report.md and results.json belong together (the commit of the provenance line, the citable
  paragraph computed from that very results.json, its sha256);
* the recorded commit is a commit of this repository, its tree was clean, and the commit that
  published the snapshot changed nothing but the snapshot (so the snapshot is of the code of
  that commit, not of a tree that has moved on since);
* it was produced as the script produces it: the default campaign, seed 0, into
  reports/latest, with the versions constraints.txt pins at that commit (the versions behind
  "same seed, same results") and the package version of that commit;
* the independent checker re-verifies it, saved results included (certcheck, exit 0).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.app.report.citation import citation
from verify.app.report.schema import validate_results

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "reports" / "published"


def _git(*args: str) -> str:
    completed = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, f"git {' '.join(args)}: {completed.stderr.strip()} (the snapshot is checked " \
                                      "against the repository's history: run the tests in a clone)"
    return completed.stdout


@pytest.fixture(scope="module")
def results() -> dict:
    return json.loads((PUBLISHED / "results.json").read_text(encoding="utf-8"))


def test_report_md_and_results_json_belong_together(results: dict) -> None:
    assert validate_results(results) == []
    report = (PUBLISHED / "report.md").read_text(encoding="utf-8")
    commit = results["environment"]["git_commit"]
    assert f"git commit {commit}." in report
    digest = hashlib.sha256((PUBLISHED / "results.json").read_bytes()).hexdigest()
    assert f"> {citation(results, results_sha256=digest).paragraph}\n" in report
    figures = sorted(p.relative_to(PUBLISHED).as_posix() for p in (PUBLISHED / "figures").rglob("*.png"))
    linked = sorted(set(re.findall(r"\]\((figures/[^)]+\.png)\)", report)))
    assert figures == linked, "the snapshot's figures are not the ones report.md shows"


def test_the_snapshot_is_of_the_commit_it_records_and_was_published_alone(results: dict) -> None:
    recorded = results["environment"]["git_commit"]
    assert recorded and not recorded.endswith("+dirty"), f"made from a tree with uncommitted changes: {recorded}"
    assert _git("cat-file", "-t", recorded).strip() == "commit"
    published = _git("log", "-1", "--format=%H", "--", "reports/published/results.json").strip()
    assert published, "results.json of the snapshot is not committed"
    assert subprocess.run(["git", "merge-base", "--is-ancestor", recorded, published], cwd=REPO).returncode == 0
    changed = [path for path in _git("diff", "--name-only", recorded, published).splitlines()
               if not path.startswith("reports/published/")]
    assert changed == [], (f"the snapshot records {recorded[:12]}, but the commit that published it "
                           f"({published[:12]}) also changed {changed[:5]}: run scripts/publish-report.sh on a "
                           "clean tree and commit reports/published/ alone")


def _pins(commit: str) -> dict[str, str]:
    text = _git("show", f"{commit}:constraints.txt")
    return {name.lower(): version for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", text, re.M)}


def test_it_was_produced_as_the_script_produces_it(results: dict) -> None:
    environment = results["environment"]
    words = shlex.split(environment["command_line"])
    assert words[:6] == ["hardmax-verify", "report", "--out", "reports/latest", "--seed", "0"], words
    assert "--config" not in words and "--examples" not in words and "--runs" not in words
    assert results["campaign"]["source"] == "embedded defaults" and results["campaign"]["seed"] == 0
    commit = environment["git_commit"]
    version = re.search(r'^VERSION = "([^"]+)"$', _git("show", f"{commit}:verify/core/versions.py"), re.M)
    assert version and environment["versions"]["hardmax-verify"] == version.group(1)
    pins = _pins(commit)
    differing = {name: (version, pins[name.lower()]) for name, version in environment["versions"].items()
                 if name.lower() in pins and version.split("+")[0] != pins[name.lower()]}
    assert differing == {}, f"ran with versions constraints.txt does not pin (ran, pinned): {differing}"
    assert len([n for n in environment["versions"] if n.lower() in pins]) >= 10


@pytest.mark.slow  # the checker replays every configuration and hashes the saved results (seconds)
def test_the_published_snapshot_passes_certcheck(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certcheck", str(PUBLISHED / "results.json"), "--runs", str(REPO / "runs"),
                 "--models", str(REPO / "models" / "reproduction")]) == 0, capsys.readouterr().out[-2000:]
    assert "everything verified" in capsys.readouterr().out
