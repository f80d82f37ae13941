"""Ad hoc SQL as a user meets it: `rater1001 sql` (table, CSV, Parquet, read-only, harlequin), the
warehouse opened by the DuckDB command-line from PyPI, the README's example query of every stable
view run as written and its numbers checked against the marts or the raw Parquet, and a plain
`dbt` run on an unchecked landing saying so."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import query_warehouse
from rater1001.cli import main
from rater1001.paths import REPO_ROOT, project
from stats_helpers import read_landed

# Usually the first to ask for the shared small warehouse (its build), and a plain dbt run: one
# xdist unit, handed out early under `make test` (conftest.py).
pytestmark = pytest.mark.xdist_group("sql")
DUCKDB_CLI = Path(sys.executable).with_name("duckdb")  # the duckdb-cli package from PyPI
VIEWS = ("query_predictions", "query_condition_headline", "query_verdict_matrix", "query_judge_orders", "query_worth")


@pytest.fixture(scope="module")
def built(small_warehouse):
    """A small simulated face study plus the judge demo study, checked by the gate and built (the
    shared session warehouse)."""
    return small_warehouse


def run_cli(paths, *args, capsys):
    rc = main(["--home", str(paths.root), *args])
    out, err = capsys.readouterr()
    return rc, out, err


# --- the warehouse file ---------------------------------------------------------------------------


def test_pypi_duckdb_command_line_opens_the_warehouse(built):
    from rater1001.warehouse import COMPATIBLE_STORAGE_VERSION, storage_version

    if not DUCKDB_CLI.exists():
        pytest.skip("the duckdb-cli package is not installed in this environment")
    version = subprocess.run([str(DUCKDB_CLI), "--version"], capture_output=True, text=True).stdout
    assert version.startswith("v1."), version  # an older DuckDB than the Python package's 2.x
    assert storage_version(built.warehouse) == COMPATIBLE_STORAGE_VERSION
    out = subprocess.run(
        [
            str(DUCKDB_CLI),
            "-readonly",
            "-csv",
            str(built.warehouse),
            "-c",
            "select count(*) as n, sum(model_valence) as s from query_predictions",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    expected = query_warehouse(built, "select count(*) as n, sum(model_valence) as s from query_predictions")
    n, s = out.stdout.strip().splitlines()[1].split(",")
    assert int(n) == expected["n"].item() > 0
    assert float(s) == pytest.approx(expected["s"].item(), rel=1e-12)


def test_a_warehouse_in_a_newer_storage_format_is_rebuilt_whole(tmp_path):
    from rater1001.warehouse import _copy_published, storage_version

    paths = project(tmp_path)
    paths.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(paths.warehouse))  # the Python package's own (newest) format
    con.execute("create table t as select 1 as x")
    con.close()
    newest = storage_version(paths.warehouse)
    if newest <= 64:
        pytest.skip("this duckdb writes a storage version every reader opens by default")
    if DUCKDB_CLI.exists():  # the failure the setting avoids
        refused = subprocess.run(
            [str(DUCKDB_CLI), str(paths.warehouse), "-c", "select 1"], capture_output=True, text=True
        )
        assert "version number" in refused.stdout + refused.stderr
    paths.staged_warehouse.parent.mkdir(parents=True)
    assert _copy_published(paths) is False  # a selected build builds everything instead
    assert not paths.staged_warehouse.exists()
    paths.warehouse.unlink()
    con = duckdb.connect(str(paths.warehouse), config={"storage_compatibility_version": "v1.0.0"})
    con.execute("create table t as select 1 as x")
    con.close()
    assert _copy_published(paths) is True and paths.staged_warehouse.exists()


# --- rater1001 sql --------------------------------------------------------------------------------


def test_sql_prints_a_table(built, capsys):
    rc, out, _ = run_cli(
        built, "sql", "select condition_id, accuracy from classification_summary order by condition_id", capsys=capsys
    )
    assert rc == 0
    expected = query_warehouse(built, "select condition_id, accuracy from classification_summary")
    for row in expected.itertuples():
        assert re.search(rf"│ {re.escape(row.condition_id)}\s+│\s+{row.accuracy!r}\s+│", out), row


def test_sql_writes_csv_and_parquet_with_every_row(built, tmp_path, capsys):
    csv, parquet = tmp_path / "p.csv", tmp_path / "p.parquet"
    rc, out, _ = run_cli(
        built,
        "sql",
        "select * from query_predictions order by condition_id, image_id;",
        "--csv",
        str(csv),
        "--parquet",
        str(parquet),
        capsys=capsys,
    )
    assert rc == 0
    expected = query_warehouse(built, "select * from query_predictions order by condition_id, image_id")
    assert f"{len(expected):,} rows -> {csv}" in out and f"{len(expected):,} rows -> {parquet}" in out
    from_parquet = pd.read_parquet(parquet)
    pd.testing.assert_frame_equal(from_parquet, expected, check_dtype=False)
    from_csv = pd.read_csv(csv)
    assert list(from_csv.columns) == list(expected.columns) and len(from_csv) == len(expected)
    np.testing.assert_allclose(from_csv["human_mean_valence"], expected["human_mean_valence"], rtol=1e-12)


def test_sql_is_read_only_and_errors_are_clear(built, tmp_path, capsys):
    rc, _, err = run_cli(built, "sql", "drop table classification_summary", capsys=capsys)
    assert rc == 2 and "read-only" in err
    assert len(query_warehouse(built, "select * from classification_summary")) > 0
    rc, _, err = run_cli(built, "sql", "selec 1", capsys=capsys)
    assert rc == 2 and 'syntax error at or near "selec"' in err
    rc, _, err = run_cli(built, "sql", "--csv", str(tmp_path / "x.csv"), capsys=capsys)
    assert rc == 2 and "need a query" in err
    rc, _, err = run_cli(project(tmp_path / "empty"), "sql", "select 1", capsys=capsys)
    assert rc == 2 and "does not exist" in err


def test_interactive_session_is_harlequin_read_only(built):
    """The command `rater1001 sql` runs, parsed by harlequin's own command line, gives a DuckDB
    connection that reads the warehouse and refuses writes; --write drops the read-only flag."""
    from harlequin.cli import build_cli
    from harlequin.exception import HarlequinQueryError
    from harlequin_duckdb import DuckDbAdapter
    from rater1001.adhoc import harlequin_command

    expected = query_warehouse(built, "select count(*) as n from query_predictions")["n"].item()
    argv = harlequin_command(built)
    assert Path(argv[0]).name == "harlequin" and Path(argv[0]).exists()
    params = build_cli(argv).make_context("harlequin", argv[1:]).params
    assert params["adapter"] == "duckdb" and params["read_only"] is True
    conn = DuckDbAdapter(conn_str=params["conn_str"], read_only=params["read_only"], no_init=True).connect()
    try:
        n = conn.execute("select count(*) from query_predictions").fetchall().column(0)[0].as_py()
        assert n == expected
        with pytest.raises(HarlequinQueryError, match="read-only"):
            conn.execute("create table scratch as select 1")
    finally:
        conn.close()
    writable = harlequin_command(built, write=True)
    assert build_cli(writable).make_context("harlequin", writable[1:]).params["read_only"] is False


# --- the stable views: README examples, run as written, and their numbers -------------------------


def readme_sql_examples() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith('rater1001 sql "') and "query_" in line]


def test_every_view_has_a_readme_example_that_runs(built, capsys):
    examples = readme_sql_examples()
    for view in VIEWS:
        assert any(f"from {view}" in e for e in examples), f"no README example for {view}"
    for example in examples:
        args = shlex.split(example)[1:]
        args = [a for a in args if not a.startswith("--")][:2]  # the README's --csv example: print instead
        rc, out, err = run_cli(built, *args, capsys=capsys)
        assert rc == 0, (example, err)
        assert "0 rows" not in out and out.count("│") > 10, example


def test_views_are_views_documented_in_dbt(built):
    kinds = query_warehouse(built, "select table_name, table_type from information_schema.tables")
    kinds = dict(zip(kinds["table_name"], kinds["table_type"]))
    assert all(kinds.get(v) == "VIEW" for v in VIEWS), {v: kinds.get(v) for v in VIEWS}


def test_query_predictions_against_the_raw_parquet(built):
    view = query_warehouse(built, "select * from query_predictions")
    preds = read_landed(built, "model_predictions")
    ratings = read_landed(built, "human_ratings")
    assert len(view) == len(preds)
    human = ratings.groupby("image_id")["valence"].agg(["mean", "std", "count"])
    merged = view.join(human, on="image_id")
    np.testing.assert_allclose(merged["human_mean_valence"], merged["mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(merged["human_sd_valence"], merged["std"], rtol=0, atol=1e-12)
    assert (merged["human_n_valence"] == merged["count"]).all()
    stimuli = read_landed(built, "stimuli").set_index("image_id")
    # the view names the slot as the study does: true_emotion in the demo
    assert (view["true_emotion"].to_numpy() == stimuli.loc[view["image_id"], "category"].to_numpy()).all()
    assert (view["data_origin"] == "SIMULATED").all()


def test_query_condition_headline_equals_the_summary(built):
    """The same numbers `rater1001 summary` assembles in pandas from the four marts."""
    from rater1001.summary import _read, headline_frame

    frame = headline_frame(_read(built)).set_index("condition_id")
    view = query_warehouse(built, "select * from query_condition_headline")
    assert set(view["condition_id"]) == set(frame.index) - {"human"}

    def same(a, b) -> bool:  # NULL on both sides counts as the same
        return (pd.isna(a) and pd.isna(b)) or (not pd.isna(a) and not pd.isna(b) and abs(a - b) <= 1e-12)

    for r in view.itertuples():
        got = frame.loc[r.condition_id]
        for col, summary_col in (
            ("accuracy", "accuracy"),
            ("delta_alpha", f"delta_alpha_{r.dimension}"),
            ("w1sd", f"w1sd_{r.dimension}"),
            ("human_loo_w1sd", f"human_loo_w1sd_{r.dimension}"),
        ):
            assert same(getattr(r, col), got[summary_col]), (
                r.condition_id,
                r.dimension,
                col,
                getattr(r, col),
                got[summary_col],
            )


def test_query_verdict_matrix_counts_equal_the_verdicts(built):
    from rater1001.summary import _read, headline_frame

    cells = headline_frame(_read(built)).set_index("condition_id")["cells_passed"].dropna()
    view = query_warehouse(
        built, "select condition_id, sum(condition_passes::int) as n from query_verdict_matrix group by condition_id"
    )
    passes = dict(zip(view["condition_id"], view["n"]))
    assert set(passes) <= set(cells.index)
    # A condition without verdict inputs (e.g. a FER classifier with no ratings) passes no cell.
    assert {c: int(passes.get(c, 0)) for c in cells.index} == {c: int(n) for c, n in cells.items()}
    n_cells = query_warehouse(built, "select count(*) as n from replaceability_verdicts")["n"].item()
    per_cell = query_warehouse(built, "select count(distinct (emotion, measure)) as n from query_verdict_matrix")
    assert per_cell["n"].item() == n_cells


def test_query_judge_orders_pairs_the_two_orders_of_the_raw_verdicts(built):
    view = query_warehouse(built, "select * from query_judge_orders")
    raw = pd.read_parquet(built.raw_table("judge_verdicts"))  # one row per call, one column per axis
    keys = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b", "axis"]
    axes = [c.removeprefix("verdict_") for c in raw.columns if c.startswith("verdict_")]
    long = raw.melt(
        id_vars=[k for k in keys if k != "axis"] + ["order"],
        value_vars=[f"verdict_{a}" for a in axes],
        var_name="axis",
        value_name="position_verdict",
    )
    long["axis"] = long["axis"].str.removeprefix("verdict_")
    wide = long.pivot_table(index=keys, columns="order", values="position_verdict", aggfunc="first")
    merged = view.join(wide, on=keys)
    for order in ("AB", "BA"):
        shown = merged[f"position_verdict_{order.lower()}"]
        assert ((shown == merged[order]) | (shown.isna() & merged[order].isna())).all(), order
    # A consistent pair means the two orders named the same winner.
    both = view.dropna(subset=["winner_ab", "winner_ba"])
    assert len(both) > 0 and (both["is_consistent"] == (both["winner_ab"] == both["winner_ba"])).all()


# --- which landing the warehouse was built from ---------------------------------------------------


def test_the_warehouse_records_the_landing_it_read_and_the_gate_status(built):
    prov = query_warehouse(built, "select landing_sha256, gate_status from int_study_provenance")
    manifest_sha = hashlib.sha256(built.manifest.read_bytes()).hexdigest()
    assert prov["landing_sha256"].item() == manifest_sha  # the SQL fingerprint is the file's SHA-256
    assert prov["gate_status"].item() == "passed"
    from rater1001.freshness import gate_status

    assert gate_status(built) == "passed"  # the Python twin the CLI uses before dbt starts


def _copy(built, tmp_path):
    paths = project(tmp_path / "copy")
    shutil.copytree(built.root, paths.root, ignore=shutil.ignore_patterns("target", "logs"))
    return paths


def test_summary_warns_and_fails_when_new_data_landed(built, tmp_path, capsys):
    from rater1001.landing import ManifestEntry, read_manifest, record_landing

    paths = _copy(built, tmp_path)
    rc, out, err = run_cli(paths, "summary", capsys=capsys)
    assert rc == 0 and err == ""
    sha = hashlib.sha256(paths.manifest.read_bytes()).hexdigest()
    assert f"built from landing {sha[:12]} (quality gate at build time: passed)" in out
    row = read_manifest(paths).query("table_name == 'human_ratings'").iloc[0]
    record_landing(paths, ManifestEntry("human_ratings", "new_ratings.csv", "0" * 64, int(row.rows_landed), 0, False))
    rc, out, err = run_cli(paths, "summary", capsys=capsys)
    assert rc == 1 and "condition" in out  # the old numbers are shown, with the warning
    assert "the warehouse is STALE" in err and "run `rater1001 run`" in err
    rc, _, err = run_cli(paths, "sql", "select 1", capsys=capsys)
    assert rc == 0 and "STALE" in err


def test_plain_dbt_on_an_unchecked_landing_says_so_at_start_and_end(built, tmp_path):
    """dbt as a user runs it (its own executable, from the repository root) on a project folder
    whose landing changed after the gate ran: the warning comes before the first model and after
    the last, and int_study_provenance records 'checked another landing'. The iterative fits
    (judge verbosity logit and Bradley-Terry, the LMM) record convergence instead of printing an
    optimiser warning: nothing reaches the terminal but dbt's own lines."""
    from rater1001.landing import ManifestEntry, read_manifest, record_landing

    paths = _copy(built, tmp_path)
    row = read_manifest(paths).query("table_name == 'stimuli'").iloc[0]
    record_landing(paths, ManifestEntry("stimuli", "again.csv", row.source_sha256, int(row.rows_landed), 0, True))
    env = {
        **os.environ,
        "RATER1001_RAW": str(paths.raw),
        "RATER1001_WAREHOUSE": str(paths.warehouse),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    out = subprocess.run(
        [
            str(Path(sys.executable).with_name("dbt")),
            "run",
            "--select",
            "int_study_provenance",
            "judge_bias_checks",
            "judge_bradley_terry",
            "lmm_rater_type",
            "--profiles-dir",
            str(REPO_ROOT),
            "--target-path",
            str(paths.root / "target"),
            "--log-path",
            str(paths.root / "logs"),
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    lines = out.stdout.splitlines()
    warned = [i for i, l in enumerate(lines) if "!!!!! rater1001: the landing in" in l]
    model = next(i for i, l in enumerate(lines) if "int_study_provenance" in l)
    assert len(warned) == 2 and warned[0] < model < warned[1], out.stdout[-3000:]
    assert "has NOT been checked" in lines[warned[0]]
    assert not re.search(r"Warning|warn\(", out.stdout + out.stderr), (out.stdout + out.stderr)[-3000:]
    prov = query_warehouse(paths, "select landing_sha256, gate_status from int_study_provenance")
    assert prov["gate_status"].item() == "checked another landing"
    from rater1001.freshness import gate_status

    assert gate_status(paths) == "checked another landing"
    assert prov["landing_sha256"].item() == hashlib.sha256(paths.manifest.read_bytes()).hexdigest()


def test_summary_names_its_human_row_and_dashes_a_dimension_never_answered(built, capsys):
    """The 'human' row of classification_summary is the raters' majority vote, and the summary says
    so; a condition with no value on a dimension (a FER classifier's valence) shows '-' for its
    W1SD there, not the missing-answer policy's 0, in the summary and in query_condition_headline."""
    rc, out, _ = run_cli(built, "summary", capsys=capsys)
    assert rc == 0
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()}
    assert "human" not in rows and "human majority vote" in rows
    assert "human majority vote: the raters' plurality label" in out
    zs = query_warehouse(
        built,
        "select condition_id, dimension from zscore_summary where category = 'all' and condition_id <> 'human_loo' "
        "and n_images + n_zero_sd_images = 0",
    )
    assert len(zs), "the small study has a condition that gives no valence (a FER classifier)"
    view = query_warehouse(built, "select condition_id, dimension, w1sd from query_condition_headline")
    never = view.merge(zs, on=["condition_id", "dimension"])
    assert len(never) == len(zs) and never["w1sd"].isna().all()
    for cond in set(zs["condition_id"]):
        assert "0.000 (" not in rows[cond], rows[cond]
