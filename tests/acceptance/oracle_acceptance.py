"""The oracle (tests/oracle) on an acceptance study: the same comparisons as the shape matrix, one
test per check, the known wrong answers marked as there (oracle_known_bugs)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))

import oracle_calc as oc  # noqa: E402
from oracle_checks import CHECKS  # noqa: E402
from oracle_known_bugs import oracle_check as _check  # noqa: E402


def oracle_check(root: Path, check: str, request) -> None:
    _check(root, oc.load(root), check, request)


__all__ = ["CHECKS", "oracle_check"]
