"""A quiet dbt build: nothing from dbt on the console, the full log in logs/dbt.log, progress and
failures from dbt's structured events (build_events.py)."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rater1001.warehouse import dbt_build

# The stimuli's staging model and the label seed its label check reads, with the tests of those
# alone (cautious indirect selection: a test whose other parents are not selected stays out): a
# quick, self-contained part of the DAG. dbt's cost is per node, so a handful of nodes instead of
# every seed and staging model (125 nodes) shows the same events in a fraction of the time.
SELECT = "factor_labels stg_stimuli"


@pytest.fixture(autouse=True)
def _cautious_selection(monkeypatch):
    monkeypatch.setenv("DBT_INDIRECT_SELECTION", "cautious")


def _break_one_race(paths) -> str:
    """Give one stimulus a race outside the label seed and two others no emotion (ingest would
    refuse both; the landing file is edited directly, as a file written by hand would be)."""
    t = pq.read_table(paths.raw_table("stimuli"))
    races, emotions = t.column("race").to_pylist(), t.column("emotion").to_pylist()
    races[0], emotions[1], emotions[2] = "Martian", None, None
    t = t.set_column(t.schema.get_field_index("race"), "race", pa.array(races))
    pq.write_table(
        t.set_column(t.schema.get_field_index("emotion"), "emotion", pa.array(emotions)), paths.raw_table("stimuli")
    )
    return t.column("image_id")[0].as_py()


def test_a_build_is_quiet_reports_progress_and_names_the_failing_test(small_study, capfd):
    _break_one_race(small_study)
    seen: list[tuple[int, int, str]] = []

    result = dbt_build(small_study, select=SELECT, on_node=lambda d, t, n: seen.append((d, t, n)))

    out, err = capfd.readouterr()
    assert "START" not in out + err and "Running with dbt" not in out + err  # dbt's console lines
    assert not result and result.failed >= 1
    failing = [f for f in result.failures if "model_checks_stg_stimuli" in f.node]
    assert failing, result.failures
    # the model's one check test fails once; dbt counts the failing rows of all its checks (2 NULL
    # emotions + 1 Martian), and the rows it returns name the column and the check and count them
    assert [(f.status, f.message.split(",")[0]) for f in failing] == [("fail", "Got 3 results")], result.summary()
    run = json.loads((small_study.root / "target" / "run_results.json").read_text())["results"]
    sql = next(r["compiled_code"] for r in run if ".model_checks_stg_stimuli" in r["unique_id"])
    # nothing was published; the failed build is kept aside for a look at its failing rows
    assert not small_study.warehouse.exists() and small_study.failed_warehouse.exists()
    con = duckdb.connect(str(small_study.failed_warehouse), read_only=True)
    rows = con.execute(sql).df()
    con.close()
    assert sorted(rows.astype(object).where(rows.notna(), None).values.tolist(), key=repr) == [
        ["audit_1", "accepted_factor_label audit_1", "Martian", 1],
        ["category", "not_null when slot category is declared", None, 2],
    ]
    # progress: one call per node, counting up to the total dbt announced
    assert [d for d, _, _ in seen] == list(range(1, len(seen) + 1))
    assert seen[-1][0] == seen[-1][1] == result.total
    assert result.passed + result.failed + result.warned + result.skipped == result.total
    log = result.log_file.read_text(encoding="utf-8")
    assert "model_checks_stg_stimuli" in log and "FAIL" in log
    # dbt's file log is at info: the failure and where its SQL is, not every statement run
    assert "compiled code at" in log and "Began running node" not in log
    assert "FAILED" in result.summary() and str(result.log_file) in result.summary()


def test_a_clean_build_is_truthy_and_counts_every_node(small_study, capfd):
    seen = []
    result = dbt_build(small_study, select=SELECT, on_node=lambda d, t, n: seen.append(n))
    out, err = capfd.readouterr()
    assert result, result.summary()
    assert result.failed == result.skipped == 0 and result.failures == ()
    assert result.total == len(seen) > 2  # seeds, models, their tests: one call each
    assert {"factor_labels", "stg_stimuli"} <= set(seen)
    assert "START" not in out + err


def test_a_model_warning_goes_to_the_log_and_is_counted_not_printed(tmp_path, capfd):
    import warnings

    from rater1001.build_events import warnings_to_log

    log = tmp_path / "logs" / "dbt.log"
    before = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with warnings_to_log(log) as count:
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=1)
            warnings.warn("degrees of freedom <= 0", RuntimeWarning, stacklevel=1)
    out, err = capfd.readouterr()
    assert count.n == 2 and "Mean of empty slice" not in out + err
    assert "RuntimeWarning: Mean of empty slice" in log.read_text(encoding="utf-8")
    assert warnings.showwarning is before


def test_the_demo_studies_build_without_a_warning(demo_warehouse, small_warehouse):
    """The paper-scale (1x) demo study and the judge demo study (held by the small warehouse) build
    with no Python warning from any model (a plain `dbt build` would print each on the console,
    `rater1001 run` would count them in its summary) and no node that warned: their builds' logs
    say so (the log is where the build puts a model's warning: the test above)."""
    from rater1001.warehouse import dbt_log_file

    for paths in (demo_warehouse, small_warehouse):
        log = dbt_log_file(paths).read_text(encoding="utf-8")
        warned = [line for line in log.splitlines() if "[python warning]" in line]
        assert warned == [], warned[:5]
        done = [line for line in log.splitlines() if "Done. PASS=" in line]
        assert done and all(" WARN=0 ERROR=0 " in line for line in done), done
