"""The claim registry (verify/claims/registry.py) is the one list of claims, and the structure around it holds.

* the claims of docs/theory.md are registered, in its order, with the roles and facts the
  consumers read (what each claim must provide is the conformance kit's,
  tests/meta/test_claim_conformance.py);
* the independent checker's own table (verify/certcheck.py keeps it, importing nothing from the
  package) has the registry's claim checks under their keys, in the same order, and no other;
* the package's module-level imports have no cycle, and verify/app/campaign/ imports none of the
  package's own modules inside a function.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import verify
from verify import certcheck
from verify.claims import claim_modules, registry

PACKAGE = Path(verify.__file__).parent


def test_the_claims_of_the_theory_are_registered_in_its_order() -> None:
    assert registry.verdict_ids() == ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay")
    assert [c.id for c in registry.claims("assertion")] == ["D0", "D5", "D8", "float"]
    assert claim_modules() == ("T0", "T1", "T2", "T3", "T4", "D0", "D1", "D2", "D3", "D5", "D8", "float", "replay")


def test_roles_and_limits_are_the_theory_s() -> None:
    """What the consumers read instead of lists of ids: the theorem's claims, the engine check, the limit-based checks."""
    by_role = {role: [c.id for c in registry.claims("check") if c.role == role] for role in registry.ROLES}
    assert by_role == {"theorem": ["T0", "T1", "T2", "T3", "T4"], "fact": ["D1", "D2", "D3"], "engine": ["replay"]}
    assert [c.id for c in registry.claims() if c.decided_on_limits] == ["T2", "T3", "T4"]
    assert [c.id for c in registry.claims() if c.report_note is not None] == ["T4"]


def test_a_claim_with_an_unknown_role_is_refused() -> None:
    with pytest.raises(ValueError, match="role"):
        registry.Claim("X9", "a toy claim", "check", role="lemma")  # type: ignore[arg-type]


def test_assertions_emit_no_verdict() -> None:
    assertions = registry.claims("assertion")
    assert {c.id for c in assertions} >= {"D0", "D5", "D8", "float"}
    assert all(c.check is None and c.certificate is None for c in assertions)


def test_claims_rest_on_proved_facts_only() -> None:
    # docs/theory.md §3: T1..T4 are settled by D7 or by a D9 closed-form path; the record says both.
    for claim in registry.claims():
        assert set(claim.rests_on) <= set(registry.PROVED_FACTS), claim.id
    for claim_id in ("T1", "T2", "T3", "T4"):
        claim = registry.get(claim_id)
        assert {"D7", "D9"} <= set(claim.rests_on), claim_id
        assert "D7" in claim.assumption and "D9" in claim.assumption, claim.assumption
    assert registry.get("D3").rests_on == ("D3",)
    assert all(not c.rests_on for c in registry.claims() if c.id in ("T0", "D1", "D2", "replay"))


@pytest.mark.parametrize("rests_on", ["D7", ("D7", "D10"), ("T3",)])
def test_a_claim_resting_on_an_unknown_fact_is_refused(rests_on: object) -> None:
    with pytest.raises(ValueError, match="rests_on"):
        registry.Claim("X9", "a toy claim", "check", rests_on=rests_on)  # type: ignore[arg-type]


def test_certcheck_routines_are_the_registry_claims() -> None:
    """The checker's own table and the registry's keys are the same list, in the same order."""
    keys = [c.certificate for c in registry.claims("check") if c.certificate is not None]
    assert list(certcheck.CHECKS) == keys


# --------------------------------------------------------------------------- structure


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache  # parsed once for the tests that read it
def _import_graph() -> tuple[dict[str, set[str]], dict[str, list[tuple[str, int]]]]:
    """Module-level imports between the package's modules, and function-local ones (module, line)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    local: dict[str, list[tuple[str, int]]] = {m: [] for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(module, node, path.name == "__init__.py")
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            for target in (t for t in targets if t in modules and t != module):
                if id(node) in top:
                    graph[module].add(target)
                else:
                    local[module].append((target, node.lineno))
    return graph, local


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle() -> None:
    graph, _ = _import_graph()
    assert graph["verify.app.campaign.executors"] >= {"verify.app.campaign.run", "verify.app.campaign.merge"}
    assert _cycles(graph) == []


def test_the_cycle_finder_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_campaign_has_no_function_local_imports_of_the_package() -> None:
    _, local = _import_graph()
    hidden = {m: found for m, found in local.items() if m.startswith("verify.app.campaign") and found}
    assert hidden == {}
