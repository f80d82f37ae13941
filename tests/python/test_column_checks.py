"""Per-column not-null checks are declared at the column in the yml and run as one `not_null_columns`
test node per model (docs/sql_style.md, "Data tests"): every declared column is checked, by its own
model's test, and that test returns one row per failing column naming it and counting its NULLs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
YML = sorted((ROOT / "models").rglob("_*.yml")) + sorted((ROOT / "seeds").glob("_*.yml"))
MODEL_TEST = "not_null_columns"
PER_COLUMN = {"not_null", "not_null_when_declared"}  # one node per column: replaced by MODEL_TEST


def _test_names(tests) -> set[str]:
    return {t if isinstance(t, str) else next(iter(t)) for t in tests or []}


def _nodes():
    """(yml file, model or seed entry) for every model and seed documented in the yml."""
    for path in YML:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for entry in (doc.get("models") or []) + (doc.get("seeds") or []):
            yield path, entry


def declared_checks(slots=("race", "gender", "emotion")) -> set[tuple[str, str, str]]:
    """(model, column, check) of every not-null declaration, for a study that fills `slots`."""
    checks = set()
    for _, node in _nodes():
        for column in node.get("columns") or []:
            if any(c.get("type") == "not_null" for c in column.get("constraints") or []):
                checks.add((node["name"], column["name"], "not_null"))
            slot = ((column.get("config") or {}).get("meta") or {}).get("not_null_when_declared")
            if slot in slots:
                checks.add((node["name"], column["name"], f"not_null when slot {slot} is declared"))
    return checks


def test_every_declared_column_is_checked_by_its_models_test_and_none_by_a_test_of_its_own():
    unchecked, per_column, unknown_slot = [], [], []
    declares = {model for model, _, _ in declared_checks()}
    for path, node in _nodes():
        if node["name"] in declares and MODEL_TEST not in _test_names(node.get("data_tests")):
            unchecked.append(f"{path.name}: {node['name']}")
        for column in node.get("columns") or []:
            per_column += [
                f"{node['name']}.{column['name']}: {t}" for t in _test_names(column.get("data_tests")) & PER_COLUMN
            ]
            slot = ((column.get("config") or {}).get("meta") or {}).get("not_null_when_declared")
            if slot is not None and slot not in ("race", "gender", "emotion"):
                unknown_slot.append(f"{node['name']}.{column['name']}: {slot}")
    assert unchecked == [], "models that declare not-null columns but lack the not_null_columns test"
    assert per_column == [], "declare it at the column instead (docs/sql_style.md, 'Data tests')"
    assert unknown_slot == []
    assert len(declared_checks()) == 272  # every (model, column) the per-column tests checked before


def test_each_models_test_checks_exactly_the_columns_its_yml_declares(small_warehouse):
    """What the tests of a real build compiled (the graph read at execution) equals the yml's
    declarations: no column dropped, none of another model's picked up."""
    manifest = json.loads((small_warehouse.root / "target" / "manifest.json").read_text())
    compiled = set()
    for node in manifest["nodes"].values():
        if node["resource_type"] == "test" and (node.get("test_metadata") or {}).get("name") == MODEL_TEST:
            model = node["attached_node"].split(".")[-1]
            pairs = re.findall(r"select '(\w+)' as column_name, '([^']+)' as check_name", node["compiled_code"])
            compiled |= {(model, column, check) for column, check in pairs}
    assert compiled == declared_checks()  # the small study fills all three slots


def _compiled_stg_stimuli_test(manifest: dict) -> str:
    return next(
        n["compiled_code"]
        for uid, n in manifest["nodes"].items()
        if uid.startswith(f"test.rater1001.{MODEL_TEST}_stg_stimuli")
    )


@pytest.fixture(scope="module")
def stimuli_test_sql(small_warehouse) -> str:
    """The not_null_columns test of stg_stimuli as the small study's build compiled it: image_id is
    never null, race, gender and emotion never null when the study fills their slot (it does)."""
    return _compiled_stg_stimuli_test(json.loads((small_warehouse.root / "target" / "manifest.json").read_text()))


def _run_on(sql: str, frame: pd.DataFrame) -> list[tuple]:
    """The compiled test on a tiny in-memory stg_stimuli (the relation name the test compiled to)."""
    con = duckdb.connect()
    con.execute("attach ':memory:' as rater1001")
    con.register("frame", frame)
    con.execute("create table rater1001.main.stg_stimuli as select * from frame")
    return sorted(con.execute(sql).fetchall())


value = st.one_of(st.none(), st.sampled_from(["a", "b"]))
rows = st.lists(st.tuples(value, value, value, value, value), max_size=8)


@settings(max_examples=40, deadline=None)
@given(rows)
def test_the_model_test_returns_each_null_column_with_its_count(stimuli_test_sql, data):
    frame = pd.DataFrame(data, columns=["image_id", "race", "gender", "emotion", "file_path"], dtype="string")
    checks = {
        "image_id": "not_null",
        "race": "not_null when slot race is declared",
        "gender": "not_null when slot gender is declared",
        "emotion": "not_null when slot emotion is declared",
    }  # file_path is declared nothing: its NULLs are allowed
    expected = sorted((c, checks[c], int(frame[c].isna().sum())) for c in checks if frame[c].isna().any())
    assert _run_on(stimuli_test_sql, frame) == expected  # dbt fails the test when it returns any row
