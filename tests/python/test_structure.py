"""The shape of the package a newcomer reads: statistics live by statistic or family in short
modules; the import graph keeps the contracts of pyproject.toml ([tool.importlinter]: the
pipeline's flow, the runs, the gate's order, the gate without the report, no cycle between
siblings), no two modules import each other even through others, and an `__init__.py` only
re-exports (the code lives in a named module)."""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import numpy as np
import pytest
from importlinter.cli import lint_imports
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "python" / "rater1001"
STATS = PACKAGE / "stats"
MAX_LINES = 400


def test_no_stats_module_over_400_lines():
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in STATS.glob("*.py")}
    over = {name: n for name, n in lines.items() if n > MAX_LINES}
    assert over == {}, f"stats modules over {MAX_LINES} lines: {over}"


def test_the_import_graph_keeps_the_contracts_of_pyproject(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    # lint_imports configures logging with dictConfig, which disables every logger that exists
    # (dbt's file logger among them, when a dbt command ran earlier in this process: later
    # commands then wrote an empty logs/dbt.log); their state is put back after it.
    disabled = {lg: lg.disabled for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger)}
    try:
        code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True, no_logo=True)
    finally:
        for lg, was in disabled.items():
            lg.disabled = was
    out = capsys.readouterr().out
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    assert code == 0 and f"Contracts: {len(contracts)} kept, 0 broken" in out, out


def import_cycles(package: str) -> list[list[str]]:
    """The module cycles of `package`: strongly connected components of its import graph with
    more than one module (scipy's, so the check shares no code with import-linter's)."""
    graph = grimp.build_graph(package, cache_dir=None)
    modules = sorted(graph.modules)
    index = {m: i for i, m in enumerate(modules)}
    edges = [(index[a], index[b]) for a in modules for b in graph.find_modules_directly_imported_by(a)]
    rows, cols = zip(*edges) if edges else ((), ())
    matrix = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(modules), len(modules)))
    _, labels = connected_components(matrix, directed=True, connection="strong")
    groups: dict[int, list[str]] = {}
    for module, label in zip(modules, labels):
        groups.setdefault(label, []).append(module)
    return sorted(g for g in groups.values() if len(g) > 1)


def test_no_two_modules_import_each_other():
    assert import_cycles("rater1001") == []


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    # A finder that never finds anything would pass the test above.
    pkg = tmp_path / "tangled"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")  # a lazy import is an import too
    (pkg / "c.py").write_text("from .a import b\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("tangled") == [["tangled.a", "tangled.b", "tangled.c"]]


def code_in_init(path: Path) -> list[str]:
    """What an `__init__.py` holds besides its docstring, imports, dunder names (`__all__`) and a
    module `__getattr__` (a lazy re-export): one line per statement, 'file:line kind'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Assign) and all(getattr(t, "id", "").startswith("__") for t in node.targets):
            continue  # __all__, __version__
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            continue
        found.append(f"{path.relative_to(REPO)}:{node.lineno} {type(node).__name__}")
    return found


@pytest.mark.parametrize(
    "source, expected",
    [
        ('"""Doc."""\nfrom .a import f\n__all__ = ["f"]\n', []),
        ('"""Doc."""\nX = 1\ndef run():\n    pass\n', ["x/__init__.py:2 Assign", "x/__init__.py:3 FunctionDef"]),
    ],
)
def test_code_in_init_tells_a_re_export_from_code(tmp_path, monkeypatch, source, expected):
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "__init__.py").write_text(source)
    assert code_in_init(tmp_path / "x" / "__init__.py") == expected


def test_an_init_only_re_exports():
    inits = sorted(p for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)
    found = {str(p.relative_to(REPO)): lines for p in inits if (lines := code_in_init(p))}
    assert found == {}


def test_every_data_file_of_the_package_is_in_its_package_data():
    # A template or font left out of [tool.setuptools.package-data] is missing from an installed
    # wheel, though every test on the source tree passes.
    globs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    shipped = {p for pattern in globs["rater1001"] for p in PACKAGE.glob(pattern) if p.is_file()}
    # __pycache__ holds what Python and numba compile (stats.signed_rank's cached kernel), not data
    data = {
        p
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }
    assert sorted(str(p.relative_to(PACKAGE)) for p in data - shipped) == []


def test_the_gate_loads_without_the_report_or_its_chart_libraries():
    # The contract above reads the source; this runs it (a fresh interpreter, nothing preloaded).
    code = (
        "import sys, rater1001.quality.gate; "
        "print(sorted(m for m in ('rater1001.report', 'vl_convert', 'altair') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
