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
* which kernel-checked statement it rests on: the statement Coq's kernel checked the D7
  certificates against, with its sha256, from the kernel pass's block (:data:`KERNEL_CHECKED_KEY`);
  without a pass, or when it was skipped, it says that none is and why;
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
from .kernel import KERNEL_KEY

__all__ = ["AUTHORS", "TITLE", "KERNEL_CHECKED_KEY", "KernelChecked", "Citation", "citation", "configurations_sha256",
           "kernel_checked", "release_bibtex"]

# How the software is cited (CITATION.cff says the same; tests/meta/test_citation.py compares them).
TITLE = ("hardmax-verify: exact verification and proof-checking of the clustering theorem for pure-attention "
         "hardmax transformers")
AUTHORS = "The hardmax-verify developers"
PAPER = ("A. Alcalde, G. Fantuzzi, E. Zuazua, Clustering in pure-attention hardmax transformers and its role in "
         "sentiment analysis, SIAM J. Math. Data Sci. 7(3), 2025 (arXiv:2407.01602)")
SPECIFICATION_ROLE = "specification"  # the inputs entry of docs/theory.md

# The kernel-checked statement: the kernel pass (verify/app/report/kernel.py, docs/formal.md) writes its
# block under this key of results.json, naming the statement Coq's kernel checked the certificates
# against (formal/Statement.v) with its sha256; the paragraph quotes it, and says so when the pass
# was skipped or the report has no such block.
KERNEL_CHECKED_KEY = KERNEL_KEY


@dataclass(frozen=True)
class KernelChecked:
    """The statement Coq's kernel checked a report's certificates against, and how many it checked."""

    statement: str
    sha256: str
    kernel: str
    checked: int | None = None        # certificates (configurations) the kernel checked
    configurations: int | None = None
    rejected: int = 0

    def sentence(self) -> str:
        counted = ("" if self.checked is None or self.configurations is None else
                   f" for {fmt.count(self.checked)} of the {fmt.counted(self.configurations, 'configuration')}")
        text = (f"Coq's kernel ({self.kernel}) checked the certificates (D7 fates, D9 paths, D11 similarities){counted} "
                f"against the statement "
                f"{self.statement} (sha256 {self.sha256})")
        return text + (f"; it REJECTED {fmt.counted(self.rejected, 'certificate')}." if self.rejected else ".")


def kernel_checked(results: Mapping[str, Any]) -> KernelChecked | None:
    """The kernel-checked statement of a results.json (:data:`KERNEL_CHECKED_KEY`), or None (no pass, or skipped)."""
    block = results.get(KERNEL_CHECKED_KEY)
    if not isinstance(block, Mapping) or block.get("status") not in ("checked", "rejected"):
        return None
    statement, sha256, coq = block.get("statement"), block.get("statement_sha256"), block.get("coq_version")
    if not (isinstance(statement, str) and isinstance(sha256, str) and isinstance(coq, str) and statement and sha256
            and coq):
        return None
    checked, total = block.get("certificates_kernel_checked"), block.get("configurations")
    return KernelChecked(statement, sha256, f"Coq {coq}", checked if isinstance(checked, int) else None,
                         total if isinstance(total, int) else None, len(block.get("rejected") or []))


def _kernel_sentence(results: Mapping[str, Any]) -> str:
    found = kernel_checked(results)
    if found is not None:
        return found.sentence()
    block = results.get(KERNEL_CHECKED_KEY)
    if isinstance(block, Mapping) and block.get("reason"):
        return f"No statement of this campaign is kernel-checked (the kernel pass was {block.get('status')}: {block['reason']})."
    return "No statement of this campaign is kernel-checked."


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
    sentences = [
        f"Using {_software(environment)}, a verification campaign checked, in exact rational arithmetic, the claims "
        f"of the clustering theorem for pure-attention hardmax transformers [{PAPER}] as stated in docs/theory.md, "
        f"on {_configurations(results)}. Overall: {overall} (exit status {summary['exit_status']}).",
        f"Claims {_claims(results)}.",
        f"The configurations are listed with their sha256 in the plan of results.json; the sha256 of that list "
        f"(one per line, in plan order) is {digest}.",
        _checker(results),
        _kernel_sentence(results),
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
