"""The layers of verify/ import in one direction only, with no cycle, reading every import statement.

Every ``import`` and ``from ... import`` of every module of the package is read from its syntax
tree, at module level and inside functions alike, and checked against the table of parts below
(docs/architecture.md shows the same table, and a test here keeps the two equal):

* an import of another part of the package must go in an allowed direction (core <- claims <-
  experiments <- app, with the public modules where they sit, and the independent checker
  importing nothing of the project);
* the modules of the package import each other without a cycle, counting every import;
* an import inside a function is of a slow optional third-party dependency named in
  :data:`LOCAL_IMPORTS`, with its reason; never of the project or the standard library;
* a module that imports by name at run time (``importlib.import_module``) is one of
  :data:`DYNAMIC_IMPORTS`, with its reason, and what it imports goes in an allowed direction.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import verify

PACKAGE = Path(verify.__file__).parent
REPOSITORY = PACKAGE.parent


@dataclass(frozen=True)
class Part:
    """A part of the package: its modules (dotted prefixes), the parts it may import, what it is."""

    name: str
    modules: tuple[str, ...]
    may_import: tuple[str, ...]
    what: str


# Bottom to top: a part may import the parts it names (within a part, anything, without a cycle).
PARTS: tuple[Part, ...] = (
    Part("certcheck", ("verify.certcheck",), (),
         "the independent checkers (claims, results, softmax records, control results, classification networks): "
         "the standard library only, never the engines they check"),
    Part("oracles", ("verify.core.oracle", "verify.experiments.classify.oracle"), (),
         "the other independent oracles (the replay's one-step oracle, exact classification's literal forward "
         "pass): the standard library only"),
    Part("core", ("verify.core",), ("certcheck",), "exact numbers and inputs, both engines, geometry, closed forms"),
    Part("claims", ("verify.claims",), ("core", "oracles", "certcheck"),
         "the claim registry, one module per claim, the run they share"),
    Part("formal", ("verify.formal",), ("core", "claims"),
         "the bridge to the Coq development formal/: configurations and certificates as Coq terms, run by coqc "
         "(untrusted: Coq's kernel checks what it writes)"),
    Part("package", ("verify",),
         ("core", "claims", "strategies", "testing", "experiments.conjectures", "experiments.control",
          "experiments.classify", "moved"),
         "public: `import verify`, the names users write against (simulate, check_configuration, Conjecture, the "
         "strategies, ...), each served from its layer on first use, and the version"),
    Part("strategies", ("verify.strategies",), ("core",),
         "public: Hypothesis strategies over the core's configuration families"),
    Part("testing", ("verify.testing",), ("core", "claims"),
         "public: assertion helpers named after the claims, for property tests"),
    Part("experiments.shared", ("verify.experiments", "verify.experiments.sections", "verify.experiments.imdb"),
         ("core",), "what experiments share: the report-section protocol, the IMDb review files"),
    Part("experiments.sentiment", ("verify.experiments.sentiment",),
         ("core", "claims", "experiments.shared"), "the sentiment experiment"),
    Part("experiments.classify", ("verify.experiments.classify",),
         ("core", "certcheck", "experiments.shared"), "exact sequence classification"),
    Part("experiments.control", ("verify.experiments.control",), ("core", "experiments.shared"),
         "leader control: choosing A so that chosen tokens lead (docs/theory.md D10)"),
    Part("experiments.conjectures", ("verify.experiments.conjectures",),
         ("core", "claims", "certcheck", "strategies", "experiments.shared", "experiments.control"),
         "the conjecture lab: Hypothesis searches over the public strategies; D10 statements use leader "
         "control, and a refutation is re-verified by the independent checker"),
    Part("experiments.registry", ("verify.experiments.registry",),
         ("experiments.shared", "experiments.sentiment", "experiments.classify", "experiments.conjectures",
          "experiments.control"),
         "the one list of experiments whose report sections the app renders"),
    Part("app", ("verify.app",),
         ("package", "core", "claims", "certcheck", "formal", "strategies", "experiments.shared",
          "experiments.sentiment", "experiments.classify", "experiments.conjectures", "experiments.control",
          "experiments.registry"),
         "the command line, the campaign, the report, the self-test"),
    Part("entry", ("verify.__main__", "verify.pytest_plugin"), ("core", "app"),
         "public: `python -m verify` and the pytest plugin"),
    Part("moved", ("verify._moved",),
         ("core", "oracles", "claims", "certcheck", "experiments.shared", "experiments.sentiment",
          "experiments.classify", "experiments.conjectures", "app"),
         "old import paths: a module that moved is served under its old name, with a DeprecationWarning"),
)

# What a function may import on first use (slow to import, or optional), and why: third-party packages,
# and the one module of the package that exists to hold a slow one.
LOCAL_IMPORTS: dict[str, str] = {
    "verify.core.float_kernel": "the float engine's compiled kernel: importing it imports numba (seconds), so the "
                                "engine imports it when a float layer runs",
    "verify.experiments.sentiment.attention_kernel": "the training step's compiled attention layers: importing it "
                                                     "imports numba, so a training step imports it when it runs",
    "torch": "optional extra (sentiment training); seconds to import",
    "numba": "the float kernel's compiler: seconds to import, and only a float layer needs it",
    "cvxpy": "the T4 cross-check's solver: about a second to import, never deciding",
    "clarabel": "leader control's solver (it only proposes A; exact checks decide): imported when a program is solved",
    "dask": "optional extra (distributed campaigns)",
    "distributed": "optional extra (distributed campaigns)",
    "matplotlib": "figures only: seconds to import",
    "scipy": "convex hulls of the float analyses: slow to import",
    "hypothesis": "seconds to import: verify.testing's helpers import it only to record an event or reject an example",
    "safetensors": "optional: sentiment model weights",
    "vaderSentiment": "optional: the sentiment lexicon of the leader analysis",
    "simplemma": "optional: lemmatisation of the sentiment preprocessing",
    "stop_words": "optional: stop-word lists of the sentiment preprocessing",
    "cdd": "pycddlib, the testing helpers' independent hull test: imported only when one runs",
    "numpy": "imported beside cvxpy (which loads it anyway) by the T4 cross-check: `check` starts without numpy",
}

# Modules that import by name at run time, and why (what they import is checked below).
DYNAMIC_IMPORTS: dict[str, str] = {
    "verify": "PEP 562 public names: `import verify` stays light (numba comes with the float engine)",
    "verify._moved": "an old import path imports the module where it lives now",
    "verify.app.cli": "a subcommand's module is imported when that subcommand runs",
    "verify.app.campaign.executors": "a worker imports the modules its tasks need before the first task",
    "verify.claims": "every claim module of the package registers itself; none is named",
    "verify.experiments.conjectures": "PEP 562 public names: the report reads saved runs without importing the lab "
                                      "(and with it Hypothesis)",
}


def part_of(module: str) -> Part:
    """The part holding ``module`` (the longest prefix wins)."""
    best: tuple[int, Part] | None = None
    for part in PARTS:
        for prefix in part.modules:
            # "verify" is the package's own __init__ only: a new top-level module must find its part.
            if module == prefix or (prefix != "verify" and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), part)
    if best is None:
        raise LookupError(f"{module} belongs to no part of the table: add it to PARTS")
    return best[1]


# --------------------------------------------------------------------------- reading the imports


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # what it imports: a module of the package, or a top-level third-party/stdlib name
    line: int
    local: bool  # inside a function


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPOSITORY).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def read_imports(module: str, source: str, modules: set[str], *, is_package: bool = False) -> list[Import]:
    """Every import statement of ``module`` (its ``source``), its target resolved to a module of ``modules`` when it is one."""
    tree = ast.parse(source)
    local_nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local_nodes |= {id(inner) for inner in ast.walk(node) if inner is not node}
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for target in targets:
            if target.split(".")[0] == "verify":
                while target not in modules and "." in target:  # verify.x.name -> verify.x
                    target = target.rpartition(".")[0]
            else:
                target = target.split(".")[0]
            found.append(Import(module, target, node.lineno, id(node) in local_nodes))
    return found


@functools.cache
def package_imports() -> tuple[Import, ...]:
    paths = [p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts]
    modules = {_module_name(p) for p in paths}
    return tuple(i for p in paths for i in read_imports(_module_name(p), p.read_text(encoding="utf-8"), modules,
                                                        is_package=p.name == "__init__.py"))


def _is_project(target: str) -> bool:
    return target == "verify" or target.startswith("verify.")


def direction_violations(imports: tuple[Import, ...]) -> list[str]:
    found = []
    for imp in imports:
        if not _is_project(imp.target) or imp.target == imp.module:
            continue
        source, target = part_of(imp.module), part_of(imp.target)
        if source is not target and target.name not in source.may_import:
            found.append(f"{imp.module}:{imp.line} imports {imp.target}: {source.name} may not import {target.name}")
    return found


def local_import_violations(imports: tuple[Import, ...]) -> list[str]:
    found = []
    for imp in imports:
        if not imp.local:
            continue
        if imp.target in LOCAL_IMPORTS:
            continue
        if _is_project(imp.target):
            found.append(f"{imp.module}:{imp.line}: imports {imp.target} inside a function (move it to the top)")
        elif imp.target in sys.stdlib_module_names:
            found.append(f"{imp.module}:{imp.line}: imports the standard library's {imp.target} inside a function")
        else:
            found.append(f"{imp.module}:{imp.line}: imports {imp.target} inside a function, and LOCAL_IMPORTS "
                         "does not name it as a slow optional dependency")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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
        for w in sorted(graph.get(v, ())):
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


def import_graph(imports: tuple[Import, ...]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for imp in imports:
        graph.setdefault(imp.module, set())
        if _is_project(imp.target) and imp.target != imp.module:
            graph[imp.module].add(imp.target)
    return graph


# --------------------------------------------------------------------------- the tests

@pytest.fixture(scope="module", autouse=True)
def _package_read_once() -> None:
    """Read every import of the package (cached) once: a module fixture keeps these tests on one xdist worker."""
    package_imports()



def test_every_module_belongs_to_a_part() -> None:
    modules = {imp.module for imp in package_imports()} | {_module_name(p) for p in PACKAGE.rglob("*.py")}
    for module in sorted(modules):
        part_of(module)
    assert part_of("verify.experiments.sentiment.model").name == "experiments.sentiment"
    assert part_of("verify.experiments").name == "experiments.shared"


def test_every_import_goes_in_an_allowed_direction() -> None:
    assert direction_violations(package_imports()) == []


def test_the_report_imports_no_experiment() -> None:
    """The report renders what the providers of verify.experiments.registry give it: no experiment is imported by it."""
    allowed = {"verify.experiments.registry", "verify.experiments.sections"}
    found = [f"{i.module}:{i.line} imports {i.target}" for i in package_imports()
             if i.module.startswith("verify.app.report") and i.target.startswith("verify.experiments")
             and i.target not in allowed]
    assert found == []
    assert any(i.target == "verify.experiments.registry" for i in package_imports() if i.module == "verify.app.report.build")


def test_no_import_cycle_counting_every_import() -> None:
    graph = import_graph(package_imports())
    assert graph["verify.app.campaign.executors"] >= {"verify.app.campaign.run", "verify.app.campaign.merge"}
    assert cycles(graph) == []


def test_function_local_imports_are_slow_optional_dependencies_only() -> None:
    imports = package_imports()
    assert any(imp.local for imp in imports), "the reader found no function-local import at all"
    assert local_import_violations(imports) == []


def test_the_table_allows_only_the_directions_the_code_takes() -> None:
    """No permission without an import that uses it: the table (and docs/architecture.md) shows the code as it is."""
    used = {(part_of(i.module).name, part_of(i.target).name)
            for i in package_imports() + _imported_by_name() if _is_project(i.target)}
    unused = [(part.name, allowed) for part in PARTS for allowed in part.may_import if (part.name, allowed) not in used]
    assert unused == []


def test_only_the_listed_modules_import_by_name_at_run_time() -> None:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"\bimport_module\(|__import__\(", text):
            found.add(_module_name(path))
    assert found == set(DYNAMIC_IMPORTS)


def _imported_by_name() -> tuple[Import, ...]:
    """What the modules of DYNAMIC_IMPORTS import by name, read from the tables they import from."""
    from verify._moved import MOVED
    from verify.app.campaign.executors import WARM_MODULES
    from verify.app.commands import COMMANDS
    from verify.claims import claim_modules
    from verify.experiments import conjectures

    by_name = {
        "verify": [f"verify.{module}" for module in verify._PUBLIC.values()],  # type: ignore[attr-defined]
        "verify.app.cli": [f"verify.app.commands.{entry.module}" for entry in COMMANDS],
        "verify.app.campaign.executors": list(WARM_MODULES),
        "verify.claims": [f"verify.claims.{module}" for module in claim_modules()],
        "verify._moved": list(MOVED.values()),
        "verify.experiments.conjectures": sorted({f"verify.experiments.conjectures.{module}"
                                                  for module in conjectures._HOME.values()}),
    }
    assert set(by_name) == set(DYNAMIC_IMPORTS) and all(by_name.values())
    return tuple(Import(module, target, 0, False) for module, targets in by_name.items() for target in targets)


def test_what_is_imported_by_name_goes_in_an_allowed_direction() -> None:
    assert direction_violations(_imported_by_name()) == []


def test_the_architecture_page_shows_this_table() -> None:
    """docs/architecture.md's table of parts: the same parts, modules and allowed imports as PARTS."""
    text = (REPOSITORY / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]+) \| ([^|]*) \|", text, re.M)
    shown = {name: ({m.strip(" `") for m in modules.split(",")},
                    {m.strip(" `") for m in allowed.split(",") if m.strip() not in ("", "—")})
             for name, modules, allowed in rows}
    expected = {part.name: (set(part.modules), set(part.may_import)) for part in PARTS}
    assert shown == expected
    for package in LOCAL_IMPORTS:
        assert f"`{package}`" in text, f"docs/architecture.md does not name {package} among the function-local imports"


# --------------------------------------------------------------------------- the checks can fail


def _imports_of(source: str) -> tuple[Import, ...]:
    """The imports of ``source`` read as a module ``verify.core.toy`` would be."""
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")} | {"verify.core.toy"}
    return tuple(read_imports("verify.core.toy", source, modules))


@pytest.mark.parametrize("source, expected", [
    ("from verify.claims import registry\n", "core may not import claims"),
    ("def f():\n    from verify.app.report import formatting\n", "core may not import app"),
    ("def f():\n    import json\n", "standard library's json inside a function"),
    ("def f():\n    from ..claims import run\n", "inside a function (move it to the top)"),
    ("def f():\n    import pandas\n", "LOCAL_IMPORTS does not name it"),
])
def test_the_reader_sees_a_wrong_import_at_any_depth(source: str, expected: str) -> None:
    imports = _imports_of(source)
    found = direction_violations(imports) + local_import_violations(imports)
    assert any(expected in line for line in found), found


def test_the_cycle_finder_can_fail() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # A cycle closed by a function-local import counts as well.
    imports = (Import("verify.core.a", "verify.core.b", 1, False), Import("verify.core.b", "verify.core.a", 9, True))
    assert cycles(import_graph(imports)) == [["verify.core.a", "verify.core.b"]]
