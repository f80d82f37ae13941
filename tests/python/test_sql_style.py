"""The SQL conventions of docs/sql_style.md that a linter cannot see: the 'all' scope macro against
brute force, one yml per model folder, and a staging model for every source table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from stats_sql import macros, run

MODELS = Path(__file__).resolve().parents[2] / "models"

rows = st.lists(st.tuples(st.sampled_from(["anger", "joy", None]), st.integers(-3, 3)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_with_all_scope_is_each_row_under_its_scope_and_under_all(pairs):
    frame = pd.DataFrame(pairs, columns=["category", "value"]).astype({"category": "string", "value": "int64"})
    got = run(macros("all_scope", has_category=lambda: True).with_all_scope("frame"), frame=frame)
    assert list(got.columns) == ["category", "value"]
    expected = sorted(pairs + [("all", v) for _, v in pairs], key=repr)
    assert sorted(zip(got["category"].astype(object).where(got["category"].notna(), None), got["value"]), key=repr) == (
        expected
    )


def test_with_all_scope_takes_a_study_without_a_category_once():
    """Its every row is in the stratum 'all' already (stg_stimuli): no second copy under 'all'."""
    frame = pd.DataFrame({"category": ["all", "all"], "value": [1, 2]})
    got = run(macros("all_scope", has_category=lambda: False).with_all_scope("frame"), frame=frame)
    assert sorted(got.itertuples(index=False, name=None)) == [("all", 1), ("all", 2)]
    # a scope that is not the category is pooled all the same
    frame = pd.DataFrame({"tercile": ["low", "high"], "x": [1.5, 2.5]})
    got = run(macros("all_scope", has_category=lambda: False).with_all_scope("frame", scope="tercile"), frame=frame)
    assert sorted(got.itertuples(index=False, name=None)) == [("all", 1.5), ("all", 2.5), ("high", 2.5), ("low", 1.5)]


def test_with_all_scope_takes_another_scope_column():
    frame = pd.DataFrame({"tercile": ["low", "high"], "x": [1.5, 2.5]})
    got = run(macros("all_scope", has_category=lambda: True).with_all_scope("frame", scope="tercile"), frame=frame)
    assert sorted(got.itertuples(index=False, name=None)) == [("all", 1.5), ("all", 2.5), ("high", 2.5), ("low", 1.5)]


def test_every_model_has_its_own_yml_beside_it():
    """models/<folder>/<model>.yml documents <model> (and holds its unit tests) and nothing else;
    the only other yml is staging's _sources.yml."""
    code = {p.with_suffix("") for p in [*MODELS.rglob("*.sql"), *MODELS.rglob("*.py")]}
    ymls = {p.with_suffix("") for p in MODELS.rglob("*.yml")} - {MODELS / "staging" / "_sources"}
    assert ymls == code, (
        f"without a yml: {sorted(map(str, code - ymls))}; without a model: {sorted(map(str, ymls - code))}"
    )
    for stem in sorted(ymls):
        doc = yaml.safe_load(stem.with_suffix(".yml").read_text(encoding="utf-8"))
        assert [m["name"] for m in doc["models"]] == [stem.name], stem
        assert {u["model"] for u in doc.get("unit_tests") or []} <= {stem.name}, stem


def test_every_source_table_has_its_staging_model_and_each_reads_one_source():
    """stg_<table> for a landing table, stg_judge_<table> for the judge study's (judge_verdicts ->
    stg_judge_verdicts); a staging model reads one source at most (study factors read none)."""
    sources = yaml.safe_load((MODELS / "staging" / "_sources.yml").read_text(encoding="utf-8"))["sources"]
    staged = {p.stem: p.read_text(encoding="utf-8") for p in (MODELS / "staging").glob("stg_*.sql")}
    for source in sources:
        prefix = "judge_" if source["name"] == "judge_landing" else ""
        for table in source["tables"]:
            name = f"stg_{prefix}{table['name'].removeprefix(prefix)}"
            assert name in staged, f"source {source['name']}.{table['name']} has no {name}"
            assert f"source('{source['name']}', '{table['name']}')" in staged[name]
    for name, sql in staged.items():
        assert sql.count("source(") <= 1, name
