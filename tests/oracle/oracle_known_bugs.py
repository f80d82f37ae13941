"""The warehouse's known wrong answers today (issue 31), as (check, predicate on the landed
study, reason). A comparison they name is marked xfail(strict=True, raises=AssertionError): the
oracle still states the right answer; when a fix lands the comparison passes, the strict mark
fails the test, and its entry here is removed. The matrix and the acceptance studies share it."""

from __future__ import annotations

import functools

import oracle_calc as oc
import pytest
from oracle_checks import CHECKS, applies

# (check, predicate on the landed study, reason): the warehouse's known wrong answers today.
KNOWN_BUGS: list = []


def known_bug(check: str, landed: oc.Landed) -> str | None:
    reasons = [reason for name, applies_to, reason in KNOWN_BUGS if name == check and applies_to(landed)]
    return "; ".join(reasons) or None


@functools.cache
def landed_once(root) -> oc.Landed:
    """One read of a study's landing per test session; its tables are kept for every check."""
    return oc.load(root)


def oracle_check(root, landed: oc.Landed, check: str, request) -> None:
    """One test: run a check on a built study folder, marked xfail(strict) where a known bug
    applies (raises=AssertionError: an error of the oracle itself is never an expected failure)."""
    if not applies(check, landed):
        pytest.skip(f"{check} has nothing to compare in this study")
    reason = known_bug(check, landed)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason, raises=AssertionError))
    result = CHECKS[check](root, landed)
    assert result.compared > 0 or result.problems
    assert not result.problems, "\n".join(result.problems[:20])
