"""dbt's parse state is reused across project folders: a folder without its own target/ starts
from the state the last parse of the same seed folder kept. Nothing parsed depends on the folder
or its study (the landing's path and the study's settings are read only when a node is compiled),
so dbt re-parses nothing; the reused parse gives the same manifest as a full one, and the
compiled SQL reads the folder's own landing and follows its own study.yml. Parses, compiles and
one small build."""

from __future__ import annotations

import json
import os
import shutil

from conftest import query_warehouse
from fakes.shapes import LABELS_CSV, Shape, write_shape
from rater1001 import warehouse
from rater1001.contract import LOAD_ORDER
from rater1001.ingest import ingest_file
from rater1001.paths import REPO_ROOT, SEED_SETS, project


def _parse(paths) -> None:
    result = warehouse._invoke(paths, ["parse"])
    assert result.success, result.exception


def _manifest(paths) -> dict:
    """The parsed nodes and sources with the folder's own path written as <folder>."""
    text = (paths.root / "target" / "manifest.json").read_text().replace(str(paths.root), "<folder>")
    data = json.loads(text)
    strip = lambda nodes: {k: {f: v for f, v in n.items() if f != "created_at"} for k, n in nodes.items()}  # noqa: E731
    return {"nodes": strip(data["nodes"]), "sources": strip(data["sources"]), "parent_map": data["parent_map"]}


def _log(paths) -> str:
    return (paths.root / "logs" / "dbt.log").read_text()


def _parse_message(paths) -> str:
    return next(line for line in _log(paths).splitlines() if "partial pars" in line.lower())


def test_a_new_folder_of_any_study_reuses_the_kept_parse_and_gets_its_own_paths_and_settings(tmp_path, monkeypatch):
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    monkeypatch.setenv("DBT_LOG_LEVEL_FILE", "debug")  # dbt names the files it re-parses at debug
    first, second = project(tmp_path / "first"), project(tmp_path / "second")
    # Both carry their own label set, as a study of another shape does: its seed folder (dbt's
    # seed path, part of the parse state) is shared by the folders with the same files.
    for p in (first, second):
        p.raw.mkdir(parents=True)
        (p.root / "seeds").mkdir()
        (p.root / "seeds" / "factor_labels.csv").write_text(LABELS_CSV)
    assert first.seeds == second.seeds and first.seeds.parent == SEED_SETS

    _parse(first)
    assert "saved manifest not found" in _parse_message(first)
    assert len(list((tmp_path / "cache").iterdir())) == 1  # the state kept for these vars

    _parse(second)
    # The landing's path is read only when a node is compiled (the `source` override and the
    # landing-status macro), so nothing in the kept state depends on the folder: no file is
    # parsed again.
    assert "no changes found" in _log(second), _parse_message(second)
    raw = json.loads((second.root / "target" / "manifest.json").read_text())
    assert str(first.root) not in json.dumps(raw)
    # Same manifest as the full parse, up to the folder's own path.
    assert _manifest(second) == _manifest(first)
    # ...and the compiled SQL reads this folder's own landing, by its absolute path.
    result = warehouse._invoke(
        second,
        ["compile", "--select", "stg_stimuli stg_landing_manifest"],
    )
    assert result.success, result.exception
    compiled = second.root / "target" / "compiled" / "rater1001" / "models" / "staging"
    assert f"read_parquet('{second.raw}/stimuli.parquet')" in (compiled / "stg_stimuli.sql").read_text()
    assert f"read_parquet('{second.raw}/_manifest.parquet')" in (compiled / "stg_landing_manifest.sql").read_text()

    # A study of other settings than the kept state's (the repository's study.yml: three
    # dimensions, race and gender, rater gender, 1-9) starts from it too: its settings are read
    # only when a node is compiled (macros/study_setting.sql), so dbt re-parses nothing, and its
    # tables, its compiled tests and its Python model's config follow its own study.yml.
    third = _ingested(
        tmp_path / "third",
        Shape("third", True, ("valence", "arousal", "fluency"), False, (2, 3), seed=2, audit=False),
        scale_max=7,
    )
    assert third.seeds == first.seeds
    monkeypatch.setenv("DBT_INDIRECT_SELECTION", "cautious")  # only the tests of selected nodes alone
    built = warehouse.dbt_build(third, select="+int_human_ratings_long stg_raters")
    assert built, built.summary()
    assert "no changes found" in _log(third), _parse_message(third)
    long = _query(third, "select distinct dimension from int_human_ratings_long")
    assert set(long) == {"valence", "arousal", "fluency"}
    assert "gender" not in _query(third, "select column_name from (describe stg_raters)")  # no rater attributes
    compiled = third.root / "target" / "compiled" / "rater1001" / "models"
    scale_tests = "\n".join(f.read_text() for f in compiled.rglob("dimensions_within_scale*.sql"))
    assert "fluency > 7" in scale_tests and "> 9" not in scale_tests and "> 5" not in scale_tests
    # The scale of calibration_scores (a Python model: its config is written into its code).
    assert warehouse._invoke(third, ["compile", "--select", "calibration_scores"]).success
    code = (compiled / "marts" / "calibration" / "calibration_scores.py").read_text()
    assert "'scale_min': 1" in code and "'scale_max': 7" in code, code[-1500:]


def _ingested(root, shape: Shape, scale_max: int = 5):
    files = write_shape(root, shape)
    study = root / "study.yml"
    study.write_text(study.read_text().replace("max: 5", f"max: {scale_max}"))
    paths = project(root)
    for table in LOAD_ORDER:
        if table in files:
            assert ingest_file(paths, table, files[table]).rows_rejected == 0
    return paths


def _query(paths, sql: str) -> list:
    return list(query_warehouse(paths, sql).iloc[:, 0])


def test_other_vars_are_kept_apart(tmp_path, monkeypatch):
    """A caller's own --vars (a plain dbt command's) do not start from another's state (dbt would
    parse it in full anyway; keeping both lets each reuse its own)."""
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    a = warehouse._parse_cache(["build", "--vars", json.dumps({"dimensions": ["valence"]})])
    b = warehouse._parse_cache(["build", "--vars", json.dumps({"dimensions": ["arousal"]})])
    assert a != b and a.parent == b.parent == tmp_path / "cache"


def _duckdb_config(monkeypatch, threads: str | None) -> dict:
    """The profile's config_options as dbt renders them, with RATER1001_DUCKDB_THREADS set or not."""
    import yaml
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    if threads is None:
        monkeypatch.delenv("RATER1001_DUCKDB_THREADS", raising=False)
    else:
        monkeypatch.setenv("RATER1001_DUCKDB_THREADS", threads)
    set_invocation_context(os.environ)
    raw = yaml.safe_load((REPO_ROOT / "profiles.yml").read_text())
    return ProfileRenderer({}).render_data(raw)["rater1001"]["outputs"]["dev"]["config_options"]


def test_duckdb_threads_come_from_the_environment_or_duckdbs_default(monkeypatch):
    import duckdb

    default = duckdb.connect().execute("select current_setting('threads')").fetchone()[0]
    for threads, expected in [(None, default), ("1", 1), (str(default + 2), default + 2)]:
        config = _duckdb_config(monkeypatch, threads)
        assert config["storage_compatibility_version"] == "v1.0.0" and config["memory_limit"] == "4GB"
        assert ("threads" in config) == (threads is not None), config
        con = duckdb.connect(config=config)
        assert con.execute("select current_setting('threads')").fetchone()[0] == expected


def test_other_duckdb_settings_are_kept_apart(tmp_path, monkeypatch):
    """dbt hashes the profile's DuckDB settings into its parse state: a kept state of one thread
    count would only cost the other a full parse, so each keeps its own."""
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    args = ["build", "--vars", json.dumps({"dimensions": ["valence"]})]
    keys = set()
    for name, value in [(None, None), ("RATER1001_DUCKDB_THREADS", "1"), ("RATER1001_DUCKDB_MEMORY_LIMIT", "2GB")]:
        for var in warehouse.PROFILE_ENV:
            monkeypatch.delenv(var, raising=False)
        if name:
            monkeypatch.setenv(name, value)
        keys.add(warehouse._parse_cache(args))
    assert len(keys) == 3


def test_a_seed_folder_holds_the_repositorys_seeds_with_the_folders_own_laid_over(tmp_path):
    a, b = project(tmp_path / "a"), project(tmp_path / "b")
    for p, text in ((a, "x\n1\n"), (b, "x\n2\n")):
        (p.root / "seeds").mkdir(parents=True)
        (p.root / "seeds" / "condition_pools.csv").write_text(text)
    assert a.seeds != b.seeds  # other files, another folder
    repo = {f.name for f in (REPO_ROOT / "seeds").iterdir() if f.is_file()}
    assert {f.name for f in a.seeds.iterdir()} == repo
    assert (a.seeds / "condition_pools.csv").read_text() == "x\n1\n"
    assert (a.seeds / "factor_labels.csv").read_bytes() == (REPO_ROOT / "seeds" / "factor_labels.csv").read_bytes()
    assert project(tmp_path / "none").seeds == REPO_ROOT / "seeds"


def test_a_build_and_its_docs_given_the_runs_manifest_parse_nothing(tmp_path, monkeypatch):
    """`rater1001 run` parses once (dbt_parse, beside the gate) and hands the manifest to the build
    and the docs: with no parse state anywhere, a build that parsed would say it parsed in full."""
    paths = _ingested(
        tmp_path / "study", Shape("run", True, ("valence", "arousal"), False, (2, 3), seed=3, audit=False)
    )
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    monkeypatch.setenv("DBT_INDIRECT_SELECTION", "cautious")
    manifest = warehouse.dbt_parse(paths)
    assert manifest is not None and "model.rater1001.int_human_ratings_long" in manifest.nodes
    (paths.root / "target" / warehouse.PARSE_STATE).unlink()
    shutil.rmtree(tmp_path / "cache")
    parsed = _log(paths).count("partial parsing")
    built = warehouse.dbt_build(paths, select="+int_human_ratings_long", manifest=manifest)
    assert built, built.summary()
    assert warehouse.dbt_docs(paths, manifest=manifest) is not None
    assert _log(paths).count("partial parsing") == parsed
    assert set(_query(paths, "select distinct dimension from int_human_ratings_long")) == {"valence", "arousal"}
    # without it, the same build parses (in full, here): what the count above would have seen
    rebuilt = warehouse.dbt_build(paths, select="int_human_ratings_long")
    assert rebuilt and _log(paths).count("partial parsing") == parsed + 1
