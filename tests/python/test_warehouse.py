"""The dbt warehouse against independent recomputation from the raw Parquet: per-image human
statistics against pandas' groupby, the leave-one-out closed forms against brute force, and the
model-vs-human rows against a pandas merge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SMALL_DESIGN, query_warehouse


@pytest.fixture(scope="module")
def built(small_warehouse):
    return small_warehouse


@pytest.fixture(scope="module")
def static_docs(built):
    """The output of `dbt docs generate --static` (it also writes catalog.json), which the shared
    fixture ran after its build (dbt_docs returns this path when the generation succeeded)."""
    out = built.root / "target" / "static_index.html"
    return out if out.exists() else None


def query(paths, sql: str) -> pd.DataFrame:
    return query_warehouse(paths, sql)


def raw(paths, table: str) -> pd.DataFrame:
    return pd.read_parquet(paths.raw_table(table))


def test_image_stats_equal_pandas_groupby(built):
    long = (
        raw(built, "human_ratings")
        .melt(
            id_vars=["rater_id", "image_id"],
            value_vars=["valence", "arousal", "naturalness"],
            var_name="dimension",
            value_name="rating",
        )
        .dropna(subset=["rating"])
    )
    expected = (
        long.groupby(["image_id", "dimension"])["rating"]
        .agg(n="count", mean="mean", sd=lambda s: s.std(ddof=1), total="sum")
        .reset_index()
    )
    got = query(built, "select * from int_image_human_stats")
    merged = expected.merge(got, on=["image_id", "dimension"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all(), "image x dimension sets differ"
    np.testing.assert_array_equal(merged["n"], merged["n_ratings"])
    np.testing.assert_allclose(merged["mean"], merged["human_mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(merged["sd"], merged["human_sd"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(merged["total"], merged["rating_sum"], rtol=0, atol=0)


def test_leave_one_out_closed_forms_equal_brute_force(built):
    ratings = raw(built, "human_ratings")
    loo = query(built, "select * from int_human_loo where dimension = 'valence'")
    rng = np.random.default_rng(3)
    sample = rng.choice(ratings["image_id"].unique(), size=10, replace=False)
    checked = 0
    for image_id in sample:
        image = ratings[ratings["image_id"] == image_id]
        for _, row in image.iterrows():
            others = image.loc[image["rater_id"] != row["rater_id"], "valence"].astype(float)
            got = loo[(loo["image_id"] == image_id) & (loo["rater_id"] == row["rater_id"])].iloc[0]
            assert got["loo_mean"] == pytest.approx(others.mean(), abs=1e-12)
            assert got["loo_sd"] == pytest.approx(others.std(ddof=1), abs=1e-9)
            sd = others.std(ddof=1)
            if sd > 0:
                assert got["loo_z"] == pytest.approx((row["valence"] - others.mean()) / sd, abs=1e-9)
            else:
                assert pd.isna(got["loo_z"])
            checked += 1
    assert checked == 10 * SMALL_DESIGN["ratings_per_image"]


def test_model_vs_human_rows(built):
    preds = raw(built, "model_predictions")
    stim = raw(built, "stimuli")
    ratings = raw(built, "human_ratings")
    human = ratings.groupby("image_id")["valence"].agg(["mean", "std"]).reset_index()
    expected = preds.merge(stim, on="image_id", suffixes=("", "_true")).merge(human, on="image_id")
    got = query(built, "select * from int_model_vs_human")
    # a row for every (condition, stimulus); one with no prediction is a missing answer (NULL run)
    assert len(got) == preds["condition_id"].nunique() * len(stim)
    answered = got.merge(preds[["condition_id", "image_id"]].drop_duplicates(), how="left", indicator=True)
    assert (answered["run_id"].isna() == (answered["_merge"] == "left_only")).all()
    m = expected.merge(got, on=["condition_id", "image_id"])
    np.testing.assert_allclose(m["d_valence"], m["mean"] - m["valence"], atol=1e-12)
    # An image whose humans all agree (SD 0) has no z: NULL, never an infinity.
    sd = m["std"].where(m["std"] > 0)
    np.testing.assert_allclose(m["z_valence"], (m["valence"] - m["mean"]) / sd, atol=1e-12)
    assert m.loc[m["std"] == 0, "z_valence"].isna().all()
    assert (m["correct"] == (m["emotion"] == m["emotion_true"])).all()


def test_simulated_study_is_labelled(built):
    origin = query(built, "select data_origin, is_simulated from int_study_provenance")
    assert origin.to_dict("records") == [{"data_origin": "SIMULATED", "is_simulated": True}]


def test_build_without_model_predictions(small_warehouse_without_predictions):
    """A study whose models have not run yet still builds; the prediction tables are empty."""
    paths = small_warehouse_without_predictions.paths
    assert small_warehouse_without_predictions.build_ok
    assert query(paths, "select count(*) as n from int_model_vs_human")["n"].item() == 0
    assert query(paths, "select count(*) as n from int_image_human_stats")["n"].item() > 0


def test_static_docs_are_one_offline_file(static_docs):
    out = static_docs
    assert out is not None and out.stat().st_size > 100_000
    html = out.read_text(encoding="utf-8")
    assert "int_human_loo" in html


def test_every_model_and_column_is_documented(built, static_docs):
    """Every model and seed has a description, and every column the warehouse holds is described in
    the yml next to its model (the catalog lists what was built; the manifest what is documented)."""
    import json

    assert static_docs is not None
    manifest = json.loads((built.root / "target" / "manifest.json").read_text())
    catalog = json.loads((built.root / "target" / "catalog.json").read_text())
    undocumented = []
    for uid, node in manifest["nodes"].items():
        if node["resource_type"] not in ("model", "seed"):
            continue
        if not node.get("description"):
            undocumented.append(node["name"])
        described = {name.lower() for name, col in node["columns"].items() if col.get("description")}
        built_columns = catalog["nodes"].get(uid, {}).get("columns", {})
        undocumented += [f"{node['name']}.{c}" for c in built_columns if c.lower() not in described]
    assert undocumented == []


def test_a_seed_whose_columns_changed_reloads_into_a_warehouse_built_before(tmp_project):
    # A warehouse left by an older version (or by a project's own seeds/) holds a seed table with
    # other columns; dbt's default truncate-and-insert then fails on the new file ("make demo" on
    # an updated clone did). Seeds are reloaded whole on every build instead. The old table is
    # written with DuckDB, as the older build left it: a build that loads it from a seeds/ of the
    # project's own would cost a full dbt parse (its own seed folder) for the same table, and
    # that a project's own seeds/ is what a build loads is shown by the shape matrix's label sets.
    # The old warehouse names the folder's (empty) landing as its own, so the selected build starts
    # from a copy of it (warehouse._stage) and loads the seed over the old table; of another
    # landing, the build would be a whole one into an empty file, and the old table never met.
    import duckdb
    from rater1001 import warehouse
    from rater1001.freshness import landing_fingerprint

    repo_seed = warehouse.REPO_ROOT / "seeds" / "condition_pools.csv"
    old = pd.read_csv(repo_seed).drop(columns=["excluded_conditions"])
    warehouse.ensure_landing_tables(tmp_project)
    tmp_project.warehouse.parent.mkdir(parents=True)
    # in the storage version the profile asks for: a newer file would be rebuilt whole instead
    con = duckdb.connect(str(tmp_project.warehouse), config={"storage_compatibility_version": "v1.0.0"})
    try:
        con.register("old_seed", old)
        con.execute("create table condition_pools as select * from old_seed")
        con.execute(
            "create table int_study_provenance as select ? as landing_sha256", [landing_fingerprint(tmp_project)]
        )
    finally:
        con.close()
    assert warehouse.storage_version(tmp_project.warehouse) == warehouse.COMPATIBLE_STORAGE_VERSION
    assert "excluded_conditions" not in query_warehouse(tmp_project, "select * from condition_pools").columns
    built = warehouse.dbt_build(tmp_project, select="condition_pools")
    assert built and built.total < 5, built.summary()  # the seed and its tests over the old table, not 252 nodes
    rebuilt = query_warehouse(tmp_project, "select * from condition_pools")
    assert list(rebuilt.columns) == list(pd.read_csv(repo_seed).columns) and len(rebuilt) == len(old)


# Views (staging), SQL tables (intermediate) and a Python model's table (judge_reason_terms), with
# the seeds they read.
REBUILT = "+judge_reason_terms +int_human_ratings_long"


def _relations(paths) -> dict[str, tuple[str, list]]:
    """Each relation of the warehouse: its kind and its rows in a fixed order."""
    kinds = query_warehouse(paths, "select table_name, table_type from information_schema.tables")
    out = {}
    for name, kind in kinds.itertuples(index=False):
        rows = query_warehouse(paths, f'select * from "{name}" order by all')
        out[name] = (kind, rows.astype(object).where(rows.notna(), None).values.tolist())
    return out


def test_a_selected_rebuild_over_a_published_warehouse_keeps_every_relation(small_study, monkeypatch):
    """A selected build starts from a copy of the published warehouse, so dbt-duckdb's table and
    view materializations replace relations that exist: each view, SQL table and Python model's
    table is there again, of the same kind, with the same rows."""
    from rater1001 import warehouse
    from rater1001.runs.judge.simulate import simulate_judge_study

    simulate_judge_study(small_study, seed=4)
    monkeypatch.setenv("DBT_INDIRECT_SELECTION", "cautious")
    assert warehouse.dbt_build(small_study, select=REBUILT)
    first = _relations(small_study)
    assert first["stg_human_ratings"][0] == "VIEW" and first["int_human_ratings_long"][0] == "BASE TABLE"
    assert first["judge_reason_terms"][0] == "BASE TABLE"
    assert first["judge_reason_terms"][1], "the Python model wrote no rows"
    assert warehouse.dbt_build(small_study, select=REBUILT)
    again = _relations(small_study)
    assert again.keys() == first.keys()
    assert {k: v for k, v in again.items() if k != "rater1001_build"} == {
        k: v for k, v in first.items() if k != "rater1001_build"
    }
