"""marts._preload.import_builders, which `rater1001 run` calls while its quality gate runs, leaves
nothing for a build's Python models to import: every module a table builder or a statistic
imports inside a function is loaded by it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from rater1001.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "python" / "rater1001"


def _imports_inside_functions(folder) -> set[str]:
    """Absolute module names imported in a function body of the folder's modules."""
    names = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    names.update(a.name for a in inner.names)
                elif isinstance(inner, ast.ImportFrom) and inner.level == 0:
                    names.add(inner.module)
    return names


def test_the_preload_imports_what_builders_and_statistics_import_late():
    late = _imports_inside_functions(PACKAGE / "stats") | _imports_inside_functions(PACKAGE / "marts")
    assert {"mixedlm", "statsmodels.discrete.discrete_model"} <= late  # the scan sees them
    code = (
        "import json, sys; from rater1001.marts._preload import import_builders; import_builders(); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = set(
        json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    )
    assert sorted(late - loaded) == []
