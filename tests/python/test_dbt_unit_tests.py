"""dbt's unit tests (`unit_tests:` in the models' yml) run here, once per test run: every other
build of the suite, like `rater1001 build`, leaves them out, since their input rows are fixed
and their result does not depend on the study built. They run on a copy of the small study's
warehouse (dbt needs the relations their inputs stand in for); the shared one is read by other
workers and is not opened for writing."""

from __future__ import annotations

import json
import shutil

from rater1001.warehouse import dbt_unit_tests


def _run_results(paths) -> list[dict]:
    return json.loads((paths.root / "target" / "run_results.json").read_text())["results"]


def test_every_dbt_unit_test_passes(small_warehouse, tmp_project):
    for part in ("data", "warehouse"):
        shutil.copytree(small_warehouse.root / part, tmp_project.root / part)
    shutil.copy(small_warehouse.study_file, tmp_project.root / "study.yml")

    summary = dbt_unit_tests(tmp_project)

    assert summary, summary.summary()
    manifest = json.loads((tmp_project.root / "target" / "manifest.json").read_text())
    declared = set(manifest["unit_tests"])  # every unit test the project declares
    ran = {r["unique_id"]: r["status"] for r in _run_results(tmp_project) if r["unique_id"].startswith("unit_test.")}
    assert len(declared) >= 4 and set(ran) == declared, (sorted(declared), ran)
    assert set(ran.values()) == {"pass"}, ran


def test_builds_leave_the_unit_tests_out(small_warehouse_without_predictions):
    """A study's build runs its models and data tests, not the unit tests (they ran above)."""
    kinds = {r["unique_id"].split(".")[0] for r in _run_results(small_warehouse_without_predictions.paths)}
    assert "unit_test" not in kinds and {"model", "test", "seed"} <= kinds, kinds
