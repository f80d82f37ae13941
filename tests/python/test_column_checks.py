"""Per-column checks are declared at the column in the yml and run as one test node per model and
kind, `not_null_columns` and `accepted_values_columns` (docs/sql_style.md, "Data tests"): every
declared column is checked, by its own model's test, and that test returns one row per failing
column (and value) naming it and counting its rows."""

from __future__ import annotations

import json
import re
from functools import cache
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
VALUES_TEST = "accepted_values_columns"
# one node per column each: replaced by the model tests
PER_COLUMN = {"not_null", "not_null_when_declared", "accepted_values", "accepted_factor_label", "accepted_audit_terms"}
VALUE_KEYS = ("accepted_values", "accepted_factor_label", "accepted_audit_terms")


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


def declared_value_checks() -> set[tuple]:
    """(model, column, kind, values or slot or audit-term kind) of every accepted-values declaration."""
    checks = set()
    for _, node in _nodes():
        for column in node.get("columns") or []:
            meta = (column.get("config") or {}).get("meta") or {}
            for kind in VALUE_KEYS:
                if kind in meta:
                    param = meta[kind]
                    checks.add(
                        (
                            node["name"],
                            column["name"],
                            kind,
                            tuple(map(str, param)) if kind == "accepted_values" else param,
                        )
                    )
    return checks


def test_every_declared_column_is_checked_by_its_models_test_and_none_by_a_test_of_its_own():
    unchecked, per_column, unknown_slot = [], [], []
    declares = {model for model, _, _ in declared_checks()}
    declares_values = {model for model, *_ in declared_value_checks()}
    for path, node in _nodes():
        tests = _test_names(node.get("data_tests"))
        if node["name"] in declares and MODEL_TEST not in tests:
            unchecked.append(f"{path.name}: {node['name']}: {MODEL_TEST}")
        if node["name"] in declares_values and VALUES_TEST not in tests:
            unchecked.append(f"{path.name}: {node['name']}: {VALUES_TEST}")
        for column in node.get("columns") or []:
            per_column += [
                f"{node['name']}.{column['name']}: {t}" for t in _test_names(column.get("data_tests")) & PER_COLUMN
            ]
            meta = (column.get("config") or {}).get("meta") or {}
            for key in ("not_null_when_declared", "accepted_factor_label"):
                if key in meta and meta[key] not in ("race", "gender", "emotion"):
                    unknown_slot.append(f"{node['name']}.{column['name']}: {key}: {meta[key]}")
            if meta.get("accepted_audit_terms") not in (None, "factor", "slice_type", "term", "omnibus_term"):
                unknown_slot.append(f"{node['name']}.{column['name']}: {meta['accepted_audit_terms']}")
    assert unchecked == [], "models that declare column checks but lack the model's test"
    assert per_column == [], "declare it at the column instead (docs/sql_style.md, 'Data tests')"
    assert unknown_slot == []
    # every (model, column) the per-column tests checked before: 241 not_null + 31 when declared,
    # 33 accepted_values + 12 accepted_factor_label + 7 accepted_audit_terms
    assert (len(declared_checks()), len(declared_value_checks())) == (272, 52)


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


def test_each_models_values_test_checks_exactly_the_columns_its_yml_declares(small_warehouse):
    manifest = json.loads((small_warehouse.root / "target" / "manifest.json").read_text())
    compiled = set()
    for node in manifest["nodes"].values():
        if node["resource_type"] == "test" and (node.get("test_metadata") or {}).get("name") == VALUES_TEST:
            model = node["attached_node"].split(".")[-1]
            for part in node["compiled_code"].split("union all"):
                column, check = re.search(r"'(\w+)' as column_name,\s*'([^']+)' as check_name", part).groups()
                if check == "accepted_values":
                    values = re.search(r"not in \((.*)\)", part).group(1)
                    compiled.add((model, column, check, tuple(re.findall(r"'([^']*)'", values))))
                else:  # "accepted_factor_label emotion", "accepted_audit_terms term"
                    compiled.add((model, column, *check.split(" ")))
    assert compiled == declared_value_checks()


@pytest.fixture(scope="module")
def stimuli_test_sql(small_warehouse) -> dict[str, str]:
    """The two column-check tests of stg_stimuli as the small study's build compiled them: image_id
    is never null; race, gender and emotion are never null when the study fills their slot (it
    does) and are labels (factor_labels) of the factor in their slot."""
    manifest = json.loads((small_warehouse.root / "target" / "manifest.json").read_text())
    return {
        test: next(
            n["compiled_code"]
            for uid, n in manifest["nodes"].items()
            if uid.startswith(f"test.rater1001.{test}_stg_stimuli")
        )
        for test in (MODEL_TEST, VALUES_TEST)
    }


LABELS = {"race": ["a", "b"], "gender": ["a", "x"], "emotion": ["b", "x"]}


@cache
def _database() -> duckdb.DuckDBPyConnection:
    """One in-memory database holding factor_labels under the relation names the tests compiled to:
    opening a database per example cost ~17 ms, ten times what the example itself runs."""
    con = duckdb.connect()
    con.execute("attach ':memory:' as rater1001")
    labels = pd.DataFrame([(f, label) for f, ls in LABELS.items() for label in ls], columns=["factor", "label"])
    con.register("labels", labels)
    con.execute("create table rater1001.main.factor_labels as select * from labels")
    return con


def _run_on(sql: str, frame: pd.DataFrame) -> list[tuple]:
    """The compiled test on a tiny in-memory stg_stimuli (replaced for each call) and factor_labels."""
    with _database().cursor() as con:
        con.register("frame", frame)
        con.execute("create or replace table rater1001.main.stg_stimuli as select * from frame")
        return sorted(con.execute(sql).fetchall())


value = st.one_of(st.none(), st.sampled_from(["a", "b", "x"]))
rows = st.lists(st.tuples(value, value, value, value, value), max_size=8)


@settings(max_examples=40, deadline=None)
@given(rows)
def test_the_model_tests_return_each_failing_column_with_its_count(stimuli_test_sql, data):
    frame = pd.DataFrame(data, columns=["image_id", "race", "gender", "emotion", "file_path"], dtype="string")
    checks = {
        "image_id": "not_null",
        "race": "not_null when slot race is declared",
        "gender": "not_null when slot gender is declared",
        "emotion": "not_null when slot emotion is declared",
    }  # file_path is declared nothing: its NULLs are allowed
    expected = sorted((c, checks[c], int(frame[c].isna().sum())) for c in checks if frame[c].isna().any())
    assert _run_on(stimuli_test_sql[MODEL_TEST], frame) == expected  # dbt fails a test that returns a row
    # not a label of the slot's factor: one row per (column, value) with its count; NULLs pass
    bad = pd.concat(
        [
            frame.loc[frame[c].notna() & ~frame[c].isin(LABELS[c]), [c]].assign(column=c).rename(columns={c: "value"})
            for c in LABELS
        ]
    )
    expected = sorted(
        (c, f"accepted_factor_label {c}", v, n) for (c, v), n in bad.groupby(["column", "value"]).size().items()
    )
    assert _run_on(stimuli_test_sql[VALUES_TEST], frame) == expected
