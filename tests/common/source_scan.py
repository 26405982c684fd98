"""Finding calls of ``json.<name>`` in Python source, with the function each one is in."""

from __future__ import annotations

import ast


def json_calls(source: str, names: tuple[str, ...]) -> list[tuple[str, ast.Call]]:
    """Every call ``json.<name>(...)`` in ``source`` with ``name`` in ``names``, with the name of the
    function it is in (``<module>`` at the top level)."""
    found: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == "json"
                    and child.func.attr in names):
                found.append((function, child))
            visit(child, name)

    visit(ast.parse(source), "<module>")
    return found
