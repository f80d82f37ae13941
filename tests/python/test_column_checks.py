"""A model's checks are declared in its yml, at the column (not-null, accepted values) and at the
model (its grain), and run as one test node per model, `model_checks` (docs/sql_style.md, "Data
tests"): every declaration is checked, by its own model's test, and that test returns one row per
failing (column, check, value) naming it and counting its rows."""

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
YML = sorted((ROOT / "models").rglob("*.yml")) + sorted((ROOT / "seeds").glob("_*.yml"))
MODEL_TEST = "model_checks"
# one node per column each, or per model and kind: replaced by the model's one test
PER_COLUMN = {
    "not_null",
    "not_null_when_declared",
    "accepted_values",
    "accepted_factor_label",
    "accepted_audit_terms",
    "unique",
}
PER_KIND = {"not_null_columns", "accepted_values_columns", "unique_combination_of_columns"}
VALUE_KEYS = ("accepted_values", "accepted_factor_label", "accepted_audit_terms")


def _test_names(tests) -> set[str]:
    return {t if isinstance(t, str) else next(iter(t)) for t in tests or []}


@cache  # parsing every yml costs ~0.5 s of CPU, and the tests below read them ten times
def _documents() -> tuple[tuple[Path, dict], ...]:
    return tuple((path, yaml.safe_load(path.read_text(encoding="utf-8")) or {}) for path in YML)


def _nodes():
    """(yml file, model or seed entry) for every model and seed documented in the yml."""
    for path, doc in _documents():
        for entry in (doc.get("models") or []) + (doc.get("seeds") or []):
            yield path, entry


def declared_checks(slots=("audit_1", "audit_2", "category")) -> set[tuple[str, str, str]]:
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


def declared_grains() -> set[tuple]:
    """(model, grain columns, "grain") of every model that declares its grain."""
    return {
        (node["name"], tuple(grain), "grain")
        for _, node in _nodes()
        for grain in [((node.get("config") or {}).get("meta") or {}).get("grain")]
        if grain
    }


def test_every_declared_column_is_checked_by_its_models_test_and_none_by_a_test_of_its_own():
    unchecked, per_column, unknown_slot = [], [], []
    declares = {model for model, _, _ in declared_checks()}
    declares |= {model for model, *_ in declared_value_checks()} | {model for model, *_ in declared_grains()}
    for path, node in _nodes():
        tests = _test_names(node.get("data_tests"))
        if node["name"] in declares and MODEL_TEST not in tests:
            unchecked.append(f"{path.name}: {node['name']}: {MODEL_TEST}")
        per_column += [f"{node['name']}: {t}" for t in tests & PER_KIND]
        grain = ((node.get("config") or {}).get("meta") or {}).get("grain") or []
        columns = {column["name"] for column in node.get("columns") or []}
        unknown_slot += [f"{node['name']}: grain column {c} is not a documented column" for c in set(grain) - columns]
        for column in node.get("columns") or []:
            per_column += [
                f"{node['name']}.{column['name']}: {t}" for t in _test_names(column.get("data_tests")) & PER_COLUMN
            ]
            meta = (column.get("config") or {}).get("meta") or {}
            for key in ("not_null_when_declared", "accepted_factor_label"):
                if key in meta and meta[key] not in ("audit_1", "audit_2", "category"):
                    unknown_slot.append(f"{node['name']}.{column['name']}: {key}: {meta[key]}")
            if meta.get("accepted_audit_terms") not in (None, "factor", "slice_type", "term", "omnibus_term"):
                unknown_slot.append(f"{node['name']}.{column['name']}: {meta['accepted_audit_terms']}")
    assert unchecked == [], "models that declare column checks but lack the model's test"
    assert per_column == [], "declare it at the column or as the grain (docs/sql_style.md, 'Data tests')"
    assert unknown_slot == []
    # every (model, column) the per-column tests checked before: 241 not_null + 31 when declared,
    # 33 accepted_values + 12 accepted_factor_label + 7 accepted_audit_terms; and every grain the
    # per-model unique_combination_of_columns (81) and the per-column unique (13) tests checked, plus
    # the grains of judge_pairwise_win_rates and judge_human_alpha; and demographic_rater_panels:
    # 6 not-null columns and its grain; the four worth marts: 24 not-null columns, 2 accepted values
    # and their 4 grains; less int_image_human_lists' 3 not-null columns and its grain (the resampling
    # marts read int_image_value_counts); the audit's long-form cells (int_audit_correct_counts,
    # int_audit_bias_cells, int_audit_pair_cells): 15 not-null columns and 3 grains, and
    # demographic_tukey.term (not null, accepted audit terms); the three report marts of binned
    # figures: 14 not-null + 3 when declared, 3 accepted values + 3 accepted_factor_label and their
    # 3 grains; int_audit_pair_cells' two levels (2 not-null columns), less the slot aggregates'
    # grains (int_bias_cells, int_demographic_label_counts); pipeline_stages.to_node (not null)
    assert (len(declared_checks()), len(declared_value_checks()), len(declared_grains())) == (340, 61, 105)


def compiled_checks(code: str) -> set[tuple]:
    """The checks a compiled model_checks query makes: (column, check) for not-null, (column,
    check, values) for accepted values, (column, kind, slot or term kind) for the label and audit
    checks, (grain columns, "grain") for the grain. One part of the union per check."""
    checks = set()
    for part in code.split("union all"):
        found = re.search(r"'([\w, ]+)' as column_name,\s*'([^']+)' as check_name", part)
        if found is None:  # a model without checks: an empty select
            continue
        column, check = found.groups()
        if check == "grain":
            checks.add((tuple(column.split(", ")), check))
        elif check == "accepted_values":
            checks.add((column, check, tuple(re.findall(r"'([^']*)'", re.search(r"not in \((.*)\)", part).group(1)))))
        elif check.startswith("accepted_"):  # "accepted_factor_label category", "accepted_audit_terms term"
            checks.add((column, *check.split(" ")))
        else:
            checks.add((column, check))
    return checks


def test_each_models_test_checks_exactly_what_its_yml_declares(small_warehouse):
    """What the tests of a real build compiled (the graph read at execution) equals the yml's
    declarations: no column or grain dropped, none of another model's picked up."""
    manifest = json.loads((small_warehouse.root / "target" / "manifest.json").read_text())
    compiled = set()
    for node in manifest["nodes"].values():
        if node["resource_type"] == "test" and (node.get("test_metadata") or {}).get("name") == MODEL_TEST:
            model = node["attached_node"].split(".")[-1]
            compiled |= {(model, *check) for check in compiled_checks(node["compiled_code"])}
    # the small study fills all three slots
    assert compiled == declared_checks() | declared_value_checks() | declared_grains()


@pytest.fixture(scope="module")
def compiled_test_sql(small_warehouse) -> dict[str, str]:
    """model_checks of two models as the small study's build compiled it. stg_stimuli: image_id is
    never null and its grain; audit_1, audit_2 and category are never null when the study fills their
    slot (it does) and are labels (factor_labels) of the factor in their slot. int_condition_pools:
    pool and condition_id are never null, and (pool, condition_id) is its grain."""
    manifest = json.loads((small_warehouse.root / "target" / "manifest.json").read_text())
    return {
        model: next(
            n["compiled_code"]
            for n in manifest["nodes"].values()
            if (n.get("test_metadata") or {}).get("name") == MODEL_TEST and n["attached_node"].endswith(f".{model}")
        )
        for model in ("stg_stimuli", "int_condition_pools")
    }


LABELS = {"audit_1": ["a", "b"], "audit_2": ["a", "x"], "category": ["b", "x"]}
# the factor in each slot, as the small study declares it (factor_labels holds the study's names)
FACTOR = {"audit_1": "race", "audit_2": "gender", "category": "emotion"}


@cache
def _database() -> duckdb.DuckDBPyConnection:
    """One in-memory database holding factor_labels under the relation names the tests compiled to:
    opening a database per example cost ~17 ms, ten times what the example itself runs."""
    con = duckdb.connect()
    con.execute("attach ':memory:' as rater1001")
    labels = pd.DataFrame([(FACTOR[s], label) for s, ls in LABELS.items() for label in ls], columns=["factor", "label"])
    con.register("labels", labels)
    con.execute("create table rater1001.main.factor_labels as select * from labels")
    return con


def _run_on(sql: str, model: str, frame: pd.DataFrame) -> list[tuple]:
    """The compiled test on a tiny in-memory `model` (replaced for each call) and factor_labels."""
    with _database().cursor() as con:
        con.register("frame", frame)
        con.execute(f"create or replace table rater1001.main.{model} as select * from frame")
        return sorted(con.execute(sql).fetchall(), key=repr)


def _duplicated_keys(frame: pd.DataFrame, grain: list[str]) -> list[tuple]:
    """("col, col", "grain", the key as DuckDB prints a struct, its rows) for every key (NULLs
    included, as GROUP BY groups them) that more than one row has: a pandas count."""
    sizes = frame.groupby(grain, dropna=False).size()
    keys = sizes[sizes > 1]
    text = lambda v: "NULL" if pd.isna(v) else v  # noqa: E731
    return [
        (", ".join(grain), "grain", "{" + ", ".join(f"'{c}': {text(v)}" for c, v in zip(grain, key)) + "}", int(n))
        for key, n in zip((k if isinstance(k, tuple) else (k,) for k in keys.index), keys)
    ]


value = st.one_of(st.none(), st.sampled_from(["a", "b", "x"]))
rows = st.lists(st.tuples(value, value, value, value, value), max_size=8)


@settings(max_examples=40, deadline=None)
@given(rows)
def test_the_model_test_returns_each_failing_check_with_its_count(compiled_test_sql, data):
    frame = pd.DataFrame(data, columns=["image_id", "audit_1", "audit_2", "category", "file_path"], dtype="string")
    not_null = {
        "image_id": "not_null",
        "audit_1": "not_null when slot audit_1 is declared",
        "audit_2": "not_null when slot audit_2 is declared",
        "category": "not_null when slot category is declared",
    }  # file_path is declared nothing: its NULLs are allowed
    expected = [(c, not_null[c], None, int(frame[c].isna().sum())) for c in not_null if frame[c].isna().any()]
    # not a label of the slot's factor: one row per (column, value) with its count; NULLs pass
    bad = pd.concat(
        [
            frame.loc[frame[c].notna() & ~frame[c].isin(LABELS[c]), [c]].assign(column=c).rename(columns={c: "value"})
            for c in LABELS
        ]
    )
    expected += [
        (c, f"accepted_factor_label {c}", v, n) for (c, v), n in bad.groupby(["column", "value"]).size().items()
    ]
    # a duplicated image_id, NULL too (the not-null check fails it as well)
    expected += _duplicated_keys(frame, ["image_id"])
    # dbt fails a test that returns a row
    assert _run_on(compiled_test_sql["stg_stimuli"], "stg_stimuli", frame) == sorted(expected, key=repr)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(value, value, value), max_size=8))
def test_the_model_test_returns_each_duplicated_key_of_a_compound_grain(compiled_test_sql, data):
    frame = pd.DataFrame(data, columns=["pool", "condition_id", "kind"], dtype="string")
    expected = [
        (c, "not_null", None, int(frame[c].isna().sum())) for c in ("pool", "condition_id") if frame[c].isna().any()
    ]
    expected += _duplicated_keys(frame, ["pool", "condition_id"])
    assert _run_on(compiled_test_sql["int_condition_pools"], "int_condition_pools", frame) == sorted(expected, key=repr)
