"""The oracle decides that a shape works (issue 31, item 3): every study of the shape matrix
{labels, ratings, both} x {0-3 audit factors} x {0-2 rater attributes} x {1-3 dimensions} x
{balanced, unbalanced} x {2-5, 50 ratings per item} is built (oracle_studies.MATRIX: every content x
audit count, every pair of any two factors' values), and each mart the report's answer reads is
recomputed from the landed Parquet by oracle_calc, which shares no code with rater1001, and compared
(closed forms 1e-9).

Where the warehouse is wrong today, the oracle states the right answer and the comparison is
marked xfail(strict=True) with the bug (oracle_known_bugs.KNOWN_BUGS): when the fix lands, the comparison passes, the
strict mark fails the test, and the entry is removed. Nothing else is marked.

The builds run in one child process (build_oracle_studies.py, the only file here that imports
rater1001): dbt parses once for the whole matrix."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import oracle_calc as oc
import pytest
from oracle_checks import CHECKS
from oracle_known_bugs import landed_once, oracle_check
from oracle_studies import MATRIX

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.xdist_group("oracle_matrix")


# --- the covering design, checked on the definitions (no build) ---------------------------------

FACTORS = {
    "content": ("labels", "ratings", "both"),
    "n_audit": (0, 1, 2, 3),
    "n_attributes": (0, 1, 2),
    "n_dims": (1, 2, 3),
    "balanced": (True, False),
    "many": (False, True),
}


def test_the_matrix_crosses_content_with_audit_and_covers_every_pair():
    names = [s.name for s in MATRIX]
    assert len(set(names)) == len(names)
    assert {(s.content, s.n_audit) for s in MATRIX} == set(itertools.product(FACTORS["content"], FACTORS["n_audit"]))
    for a, b in itertools.combinations(FACTORS, 2):
        for va, vb in itertools.product(FACTORS[a], FACTORS[b]):
            if "n_dims" in (a, b) and "labels" in (va, vb):
                continue  # labels only has no dimensions
            rows = [s for s in MATRIX if not ("n_dims" in (a, b) and s.content == "labels")]
            assert any(getattr(s, a) == va and getattr(s, b) == vb for s in rows), (a, va, b, vb)
    assert all((s.n_dims == 0) == (s.content == "labels") for s in MATRIX)


def test_every_study_has_missing_answers_and_stimuli_a_condition_never_answered(built):
    for shape in MATRIX:
        landed = oc.load(built / shape.name)
        p = landed.predictions
        for cond in landed.conditions:
            mine = p[p["condition_id"] == cond]
            assert len(mine) < len(landed.stimuli), (shape.name, cond)
            value_cols = [c for c in [*landed.model_dims, landed.category] if c]
            assert mine[value_cols].isna().any(axis=None), (shape.name, cond)


# --- the builds and the comparisons ---------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    # ORACLE_BUILT: a folder this script built before (iterating on the oracle without rebuilding)
    if os.environ.get("ORACLE_BUILT"):
        return Path(os.environ["ORACLE_BUILT"])
    out = tmp_path_factory.mktemp("oracle_matrix")
    env = dict(os.environ)
    subprocess.run(
        [sys.executable, str(HERE / "build_oracle_studies.py"), str(out)],
        check=True,
        env=env,
        timeout=900,
        stdout=subprocess.DEVNULL,
    )
    return out


@pytest.fixture(scope="module")
def builds(built) -> dict:
    return json.loads((built / "builds.json").read_text(encoding="utf-8"))


def test_every_study_lands_all_its_files(builds):
    for name, result in builds.items():
        assert set(result["ingest"].values()) == {0}, (name, result["ingest"])


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("study", [s.name for s in MATRIX])
def test_the_oracle_agrees_with_the_warehouse(built, request, study, check):
    root = built / study
    landed = landed_once(root)
    oracle_check(root, landed, check, request)
