"""The `rater1001` command's entry: main's exit code, and the objects left set aside from the
garbage collector so the interpreter's exit does not walk them (docs/performance.md)."""

from __future__ import annotations

import gc
import tomllib

from rater1001 import cli
from rater1001.paths import REPO_ROOT


def test_the_command_is_entry():
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["rater1001"] == "rater1001.cli:entry"


def test_entry_returns_mains_code_and_freezes_what_is_left(monkeypatch):
    monkeypatch.setattr(cli, "main", lambda: 3)
    gc.unfreeze()
    try:
        assert cli.entry() == 3
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_main_leaves_the_collector_alone(monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "_run", lambda args: 0)
    gc.unfreeze()
    assert cli.main(["--home", str(tmp_path), "run"]) == 0
    assert gc.get_freeze_count() == 0
