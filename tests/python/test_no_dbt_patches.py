"""The project uses dbt through its public interfaces only: no Python file of the repository assigns
an attribute of something imported from dbt or dbt_common (a patch of dbt's internals breaks
silently on an upgrade), and no macro replaces a materialization of dbt or dbt-duckdb."""

from __future__ import annotations

import ast
import re
import subprocess

import pytest
from rater1001.paths import REPO_ROOT

DBT_PACKAGES = ("dbt", "dbt_common")
MATERIALIZATION_BLOCK = re.compile(r"{%-?\s*materialization\b")


def _tracked(*patterns: str) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--", *patterns], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [p for p in out.stdout.splitlines() if (REPO_ROOT / p).exists()]


def _from_dbt(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in DBT_PACKAGES


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def dbt_patches(source: str) -> list[str]:
    """Each statement that assigns (or deletes, or setattr()s) an attribute of a name bound to a
    dbt or dbt_common module or of anything imported from one, as 'line: code'."""
    tree = ast.parse(source)
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _from_dbt(alias.name):
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _from_dbt(node.module):
            bound.update(alias.asname or alias.name for alias in node.names)

    def patched(target: ast.expr) -> bool:
        if isinstance(target, (ast.Tuple, ast.List)):
            return any(patched(t) for t in target.elts)
        return isinstance(target, ast.Attribute) and _root_name(target) in bound

    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if name in {"setattr", "delattr", "__setattr__"} and (
                _root_name(first) in bound
                or (isinstance(first, ast.Constant) and isinstance(first.value, str) and _from_dbt(first.value))
            ):
                found.append(node)
            continue
        if any(patched(t) for t in targets):
            found.append(node)
    return [f"{n.lineno}: {ast.get_source_segment(source, n)}" for n in found]


def test_the_check_finds_a_patch_of_dbt_common():
    """dbt_common's event classes as the project once patched them, and patches by other routes."""
    old = (
        "from dbt_common.events.base_types import BaseEvent\n"
        "import dbt_common.events.event_manager as manager\n"
        "from dbt_common.events.event_manager import EventManager as EM\n"
        "import dbt.tracking\n"
        "BaseEvent.__init__ = lazy_init\n"
        "EM.fire_event, x = fire_if_heard, 1\n"
        "manager.msg_from_base_event = counted\n"
        "dbt.tracking.active_user = None\n"
        "setattr(BaseEvent, '__getattr__', read)\n"
        "monkeypatch.setattr('dbt_common.events.functions.WARN_ERROR', True)\n"
    )
    assert [line.split(":")[0] for line in dbt_patches(old)] == ["5", "6", "7", "8", "9", "10"]
    # reading dbt's objects, or assigning attributes of the project's own, is no patch
    fine = "from dbt.cli.main import dbtRunner\nrunner = dbtRunner()\nresult = runner.invoke([])\nself.total = 1\n"
    assert dbt_patches(fine) == []


def test_no_python_file_assigns_an_attribute_of_dbt():
    patches = {
        path: found for path in _tracked("*.py") if (found := dbt_patches((REPO_ROOT / path).read_text("utf-8")))
    }
    assert patches == {}


def test_no_macro_replaces_a_materialization():
    folders = [p for p in _tracked() if "materializations" in p.split("/")[:-1]]
    assert folders == []
    blocks = [p for p in _tracked("*.sql") if MATERIALIZATION_BLOCK.search((REPO_ROOT / p).read_text("utf-8"))]
    assert blocks == []
    assert MATERIALIZATION_BLOCK.search('{% materialization table, adapter="duckdb" %}')
