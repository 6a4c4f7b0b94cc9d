"""The house rules a newcomer relies on, checked on the code itself.

The layer rules (which layer may import which) are import-linter contracts in pyproject.toml, run by
`lint-imports` in CI; these tests add what a layers contract cannot see: cycles inside one layer
(function-local imports included) and the size limits that keep every module and function readable.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[1] / "studyplan"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_no_import_cycles_function_local_imports_included() -> None:
    graph = grimp.build_graph("studyplan", cache_dir=None)
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(importer=imported, imported=module):
                cycles.append(f"{module} -> {imported} -> ... -> {module}")
    assert cycles == []


def _python_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_the_line_limit() -> None:
    too_long = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in _python_files()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert too_long == {}


def test_no_function_is_over_the_line_limit() -> None:
    too_long = {}
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long[f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}"] = length
    assert too_long == {}
