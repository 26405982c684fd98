"""What a claims report or a results.json record asks of the kernel, claim by claim.

A configuration whose tokens all have D7 fates (leader, fixed, locked) becomes one
:class:`KernelTask`: the configuration, the fates, the limits and the positions of the last
layer, for the soundness theorem ``certificate_sound`` of formal/Checker.v. D1 and D3 are
theorems for every configuration (``D1``, ``D3`` of formal/Checker.v), so they need no task.
A T0 verdict ``failed`` with a D11 similarity certificate (M, s and the relabelling P) becomes the
theorem ``no_leader`` (``similarity_sound`` of formal/Similarity.v): the kernel proves the failure.
Everything else is "not kernel-checked", with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Mapping

from verify.core.config import Configuration, parse_configuration
from verify.core.linalg import is_symmetric, ldl_decomposition
from verify.core.numbers import InputError, to_rational

from . import terms
from .paths import segment_term

__all__ = ["KERNEL_CHECKED", "REJECTED", "NOT_KERNEL_CHECKED", "COVERED_CLAIMS", "NOT_FORMALISED", "THEOREMS", "ClaimOutcome",
           "KernelTask", "RecordPlan", "plan_record"]

KERNEL_CHECKED = "kernel-checked"
REJECTED = "rejected"
NOT_KERNEL_CHECKED = "not kernel-checked"

# The claims the kernel proves today, and the Coq theorem each rests on (docs/formal.md).
COVERED_CLAIMS: dict[str, str] = {
    "T0": "certificate_sound (paths_sound with a D9 path): a leader exists",
    "T1": "certificate_sound (paths_sound with a D9 path): each leader leads first at its layer and stays fixed; "
          "the leaders are exactly these",
    "T2": "certificate_sound and polytope_sound: the leaders' limits are distinct, exactly the vertices of K",
    "T3": "certificate_sound and polytope_sound: every token converges to a point on the boundary of K",
    "T4": "certificate_sound, gram_sound and T4_sound: every non-vertex limit minimises the A-norm over a face of K",
    "D1": "D1: every layer is a convex combination of the previous one (every configuration)",
    "D2": "D2 and gram_sound: A = sum d_i v_i v_i^T with d_i >= 0 is symmetric positive semidefinite, so no A-norm decreases",
    "D3": "D3: a leader leads again and does not move (every configuration)",
    "replay": "certificate_sound (paths_sound with a D9 path): the positions of the last layer are the model's",
}
# The claims whose failure the kernel proves, and the theorem it rests on.
FAILURES: dict[str, str] = {
    "T0": "T0 fails: similarity_sound proves that no token ever leads (the pattern repeats forever, D11)",
}
SIMILARITY_FORMAT = "hardmax-verify/similarity-v1"
GENERIC_THEOREMS = ("D1", "D3")
NO_GRAM = "A has no exact LDL^T with positive pivots (not symmetric positive definite)"
# The Coq theorems behind each covered claim (formal/Checker.v, formal/Polytope.v), for tables.
THEOREMS: dict[str, str] = {"T0": "certificate_sound (holds), similarity_sound (fails, D11)", "T1": "certificate_sound",
                            "T2": "certificate_sound, polytope_sound", "T3": "certificate_sound, polytope_sound",
                            "T4": "certificate_sound, gram_sound, T4_sound", "D1": "D1",
                            "D2": "D2, gram_sound", "D3": "D3",
                            "replay": "certificate_sound"}
NOT_FORMALISED: dict[str, str] = {}


@dataclass(frozen=True)
class ClaimOutcome:
    claim: str
    status: str        # kernel-checked | rejected | not kernel-checked
    reason: str        # the theorem it rests on, or why not

    def to_json_dict(self) -> dict[str, str]:
        return {"claim": self.claim, "status": self.status, "reason": self.reason}


# Names are written in full, so that nothing imported can stand in for Statement.v's definitions:
# the generated file imports Statement.v only, and merely requires the proof files.
S = "HardmaxVerify.Statement."
# The theorems each claim rests on, besides D1, D2 and D3, whose assumptions every batch prints.
CLAIM_THEOREMS: dict[str, tuple[str, ...]] = {
    "T0": ("outcome",), "T1": ("outcome",), "replay": ("outcome",),
    "T2": ("outcome", "polytope"), "T3": ("outcome", "polytope"),
    "T4": ("outcome", "polytope", "spsd", "projections"),
    "D1": (), "D2": ("spsd", "norms"), "D3": (),
}
FAILURE_THEOREMS: dict[str, tuple[str, ...]] = {"T0": ("no_leader",)}


@dataclass(frozen=True)
class KernelTask:
    """One configuration and its certificates, as Coq terms of Statement.v, with the theorems to check."""

    name: str
    config: str                 # a term of type config
    fates: list[str]            # one term of type fate per token
    limits: list[str]           # one vector term per token
    last_layer: int             # K
    last_positions: str         # ZK, a term of type list vec
    size: int = 0               # tokens x layers, to plan batches
    directions: list[str] | None = None     # T2/T3: one vector per token (None: no polytope theorem)
    multipliers: list[str] | None = None    # T3: one list of (weight, index into K) per token
    faces: list[str] | None = None          # T4: one direction per token exposing its limit's face
    gram: tuple[str, str] | None = None     # D2, T4: (ds, vs) with A = sum d_i v_i v_i^T
    outcome: bool = True                    # the D7 certificate's theorem
    segment: str | None = None              # a D9 chain's final segment (formal/Paths.v), for path fates
    similarity: tuple[int, int, str, str, str] | None = None   # D11: (k, p, M, s, P), z_i^(k+p) = M z_(P i)^k

    def definitions(self) -> str:
        text = (f"Definition cfg : {S}config := {self.config}.\n"
                f"Definition fates : list {S}fate := [{'; '.join(self.fates)}].\n"
                f"Definition limits : list {S}vec := [{'; '.join(self.limits)}].\n"
                f"Definition K : nat := {self.last_layer}.\n"
                f"Definition ZK : list {S}vec := {self.last_positions}.\n")
        if self.directions is not None and self.multipliers is not None:
            text += (f"Definition dirs : list {S}vec := [{'; '.join(self.directions)}].\n"
                     f"Definition mults : list (list (Q * nat)) := [{'; '.join(self.multipliers)}].\n")
        if self.gram is not None:
            text += f"Definition ds : list Q := {self.gram[0]}.\nDefinition vs : list {S}vec := {self.gram[1]}.\n"
        if self.faces is not None:
            text += f"Definition faces : list {S}vec := [{'; '.join(self.faces)}].\n"
        if self.segment is not None:
            text += f"Definition seg : HardmaxVerify.Paths.segment := {self.segment}.\n"
        if self.similarity is not None:
            k, p, M, s, P = self.similarity
            text += (f"Definition simk : nat := {k}.\nDefinition simp : nat := {p}.\n"
                     f"Definition simM : list {S}vec := {M}.\nDefinition sims : Q := {s}.\n"
                     f"Definition simP : list nat := {P}.\n")
        return text

    def theorem_texts(self) -> dict[str, str]:
        """The statements the kernel checks for this configuration, each closed by evaluation at Qed."""
        cast = "vm_cast_no_check (eq_refl true). Qed.\n"
        A = f"({S}A cfg)"
        texts = {}
        if self.outcome:
            sound = ("HardmaxVerify.Fast.fast_certificate_sound" if self.segment is None
                     else "(HardmaxVerify.Fast.fast_paths_sound cfg fates limits K ZK seg)")
            texts["outcome"] = (f"Theorem outcome : {S}Outcome cfg fates limits K ZK.\n"
                                f"Proof. apply {sound}. {cast}")
        if self.directions is not None:
            texts["polytope"] = (f"Theorem polytope : {S}Polytope ({S}dim cfg) fates limits.\n"
                                 f"Proof. apply (HardmaxVerify.Polytope.polytope_sound ({S}dim cfg) fates limits dirs mults). "
                                 + cast)
        if self.gram is not None:
            texts["spsd"] = (f"Theorem spsd : {S}symmetric_psd {A}.\n"
                             f"Proof. apply (HardmaxVerify.Norms.gram_sound {A} ds vs). {cast}")
            position = f"{S}position cfg"
            texts["norms"] = (f"Theorem norms : forall k i, (i < {S}ntokens cfg)%nat ->\n"
                              f"  {S}dot ({S}matvec {A} ({position} k i)) ({position} k i) <=\n"
                              f"  {S}dot ({S}matvec {A} ({position} (S k) i)) ({position} (S k) i).\n"
                              "Proof. intros k i Hi. apply HardmaxVerify.Norms.D2; "
                              "[vm_compute; reflexivity | exact spsd | exact Hi]. Qed.\n")
            if self.faces is not None:
                texts["projections"] = (f"Theorem projections : {S}T4_statement {A} fates limits.\n"
                                        f"Proof. apply (HardmaxVerify.Norms.T4_sound {A} fates limits faces spsd). "
                                        + cast)
        if self.similarity is not None:
            texts["no_leader"] = (f"Theorem no_leader : {S}NoLeaderEver cfg.\n"
                                  "Proof. apply (HardmaxVerify.Similarity.similarity_sound cfg simk simp simM sims simP). "
                                  + cast)
        return texts

    def theorems(self) -> str:
        return "".join(self.theorem_texts().values())

    def theorem_names(self) -> list[str]:
        return list(self.theorem_texts())

    def without(self, theorem: str) -> "KernelTask":
        """This task without ``theorem`` (and the theorems that use it): to check the rest after a rejection."""
        if theorem == "outcome":
            return replace(self, outcome=False)
        if theorem == "polytope":
            return replace(self, directions=None, multipliers=None)
        if theorem == "no_leader":
            return replace(self, similarity=None)
        if theorem in ("spsd", "norms"):
            return replace(self, gram=None, faces=None)
        return replace(self, faces=None)


@dataclass
class RecordPlan:
    """The claims of one record: those decided without the kernel, and the task the rest wait on."""

    label: str
    task: KernelTask | None
    decided: dict[str, ClaimOutcome] = field(default_factory=dict)
    waiting: list[str] = field(default_factory=list)   # claims decided by the task's kernel verdict
    failing: list[str] = field(default_factory=list)   # of these, the claims whose failure the kernel proves

    def resolve(self, status: str, reason: str, rejected: Mapping[str, str] | None = None) -> dict[str, ClaimOutcome]:
        """Every claim's outcome once the task's verdict is known: ``status`` and ``reason`` for the
        task, ``rejected`` the theorems the kernel refused and why (a claim resting on one is rejected)."""
        out = dict(self.decided)
        for claim in self.waiting:
            theorems = FAILURE_THEOREMS[claim] if claim in self.failing else CLAIM_THEOREMS[claim]
            refused = [t for t in theorems if t in (rejected or {})]
            if refused:
                out[claim] = ClaimOutcome(claim, REJECTED, f"rejected by the kernel: {(rejected or {})[refused[0]]}")
            elif status == KERNEL_CHECKED:
                out[claim] = ClaimOutcome(claim, KERNEL_CHECKED,
                                          FAILURES[claim] if claim in self.failing else COVERED_CLAIMS[claim])
            else:
                out[claim] = ClaimOutcome(claim, status, reason)
        return {c: out[c] for c in sorted(out)}


def _rational(value: Any, where: str) -> Fraction:
    return to_rational(value, field=where)


def _point(value: Any, where: str) -> list[Fraction]:
    if not isinstance(value, list):
        raise InputError(where, "expected a list of numbers")
    return [_rational(x, f"{where}[{i}]") for i, x in enumerate(value)]


def _configuration(record: Mapping[str, Any], where: str) -> Configuration:
    data = record.get("config", record.get("configuration"))
    key = "config" if "config" in record else "configuration"
    return parse_configuration(data, outside_hypotheses=True, source=f"{where}.{key}")


def _not(plan: RecordPlan, claims: list[str], reason: str, only: tuple[str, ...] | None = None) -> None:
    """Move ``claims`` (those of ``only``, when given) from the kernel's list to not kernel-checked."""
    for claim in list(claims):
        if only is None or claim in only:
            claims.remove(claim)
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, reason)


def plan_record(record: Mapping[str, Any], label: str) -> RecordPlan:
    """The kernel's part in one claims report (``check --json``) or results.json record.

    Raises :class:`InputError` for a record that is not of that form. Numbers are read exactly
    from their text (a float given through the Python API is its binary value).
    """
    if not isinstance(record, Mapping):
        raise InputError(label, "expected a JSON object (a claims report or a results.json record)")
    if "config" in record and "configuration" in record:
        raise InputError(f"{label}.configuration", "a record holds one configuration: 'config' or 'configuration'")
    config = _configuration(record, label)
    verdicts = record.get("verdicts")
    if not isinstance(verdicts, Mapping):
        raise InputError(f"{label}.verdicts", "expected an object of verdicts")
    plan = RecordPlan(label, None)
    needs_task: list[str] = []
    outside = ("a value matrix V is outside the formalised model (V = alpha I)" if config.V is not None else
               "softmax attention (beta) is outside the formalised model (hardmax)" if config.beta is not None else None)
    similarity: tuple[int, int, str, str, str] | None = None
    for claim in sorted(verdicts):
        verdict = verdicts[claim]
        status = verdict.get("status") if isinstance(verdict, Mapping) else None
        if claim == "T0" and status == "failed" and outside is None:
            similar = _similarity_terms(verdict, f"{label}.verdicts.T0.evidence.similarity")
            if isinstance(similar, str):
                plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, similar)
            else:
                similarity = similar
                plan.failing.append(claim)
        elif status != "certified":
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, f"check did not certify it ({status})")
        elif outside is not None:
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, outside)
        elif claim in COVERED_CLAIMS:
            needs_task.append(claim)
        else:
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, NOT_FORMALISED.get(claim, "not formalised yet"))
    if not needs_task and similarity is None:
        return plan
    config_term = terms.config(config.tokens, config.alpha, config.A_matrix)
    gram = _gram_terms(config.A_matrix) if "D2" in needs_task or "T4" in needs_task else None
    if gram is None:
        _not(plan, needs_task, NO_GRAM, ("D2", "T4"))
    fates = record.get("fates")
    if not isinstance(fates, list):
        raise InputError(f"{label}.fates", "expected the list of fates")
    by_token: dict[int, Mapping[str, Any]] = {}
    for i, f in enumerate(fates):
        if not isinstance(f, Mapping) or not isinstance(f.get("token"), int) or f["token"] in by_token:
            raise InputError(f"{label}.fates[{i}]", "expected one fate object per token, with its index")
        by_token[f["token"]] = f
    uncovered = [f for f in (by_token.get(i) for i in range(config.n))
                 if f is None or f.get("kind") not in ("leader", "fixed", "locked", "path")]
    segment: tuple[str, int, list[list[int]]] | None = None
    path_reason: str | None = None
    if not uncovered and len(by_token) == config.n and any(f.get("kind") == "path" for f in by_token.values()):
        chain = _chain(verdicts)
        found = segment_term(chain, config.A_matrix, config.n, config.d, f"{label}.closed_form") if chain else None
        if isinstance(found, tuple):
            segment = found
        else:
            uncovered = [next(f for f in by_token.values() if f.get("kind") == "path")]
            path_reason = found or "no closed-form chain in the certificates"
    if len(by_token) != config.n or uncovered:
        _not(plan, needs_task, (f"a token's closed-form path (D9) cannot be checked: {path_reason}"
                                if path_reason is not None else "not every token has a D7 fate or a closed-form path"),
             ("T0", "T1", "T2", "T3", "T4", "replay"))
        if not needs_task and similarity is None:
            return plan
        # D1, D2 and D3 need no certificate of the fates: A's, and the theorems' assumptions.
        plan.task = KernelTask(name=label, config=config_term, fates=[], limits=[], last_layer=0,
                               last_positions="[]",
                               size=config.n * (1 + (similarity[0] + similarity[1] if similarity else 0)),
                               gram=gram, outcome=False, similarity=similarity)
        plan.waiting = needs_task + plan.failing
        return plan
    coq_fates, coq_limits = [], []
    layers_used, kinds = [], []
    chain_leaders = _chain_leaders(_chain(verdicts)) if segment is not None else {}
    for i in range(config.n):
        f = by_token[i]
        where = f"{label}.fates[token {i}]"
        members = f.get("set")
        if not isinstance(f.get("layer"), int) or not isinstance(members, list) or not all(isinstance(j, int) for j in members):
            raise InputError(where, "expected an integer layer and a list of token indices")
        kind, layer = f["kind"], f["layer"]
        if kind == "path" and segment is not None:
            # The kernel follows the final segment from its own layer; a path whose set is {i} is a leader.
            kind, layer, members = "path", segment[1], segment[2][i]
            if members == [i] and i in chain_leaders:
                kind, layer, members = "leader", chain_leaders[i], [i]
        coq_fates.append(terms.fate(kind, layer, members))
        layers_used.append(layer)
        kinds.append(kind)
        coq_limits.append(terms.vec(_point(f.get("limit"), f"{where}.limit")))
    if not any(kind == "leader" for kind in kinds):
        # The kernel's statement of the fates includes T0 (a leader exists): without one it says nothing.
        _not(plan, needs_task, "no token leads, and the kernel's statement of the fates includes T0",
             ("T0", "T1", "T2", "T3", "T4", "replay"))
        segment = None
    replay = verdicts.get("replay")
    certificate = replay.get("certificate") if isinstance(replay, Mapping) and replay.get("status") == "certified" else None
    if isinstance(certificate, Mapping):
        last_layer = certificate.get("last_layer")
        positions = certificate.get("final_positions")
        if not isinstance(last_layer, int) or isinstance(last_layer, bool) or not isinstance(positions, list):
            raise InputError(f"{label}.verdicts.replay.certificate", "expected last_layer and final_positions")
        last = terms.matrix(_point(p, f"{label}.verdicts.replay.certificate.final_positions[{i}]")
                            for i, p in enumerate(positions))
        if last_layer < 1:  # layer 0 is the input: nothing replayed
            _not(plan, needs_task, "the replay certificate replays no layer", ("replay",))
    else:
        last_layer, last = 0, terms.matrix(config.tokens)
        _not(plan, needs_task, "no replay certificate", ("replay",))
    directions = multipliers = None
    if any(c in needs_task for c in ("T2", "T3", "T4")):
        polytope = _polytope_terms(verdicts, by_token, config.n, config.d, label)
        if isinstance(polytope, str):
            _not(plan, needs_task, polytope, ("T2", "T3", "T4"))
        else:
            directions, multipliers = polytope
    faces = _face_terms(verdicts["T4"], config.n, label) if "T4" in needs_task else None
    plan.task = KernelTask(name=label, config=config_term, fates=coq_fates, limits=coq_limits, last_layer=last_layer,
                           last_positions=last,
                           size=config.n * (1 + max([last_layer] + layers_used)) * (2 if segment is not None else 1),
                           directions=directions, multipliers=multipliers, gram=gram, faces=faces,
                           segment=segment[0] if segment is not None else None, outcome="leader" in kinds,
                           similarity=similarity)
    plan.waiting = needs_task + plan.failing
    return plan


def _similarity_terms(verdict: Mapping[str, Any], where: str) -> tuple[int, int, str, str, str] | str:
    """A failed T0's D11 certificate as Coq terms (k, p, M, s, P), or why the kernel cannot check it
    (a relabelling that is no permutation of the tokens is written as given: the kernel rejects it)."""
    evidence = verdict.get("evidence")
    certificate = evidence.get("similarity") if isinstance(evidence, Mapping) else None
    if not isinstance(certificate, Mapping) or certificate.get("format") != SIMILARITY_FORMAT:
        return "check did not certify it (failed with no similarity certificate, D11)"
    layer, period, relabelling = certificate.get("layer"), certificate.get("period"), certificate.get("relabelling")
    M = certificate.get("M")
    if not (isinstance(layer, int) and isinstance(period, int)) or isinstance(layer, bool) or isinstance(period, bool) \
            or layer < 0 or period < 0:
        raise InputError(f"{where}.layer", "expected nonnegative integers layer and period")
    if not isinstance(M, list):
        raise InputError(f"{where}.M", "expected the matrix M")
    if not isinstance(relabelling, list) or not all(isinstance(j, int) and not isinstance(j, bool) and j >= 0
                                                    for j in relabelling):
        raise InputError(f"{where}.relabelling", "expected a list of token indices")
    rows = [_point(row, f"{where}.M[{r}]") for r, row in enumerate(M)]
    return (layer, period, terms.matrix(rows), terms.q(_rational(certificate.get("scale"), f"{where}.scale")),
            terms.nat_list(relabelling))


def _chain(verdicts: Mapping[str, Any]) -> Any:
    """The closed-form chain (D9) the certificates carry (every verdict carries the same one)."""
    for claim in ("T1", "T2", "T3", "T4"):
        verdict = verdicts.get(claim)
        certificate = verdict.get("certificate") if isinstance(verdict, Mapping) else None
        if isinstance(certificate, Mapping) and certificate.get("closed_form") is not None:
            return certificate["closed_form"]
    return None


def _chain_leaders(chain: Any) -> dict[int, int]:
    leaders = chain.get("leaders") if isinstance(chain, Mapping) else None
    if not isinstance(leaders, list):
        return {}
    return {e["token"]: e["first_layer"] for e in leaders if isinstance(e, Mapping)
            and isinstance(e.get("token"), int) and isinstance(e.get("first_layer"), int)}


def _polytope_terms(verdicts: Mapping[str, Any], by_token: Mapping[int, Mapping[str, Any]], n: int, d: int,
                    label: str) -> tuple[list[str], list[str]] | str:
    """The directions and multipliers of T2's and T3's certificates as Coq terms, one per token
    (or why there are none: T2 and T3 are checked together)."""
    t2, t3 = verdicts.get("T2"), verdicts.get("T3")
    if not (isinstance(t2, Mapping) and isinstance(t3, Mapping) and t2.get("status") == t3.get("status") == "certified"):
        return "T2, T3 and T4 rest on T2's and T3's certificates together, and check did not certify both"
    vertices = (t2.get("certificate") or {}).get("vertices")
    boundary = (t3.get("certificate") or {}).get("boundary")
    if not isinstance(vertices, list) or not isinstance(boundary, list):
        raise InputError(f"{label}.verdicts", "expected T2's vertices and T3's boundary in their certificates")
    leaders = [i for i in range(n) if by_token[i]["kind"] == "leader"]
    position = {token: index for index, token in enumerate(leaders)}
    entries: dict[int, Mapping[str, Any]] = {}
    for where, items in (("T2.certificate.vertices", vertices), ("T3.certificate.boundary", boundary)):
        for k, entry in enumerate(items):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("token"), int) or entry["token"] in entries:
                raise InputError(f"{label}.verdicts.{where}[{k}]", "expected one entry per token, with its index")
            entries[entry["token"]] = entry
    directions, multipliers = [], []
    for i in range(n):
        entry = entries.get(i)
        if entry is None:
            return f"T2's and T3's certificates name no direction for token {i}"
        where = f"{label}.verdicts (token {i})"
        direction = _point(entry.get("direction"), f"{where}.direction")
        if i in position:
            if not any(direction) and len(leaders) == 1:
                direction = [Fraction(1)] + [Fraction(0)] * (d - 1)  # K is one point: any normal supports it
            weights = [(Fraction(1), position[i])]
        else:
            raw = entry.get("multipliers", {})
            if not isinstance(raw, Mapping):
                raise InputError(f"{where}.multipliers", "expected weights keyed by leader token indices")
            # A key that names no leader becomes an index past K: the kernel rejects it (never skipped here).
            weights = [(_rational(w, f"{where}.multipliers.{k}"),
                        position.get(int(k) if isinstance(k, str) and k.isdigit() else -1, len(leaders)))
                       for k, w in raw.items()]
        directions.append(terms.vec(direction))
        multipliers.append("[" + "; ".join(f"({terms.q(w)}, {j}%nat)" for w, j in weights) + "]")
    return directions, multipliers


def _face_terms(verdict: Mapping[str, Any], n: int, label: str) -> list[str]:
    """T4's certificate as one direction per token: the direction exposing the face of its limit
    (a vertex limit's direction is not read: the empty vector)."""
    certificate = verdict.get("certificate")
    projections = certificate.get("projections") if isinstance(certificate, Mapping) else None
    if not isinstance(projections, list):
        raise InputError(f"{label}.verdicts.T4.certificate", "expected the list of projections")
    faces = [terms.vec([]) for _ in range(n)]
    for k, entry in enumerate(projections):
        where = f"{label}.verdicts.T4.certificate.projections[{k}]"
        tokens = entry.get("tokens") if isinstance(entry, Mapping) else None
        if not isinstance(tokens, list) or not all(isinstance(t, int) and 0 <= t < n for t in tokens):
            raise InputError(where, "expected the tokens of a non-vertex limit")
        direction = terms.vec(_point(entry.get("direction"), f"{where}.direction"))
        for t in tokens:
            faces[t] = direction
    return faces


def _gram_terms(A: list[list[Fraction]]) -> tuple[str, str] | None:
    """A = sum_i d_i v_i v_i^T (d_i > 0: the pivots of an exact LDL^T, v_i the columns of L) as Coq terms."""
    if not is_symmetric(A):
        return None
    decomposition = ldl_decomposition(A)
    if decomposition is None or any(p <= 0 for p in decomposition[1]):
        return None
    L, D = decomposition
    columns = [[L[r][j] for r in range(len(L))] for j in range(len(L))]
    return "[" + "; ".join(terms.q(p) for p in D) + "]", terms.matrix(columns)
