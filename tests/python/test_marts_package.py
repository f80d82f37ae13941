"""models/marts/<folder>/ and python/rater1001/marts/<folder>.py pair one to one: a module for each
folder with dbt Python models, no module without such a folder, every Python model the same three
lines that call the function named like the model in its folder's module, with only dbt.ref and
dbt.config.get values as arguments (no logic in the model file); each column's type declared once,
in the mart's yml (data_type), and read by the code that types the output frame."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pandas as pd
import pytest
import rater1001.marts
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.paths import REPO_ROOT

MARTS = REPO_ROOT / "models" / "marts"
PY_MODELS = sorted(MARTS.glob("*/*.py"))
MODULES = {m.name for m in pkgutil.iter_modules(rater1001.marts.__path__) if not m.name.startswith("_")}


def test_every_folder_with_python_models_has_its_module_and_no_module_lacks_a_folder():
    folders = {p.parent.name for p in PY_MODELS}
    assert folders == MODULES
    sql_only = {p.name for p in MARTS.iterdir() if p.is_dir()} - folders
    assert sql_only, "expected some SQL-only folders (fer, query, ...)"
    for name in sql_only:  # the package says which folders have no module and why
        assert name in rater1001.marts.__doc__, name


def _dbt_value(node: ast.expr) -> bool:
    """dbt.ref("x") or dbt.config.get("x") with a literal argument."""
    if not isinstance(node, ast.Call) or not all(isinstance(a, ast.Constant) for a in node.args):
        return False
    return ast.unparse(node.func) in ("dbt.ref", "dbt.config.get")


@pytest.mark.parametrize("path", PY_MODELS, ids=lambda p: p.stem)
def test_each_python_model_is_three_lines_calling_its_builder(path):
    tree = ast.parse(path.read_text())
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    fn = tree.body[0]
    assert fn.name == "model" and [a.arg for a in fn.args.args] == ["dbt", "session"]
    imp, ret = fn.body if len(fn.body) == 2 else (None, None)
    folder = path.parent.name
    assert isinstance(imp, ast.ImportFrom) and imp.module == "rater1001.marts"
    assert [a.name for a in imp.names] == [folder] and imp.names[0].asname is None
    assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call)
    assert ast.unparse(ret.value.func) == f"{folder}.{path.stem}"
    args = list(ret.value.args) + [k.value for k in ret.value.keywords]
    assert args and all(_dbt_value(a) for a in args), ast.unparse(ret.value)
    # the builder is in the folder's module and takes exactly what the model hands it
    builder = getattr(importlib.import_module(f"rater1001.marts.{folder}"), path.stem)
    inspect.signature(builder).bind(*ret.value.args, **{k.arg: k.value for k in ret.value.keywords})
    # the provenance relation comes last among the refs: every mart carries data_origin
    last = ret.value.args[-1]
    assert ast.unparse(last.func) == "dbt.ref" and last.args[0].value == "int_study_provenance"


def test_every_python_mart_declares_a_type_for_every_column_and_the_code_reads_it():
    from rater1001.marts._shared import PANDAS_DTYPES, _declared_columns, declared

    columns = _declared_columns()
    for path in PY_MODELS:
        declared_here = columns[path.stem]
        assert declared_here and declared_here[-1][0] == "data_origin", path.stem
        untyped = [name for name, kind in declared_here if kind not in PANDAS_DTYPES]
        assert not untyped, (path.stem, untyped)
        # the frame the builder types: the yml's columns in its order, data_origin added last
        assert list(declared(path.stem)) == [name for name, _ in declared_here[:-1]]


def test_a_column_without_a_declared_type_is_an_error_naming_the_mart_and_column(monkeypatch):
    from rater1001.marts import _shared

    monkeypatch.setattr(
        _shared, "_declared_columns", lambda: {"m": [("a", "bigint"), ("b", None), ("data_origin", "varchar")]}
    )
    with pytest.raises(ValueError, match=r"of m: columns \['b'\] declare no data_type"):
        _shared.declared("m")


def test_typed_gives_the_declared_dtypes_also_for_no_rows():
    from rater1001.marts._shared import typed

    schema = {"n": "Int64", "x": "float64", "ok": "boolean", "s": "string"}
    empty = typed([], schema)
    assert empty.empty and dict(empty.dtypes.astype(str)) == schema
    rows = typed([{"n": 3, "x": None, "ok": True, "s": "a", "extra": 1}, {"n": None, "x": 0.5}], schema)
    assert list(rows.columns) == list(schema) and dict(rows.dtypes.astype(str)) == schema
    assert rows["n"].tolist()[0] == 3 and rows["n"].isna().tolist() == [False, True]
    assert rows["x"].isna().tolist() == [True, False] and rows["s"].isna().tolist() == [False, True]
    with pytest.raises(ValueError):  # a string where a number is declared is an error, not a NULL
        typed([{"n": "three"}], schema)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(-(2**40), 2**40)), max_size=12),
    st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)), max_size=12),
)
def test_typed_numpy_numbers_and_python_objects_give_the_same_table(ints, floats):
    """typed converts numpy number columns directly and everything else through to_numeric: the
    same values either way (a frame of numpy numbers against the same values as Python objects)."""
    from rater1001.marts._shared import typed

    n = min(len(ints), len(floats))
    as_objects = pd.DataFrame(
        {"i": pd.Series(ints[:n], dtype=object), "f": pd.Series(floats[:n], dtype=object)}, index=range(n)
    )
    as_numpy = pd.DataFrame({"i": pd.to_numeric(as_objects["i"]), "f": as_objects["f"].astype("float64")})
    for schema in ({"i": "Int64", "f": "float64"}, {"i": "float64", "f": "Float64"}):
        pd.testing.assert_frame_equal(typed(as_numpy, schema), typed(as_objects, schema))
    f = as_numpy["f"]
    if (f.isna() | ((f % 1 == 0) & (f.abs() < 2**53))).all():  # whole numbers an Int64 column holds
        pd.testing.assert_frame_equal(typed(as_numpy, {"f": "Int64"}), typed(as_objects, {"f": "Int64"}))


def test_data_origin_reads_a_relation_as_a_frame():
    import duckdb
    from rater1001.marts._shared import data_origin

    con = duckdb.connect()
    for rows in ("select 'SIMULATED' as data_origin, 1 as n", "select 'x' as data_origin where false"):
        relation = con.query(rows)
        assert data_origin(relation) == data_origin(relation.df())
    assert data_origin(con.query("select 'SIMULATED' as data_origin")) == "SIMULATED"


def test_as_frame_with_columns_reads_only_those_and_the_same_values():
    import duckdb
    from rater1001.marts._shared import as_frame

    con = duckdb.connect()
    relation = con.query("select 'a' as judge_id, 'long text' as raw_text, 'x' as verdict_empathy, 2 as \"odd name\"")
    whole = as_frame(relation)
    for columns, expected in (
        (("judge_id", "odd name", "absent"), ["judge_id", "odd name"]),
        (lambda c: c.startswith("verdict_"), ["verdict_empathy"]),
    ):
        from_relation, from_frame = as_frame(relation, columns), as_frame(whole, columns)
        assert list(from_relation.columns) == expected == list(from_frame.columns)
        pd.testing.assert_frame_equal(from_relation, whole[expected])
        pd.testing.assert_frame_equal(from_frame, whole[expected])


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.one_of(st.none(), st.text(max_size=6)),
            st.one_of(st.none(), st.floats(allow_nan=False)),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_as_frame_through_arrow_is_the_same_frame_for_strings_and_doubles(rows):
    # the same columns; a VARCHAR column without a value is missing throughout either way (None in
    # an object column from DuckDB, NaN in a str column from Arrow)
    import duckdb
    from rater1001.marts._shared import as_frame

    con = duckdb.connect()
    con.execute("create table t (image_id varchar, model_valence double)")
    for row in rows:
        con.execute("insert into t values (?, ?)", row)
    relation = con.query("select * from t")
    arrow, plain = as_frame(relation, arrow=True), as_frame(relation)
    assert list(arrow.columns) == list(plain.columns)
    for column in plain:
        if plain[column].notna().any():
            pd.testing.assert_series_equal(arrow[column], plain[column])
        else:
            assert arrow[column].isna().all() and len(arrow) == len(plain)
