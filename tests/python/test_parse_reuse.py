"""dbt's parse state is reused across project folders: a folder without its own target/ starts
from the state the last parse with the same vars kept, and dbt's partial parsing re-reads the
files whose env_var() values differ (the landing's path). The reused parse must give the same
manifest as a full one, with this folder's paths. Parses only (`dbt parse`), no build."""

from __future__ import annotations

import json

from rater1001 import warehouse
from rater1001.paths import project


def _parse(paths) -> None:
    result = warehouse._invoke(paths, ["parse", "--vars", json.dumps(warehouse.dbt_vars(paths))])
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


def test_a_new_folder_reuses_the_kept_parse_and_gets_its_own_paths(tmp_path, monkeypatch):
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    monkeypatch.setenv("DBT_LOG_LEVEL_FILE", "debug")  # dbt names the files it re-parses at debug
    first, second = project(tmp_path / "first"), project(tmp_path / "second")
    for p in (first, second):
        p.raw.mkdir(parents=True)

    _parse(first)
    assert "saved manifest not found" in _parse_message(first)
    assert len(list((tmp_path / "cache").iterdir())) == 1  # the state kept for these vars

    _parse(second)
    assert "Partial parsing enabled" in _parse_message(second)
    # The landing-status macro reads the path only when compiling, so its model is not re-parsed.
    reparsed = [line for line in _log(second).splitlines() if "Partial parsing: updated file" in line]
    assert any("_sources.yml" in line for line in reparsed), reparsed
    assert not any("int_study_provenance" in line for line in reparsed), reparsed
    # The landing's path is an env_var() in the sources: the reused state must not keep the
    # first folder's.
    raw = json.loads((second.root / "target" / "manifest.json").read_text())
    locations = {s["config"]["external_location"] for s in raw["sources"].values()}
    assert len(locations) == 2 and all(f"{second.raw}/" in loc for loc in locations), locations
    assert str(first.root) not in json.dumps(raw)
    # Same manifest as the full parse, up to the folder's own path.
    assert _manifest(second) == _manifest(first)


def test_other_vars_are_kept_apart(tmp_path, monkeypatch):
    """A study of another shape does not start from this one's state (dbt would parse it in full
    anyway; keeping both lets each shape reuse its own)."""
    monkeypatch.setattr(warehouse, "PARSE_CACHE", tmp_path / "cache")
    a = warehouse._parse_cache(["build", "--vars", json.dumps({"dimensions": ["valence"]})])
    b = warehouse._parse_cache(["build", "--vars", json.dumps({"dimensions": ["arousal"]})])
    assert a != b and a.parent == b.parent == tmp_path / "cache"
