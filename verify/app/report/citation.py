"""The citable paragraph of a report, and its BibTeX entry: what a referee pastes into an appendix.

One paragraph, computed from ``results.json`` alone (so ``hardmax-verify report --cite`` gives
the same text for a report written earlier), says exactly:

* what was certified: each claim checked, with its statement (verify.claims.registry), on how
  many of the configurations, and whether anything failed or stayed inconclusive;
* on which configurations: how many, how they were made (the worked ones of docs/theory.md §4,
  the campaign's seed and families), whether they lie inside the theorem's hypotheses, and the
  sha256 of the list of their sha256 (the ``plan`` of results.json, one hash per line in plan
  order, as ``jq -r '.plan.tasks[].configuration_sha256' results.json | sha256sum`` prints it);
* by which code and checker: the package's version and git commit (clean or not), the
  independent checker ``verify.certcheck`` of that commit and how many certificates it
  re-verified;
* which kernel-checked statement it rests on, once one exists (:data:`KERNEL_CHECKED_KEY`, the
  hook a formal development fills); until then it says that none is;
* which facts of docs/theory.md it assumes (those the certified verdicts' evidence names,
  ``evidence.rests_on``), and the sha256 of the docs/theory.md the report read.

Nothing here decides anything: every number is read from the file, and ``hardmax-verify
certcheck`` re-verifies the file itself.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Mapping

from verify.claims import registry
from verify.core import formatting as fmt

__all__ = ["AUTHORS", "TITLE", "KERNEL_CHECKED_KEY", "KernelChecked", "Citation", "citation", "configurations_sha256",
           "kernel_checked", "release_bibtex"]

# How the software is cited (CITATION.cff says the same; tests/meta/test_citation.py compares them).
TITLE = ("hardmax-verify: exact verification and proof-checking of the clustering theorem for pure-attention "
         "hardmax transformers")
AUTHORS = "The hardmax-verify developers"
PAPER = ("A. Alcalde, G. Fantuzzi, E. Zuazua, Clustering in pure-attention hardmax transformers and its role in "
         "sentiment analysis, SIAM J. Math. Data Sci. 7(3), 2025 (arXiv:2407.01602)")
SPECIFICATION_ROLE = "specification"  # the inputs entry of docs/theory.md

# Hook for a kernel-checked statement: when results.json carries a block under this key,
# {"statement": name or path, "sha256": of its source, "kernel": the proof checker}, the paragraph
# names it. No report writes it yet (results.json's schema does not list the key): a formal
# development that proves a statement the campaign rests on adds it there, and this reader.
KERNEL_CHECKED_KEY = "kernel_checked"


@dataclass(frozen=True)
class KernelChecked:
    """A statement checked by a proof kernel that the report's verdicts rest on."""

    statement: str
    sha256: str
    kernel: str

    def sentence(self) -> str:
        return f"The statement {self.statement} (sha256 {self.sha256}) is kernel-checked by {self.kernel}."


def kernel_checked(results: Mapping[str, Any]) -> KernelChecked | None:
    """The kernel-checked statement a results.json names under :data:`KERNEL_CHECKED_KEY`, or None."""
    block = results.get(KERNEL_CHECKED_KEY)
    if not isinstance(block, Mapping):
        return None
    fields = [block.get(key) for key in ("statement", "sha256", "kernel")]
    if not all(isinstance(value, str) and value for value in fields):
        return None
    return KernelChecked(*fields)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Citation:
    paragraph: str
    bibtex: str
    configurations_sha256: str
    results_sha256: str | None

    def to_json_dict(self) -> dict[str, Any]:
        return {"paragraph": self.paragraph, "bibtex": self.bibtex, "configurations_sha256": self.configurations_sha256,
                "results_sha256": self.results_sha256}


def configurations_sha256(results: Mapping[str, Any]) -> str:
    """sha256 of the plan's configuration hashes, one per line in plan order (what ``jq -r ... | sha256sum`` prints)."""
    hashes = [task["configuration_sha256"] for task in results["plan"]["tasks"]]
    return hashlib.sha256("".join(f"{h}\n" for h in hashes).encode("ascii")).hexdigest()


def _software(environment: Mapping[str, Any]) -> str:
    version = (environment.get("versions") or {}).get("hardmax-verify", "of unknown version")
    commit = environment.get("git_commit")
    if not commit:
        where = "commit unknown: not run from a git clone"
    elif commit.endswith("+dirty"):
        where = f"commit {commit.removesuffix('+dirty')}, with uncommitted changes: not reproducible from the commit alone"
    else:
        where = f"commit {commit}, clean working tree"
    return f"hardmax-verify {version} ({where})"


def _configurations(results: Mapping[str, Any]) -> str:
    records = results["examples"]
    campaign = results["campaign"]
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    families = sorted({r["task"]["family"] for r in records if r["task"]["kind"] == "generated"})
    parts = []
    if worked:
        parts.append(f"the {fmt.counted(worked, 'worked configuration')} of docs/theory.md §4")
    if len(records) - worked:
        parts.append(f"{fmt.count(len(records) - worked)} generated from seed {campaign['seed']} across "
                     f"{fmt.counted(len(families), 'family', 'families')} ({', '.join(families)})")
    outside = sum(bool(r.get("configuration", {}).get("outside_hypotheses")) for r in records)
    hypotheses = ("all inside the theorem's hypotheses (distinct nonzero tokens, A symmetric positive definite)"
                  if not outside else f"{fmt.count(outside)} of them outside the theorem's hypotheses, recorded as such")
    return (f"{fmt.counted(len(records), 'configuration')} ({' and '.join(parts) or 'none'}; {hypotheses}; layer "
            f"budget {campaign['layer_budget']})")


def _claims(results: Mapping[str, Any]) -> str:
    claims = results["summary"]["claims"]
    total = results["summary"]["examples"]
    everywhere, partly = [], []
    for claim, row in claims.items():
        record = registry.find(claim)
        named = f"{claim} ({record.statement})" if record is not None else claim
        if row["certified"] == total and total:
            everywhere.append(named)
        else:
            rest = [f"{fmt.count(row[k])} {word}" for k, word in (("failed", "FAILED"), ("inconclusive", "inconclusive"),
                                                                   ("unchecked", "not checked")) if row[k]]
            partly.append(f"{named}: certified on {fmt.count(row['certified'])} of {fmt.count(total)}"
                          + (f", {', '.join(rest)}" if rest else ""))
    text = ""
    if everywhere:
        text += "certified on every configuration: " + "; ".join(everywhere)
    if partly:
        text += ("; and " if text else "") + "not on every configuration: " + "; ".join(partly)
    return text or "nothing: no claim was checked"


def _facts_used(results: Mapping[str, Any]) -> list[str]:
    used = {fact for r in results["examples"] if r.get("status") != "error" for v in r.get("verdicts", {}).values()
            if v.get("status") == "certified" for fact in (v.get("evidence") or {}).get("rests_on", ())}
    return [fact for fact in registry.PROVED_FACTS if fact in used]


def _checker(results: Mapping[str, Any]) -> str:
    rows = list(results["summary"]["claims"].values())
    certified = sum(row["certified"] for row in rows)
    if not rows or rows[0].get("recertified") is None:
        return "The independent checker verify.certcheck was not available: no certificate was re-verified independently."
    recertified = sum(row.get("recertified") or 0 for row in rows)
    rejected = sum(row.get("rejected_by_checker", 0) for row in rows)
    text = (f"The independent checker verify.certcheck of the same commit (standard library only; it replays the "
            f"dynamics itself) re-verified {fmt.count(recertified)} of the {fmt.counted(certified, 'certificate')}")
    return text + (f" and REJECTED {fmt.count(rejected)}." if rejected else ".")


def _specification(results: Mapping[str, Any]) -> str:
    entry = next((i for i in results.get("inputs", []) if i.get("role") == SPECIFICATION_ROLE), None)
    return f"docs/theory.md (sha256 {entry['sha256']})" if entry else "docs/theory.md (not hashed: not run from a clone)"


def citation(results: Mapping[str, Any], *, results_sha256: str | None = None) -> Citation:
    """The citable paragraph and BibTeX entry of a report's ``results.json`` (``results_sha256``: of that file)."""
    environment = results.get("environment") or {}
    summary = results["summary"]
    overall = {"certified": "certified", "failed": "FAILED", "inconclusive": "inconclusive"}.get(summary["overall"],
                                                                                                  summary["overall"])
    digest = configurations_sha256(results)
    facts = _facts_used(results)
    assumed = ("Beyond the layers computed, the certified verdicts rest on the facts "
               + "; ".join(f"{fact} ({registry.PROVED_FACTS[fact]})" for fact in facts)
               + f", proved in {_specification(results)}." if facts else
               f"No certified verdict rests on a fact beyond the layers computed ({_specification(results)}).")
    kernel = kernel_checked(results)
    sentences = [
        f"Using {_software(environment)}, a verification campaign checked, in exact rational arithmetic, the claims "
        f"of the clustering theorem for pure-attention hardmax transformers [{PAPER}] as stated in docs/theory.md, "
        f"on {_configurations(results)}. Overall: {overall} (exit status {summary['exit_status']}).",
        f"Claims {_claims(results)}.",
        f"The configurations are listed with their sha256 in the plan of results.json; the sha256 of that list "
        f"(one per line, in plan order) is {digest}.",
        _checker(results),
        kernel.sentence() if kernel is not None else "No statement of this campaign is kernel-checked.",
        assumed,
    ]
    if results_sha256:
        sentences.append(f"The results file has sha256 {results_sha256}; hardmax-verify certcheck re-verifies it.")
    commit = environment.get("git_commit")
    year = str(environment.get("finished", ""))[:4] or None
    return Citation(" ".join(sentences), bibtex(environment.get("versions", {}).get("hardmax-verify"), commit, year),
                    digest, results_sha256)


def _key(version: str | None) -> str:
    return "hardmax_verify" + (f"_{re.sub(r'[^0-9A-Za-z]+', '_', version)}" if version else "")


def bibtex(version: str | None, commit: str | None = None, year: str | None = None) -> str:
    """The software's BibTeX entry; with a commit, the one of a run (the note names it)."""
    fields = [("author", f"{{{AUTHORS}}}"), ("title", "{hardmax-verify}" + TITLE.removeprefix("hardmax-verify"))]
    if version:
        fields.append(("version", version))
    if year:
        fields.append(("year", year))
    fields.append(("license", "MIT"))
    if commit:
        fields.append(("note", f"git commit {commit}"))
    body = ",\n".join(f"  {name:<7} = {{{value}}}" for name, value in fields)
    return f"@software{{{_key(version)},\n{body}\n}}"


def release_bibtex(version: str, year: str) -> str:
    """The entry for a release (the README's and CITATION.cff's): no commit."""
    return bibtex(version, None, year)
