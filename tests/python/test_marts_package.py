"""models/marts/<folder>/ and python/rater1001/marts/<folder>.py pair one to one: a module for each
folder with dbt Python models, no module without such a folder, every Python model the same three
lines that call the function named like the model in its folder's module, with only dbt.ref and
dbt.config.get values as arguments (no logic in the model file)."""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import rater1001.marts
from rater1001.paths import REPO_ROOT

MARTS = REPO_ROOT / "models" / "marts"
PY_MODELS = sorted(MARTS.glob("*/*.py"))
MODULES = {m.name for m in pkgutil.iter_modules(rater1001.marts.__path__) if not m.name.startswith("_")}


def test_every_folder_with_python_models_has_its_module_and_no_module_lacks_a_folder():
    folders = {p.parent.name for p in PY_MODELS}
    assert folders == MODULES
    sql_only = {p.name for p in MARTS.iterdir() if p.is_dir()} - folders
    assert sql_only, "expected some SQL-only folders (fer, query, ...)"
    for name in sql_only:  # the package says which folders have no module and why
        assert name in rater1001.marts.__doc__, name


def _dbt_value(node: ast.expr) -> bool:
    """dbt.ref("x") or dbt.config.get("x") with a literal argument."""
    if not isinstance(node, ast.Call) or not all(isinstance(a, ast.Constant) for a in node.args):
        return False
    return ast.unparse(node.func) in ("dbt.ref", "dbt.config.get")


@pytest.mark.parametrize("path", PY_MODELS, ids=lambda p: p.stem)
def test_each_python_model_is_three_lines_calling_its_builder(path):
    tree = ast.parse(path.read_text())
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    fn = tree.body[0]
    assert fn.name == "model" and [a.arg for a in fn.args.args] == ["dbt", "session"]
    imp, ret = fn.body if len(fn.body) == 2 else (None, None)
    folder = path.parent.name
    assert isinstance(imp, ast.ImportFrom) and imp.module == "rater1001.marts"
    assert [a.name for a in imp.names] == [folder] and imp.names[0].asname is None
    assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call)
    assert ast.unparse(ret.value.func) == f"{folder}.{path.stem}"
    args = list(ret.value.args) + [k.value for k in ret.value.keywords]
    assert args and all(_dbt_value(a) for a in args), ast.unparse(ret.value)
    # the builder is in the folder's module and takes exactly what the model hands it
    builder = getattr(importlib.import_module(f"rater1001.marts.{folder}"), path.stem)
    inspect.signature(builder).bind(*ret.value.args, **{k.arg: k.value for k in ret.value.keywords})
    # the provenance relation comes last among the refs: every mart carries data_origin
    last = ret.value.args[-1]
    assert ast.unparse(last.func) == "dbt.ref" and last.args[0].value == "int_study_provenance"
