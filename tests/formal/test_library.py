"""formal/: the Coq development builds, proves what it says with nothing admitted, and the statement stays short."""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

import pytest

from verify.formal import kernel, library

FORMAL = Path(__file__).resolve().parents[2] / "formal"
# Vernacular that would let a proof rest on something unproved.
FORBIDDEN = re.compile(r"\b(Admitted|admit|Axiom|Axioms|Parameter|Parameters|Conjecture|Abort|Hypothesis\s+\w+\s*:\s*\w+\s*->)\b")


def _without_comments(text: str) -> str:
    while "(*" in text:
        text = re.sub(r"\(\*(?:(?!\(\*).)*?\*\)", " ", text, flags=re.S)
    return text


def test_sources_are_the_modules_and_the_coq_project() -> None:
    files = sorted(p.stem for p in FORMAL.glob("*.v"))
    assert files == sorted(library.MODULES)
    project = (FORMAL / "_CoqProject").read_text(encoding="utf-8").split()
    assert [w for w in project if w.endswith(".v")] == [f"{m}.v" for m in library.MODULES]
    assert library.sources_folder().resolve() == FORMAL.resolve()


@pytest.mark.parametrize("module", library.MODULES)
def test_nothing_admitted_or_assumed(module: str) -> None:
    text = _without_comments((FORMAL / f"{module}.v").read_text(encoding="utf-8"))
    assert not FORBIDDEN.findall(text)
    # Hypotheses live only in sections, where Coq discharges them into the lemmas' statements.
    assert text.count("Section ") == text.count("End ") - text.count("End M")  # every section closed


def test_forbidden_words_are_found() -> None:
    """The scan above can fail: it finds an Admitted and an Axiom, and ignores them in comments."""
    assert FORBIDDEN.findall(_without_comments("Lemma x : True. Admitted.\nAxiom y : False."))
    assert not FORBIDDEN.findall(_without_comments("(* Admitted (* nested Axiom *) *) Qed."))


def test_soundness_theorems_rest_on_nothing_but_primitive_integers(tmp_path: Path) -> None:
    """Print Assumptions of every theorem a kernel-checked result uses: closed under the global context, or,
    for the fast replay, Coq's primitive integers and nothing else."""
    built = library.built_library()
    theorems = ("certificate_sound", "paths_sound", "D1", "D3", "D2", "polytope_sound", "gram_sound", "T4_sound",
                "similarity_sound")
    (tmp_path / "A.v").write_text(f"From {library.LIBRARY} Require Import Checker Similarity Paths Polytope Norms.\n"
                                  + "".join(f"Print Assumptions {t}.\n" for t in theorems), encoding="utf-8")
    (tmp_path / "F.v").write_text(f"From {library.LIBRARY} Require Import Fast.\n"
                                  "Definition fast := (fast_certificate_sound, fast_paths_sound).\n"
                                  "Print Assumptions fast.\n", encoding="utf-8")
    for name in ("A.v", "F.v"):
        done = subprocess.run([library.coqc_path(), "-q", "-Q", str(built), library.LIBRARY, name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        if name == "A.v":
            assert done.stdout.count("Closed under the global context") == len(theorems), done.stdout
        else:
            assert "Axioms:" in done.stdout and kernel.assumptions_accepted(done.stdout), done.stdout


def test_a_theorem_resting_on_an_axiom_is_seen(tmp_path: Path) -> None:
    """The check above can fail: an axiom shows in Print Assumptions, and only the primitive integers pass."""
    (tmp_path / "B.v").write_text("Axiom x : False.\nTheorem t : 1 = 2. Proof. destruct x. Qed.\nPrint Assumptions t.\n",
                                  encoding="utf-8")
    done = subprocess.run([library.coqc_path(), "-q", "B.v"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "Closed under the global context" not in done.stdout and "x : False" in done.stdout
    assert not kernel.assumptions_accepted(done.stdout)
    # Beside the primitive integers, one more axiom is refused; the primitive integers alone pass.
    primitive = "Axioms:\n" + "".join(f"{name} : T\n" for name in sorted(kernel.PRIMITIVE_INTEGERS))
    assert kernel.assumptions_accepted(primitive)
    assert not kernel.assumptions_accepted(primitive + "Top.x : False\n")
    assert not kernel.assumptions_accepted(primitive.replace("Uint63.mul_spec", "Uint63.mul_spec'"))
    assert not kernel.assumptions_accepted("Axioms:\n")


def test_statement_is_short_and_hashed() -> None:
    """The file a referee reads: short, and its sha256 is what every kernel-checked result records."""
    text = (FORMAL / "Statement.v").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 220
    assert library.statement_sha256() == hashlib.sha256(text.encode("utf-8")).hexdigest()
    # It imports nothing of the development: the proofs depend on it, never the other way.
    assert "HardmaxVerify" not in text


def test_missing_coqc_is_one_line_naming_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARDMAX_VERIFY_COQC", "/nonexistent/coqc")
    library._version_of.cache_clear()
    with pytest.raises(library.CoqUnavailable, match="scripts/setup.sh"):
        library.coq_version()
    library._version_of.cache_clear()
