"""What every mart module shares: reading a dbt relation as a frame, the 'all' scope, the study's
data origin, the condition pools, the model dimensions and the typing of an output frame.

A mart must build EMPTY (not fail, not get untyped NULL columns) when there is nothing to compute,
so outputs go through `typed` (explicit pandas dtype per column, which DuckDB maps to VARCHAR /
DOUBLE / BIGINT / BOOLEAN) or `finish` (the declared columns in order).
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd
import yaml

from ..paths import REPO_ROOT
from ..study import AUDIT_SLOTS, CATEGORY_SLOT

ALL = "all"  # the scope value of rows computed over every category level (or variant, or dialogue category)


def as_frame(relation, columns=None, arrow: bool = False) -> pd.DataFrame:
    """A dbt relation (what dbt.ref returns in a Python model) as a pandas frame; a frame as is.
    With `columns` (names, or a test of a name) only those: DuckDB reads no column a mart skips
    (a judge study's response and raw answer texts are most of its bytes). With `arrow`, through
    an Arrow table: for VARCHAR and DOUBLE columns the same values and dtypes (tested; a VARCHAR
    column with no value is a str column of NaN, not an object column of None) without a Python string
    per value (1.9 M rows of three strings: 4.1 -> 0.2-0.5 CPU s); other types convert otherwise
    (HUGEINT to Decimal objects), so only where the columns are those."""
    names = relation.columns
    keep = None if columns is None else [c for c in names if (columns(c) if callable(columns) else c in columns)]
    if isinstance(relation, pd.DataFrame):
        return relation if keep is None else relation[keep]
    if keep is not None:
        import duckdb

        relation = relation.select(*(duckdb.ColumnExpression(c) for c in keep))
    return relation.to_arrow_table().to_pandas() if arrow else relation.df()


def data_origin(provenance) -> str | None:
    """SIMULATED or observed, from int_study_provenance (one row)."""
    if isinstance(provenance, pd.DataFrame):
        return provenance["data_origin"].iloc[0] if len(provenance) else None
    # a relation: the one value, not the whole row as a frame (every mart asks, ~6 ms each)
    first = provenance.select("data_origin").limit(1).fetchall()
    return first[0][0] if first else None


def with_origin(out: pd.DataFrame, provenance) -> pd.DataFrame:
    """The mart plus data_origin from int_study_provenance: every row says SIMULATED or observed."""
    return out.assign(data_origin=pd.Series(data_origin(provenance), index=out.index, dtype="string"))


def finish(rows, model: str, provenance) -> pd.DataFrame:
    """The mart's declared columns, in order and typed (an empty input gives an empty typed table,
    never a failed build), plus data_origin from int_study_provenance."""
    return with_origin(typed(rows, declared(model)), provenance)


# the warehouse types a mart's yml may declare, and the pandas dtype that DuckDB stores as each
# (a NaN in a float64 column is stored as NULL, as pd.NA is)
PANDAS_DTYPES = {"varchar": "string", "double": "float64", "bigint": "Int64", "boolean": "boolean"}
MARTS_YML = REPO_ROOT / "models" / "marts"


@functools.lru_cache(maxsize=1)
def _declared_columns() -> dict[str, list[tuple[str, str | None]]]:
    # libyaml's loader where PyYAML was built with it: the same documents, ~5x less CPU than the
    # pure-Python one (0.3 s for the marts' yml, paid once per process by the first Python mart)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out = {}
    for path in sorted(MARTS_YML.glob("*/*.yml")):
        for m in yaml.load(path.read_text(encoding="utf-8"), Loader=loader).get("models", []):
            out[m["name"]] = [(c["name"], c.get("data_type")) for c in m.get("columns", [])]
    return out


def declared(model: str) -> dict[str, str]:
    """The columns of a Python mart as its yml declares them (name -> pandas dtype of its
    data_type), in the yml's order, without data_origin (added by with_origin): the one place a
    mart's columns and types are written."""
    columns = [(name, kind) for name, kind in _declared_columns()[model] if name != "data_origin"]
    untyped = [name for name, kind in columns if kind not in PANDAS_DTYPES]
    if untyped:
        raise ValueError(
            f"models/marts yml of {model}: columns {untyped} declare no data_type among {sorted(PANDAS_DTYPES)}"
        )
    return {name: PANDAS_DTYPES[kind] for name, kind in columns}


def typed(rows, schema: dict[str, str]) -> pd.DataFrame:
    """Rows (a list of dicts or a frame) -> a frame with exactly `schema`'s columns (name -> pandas
    dtype), in order; a missing column is all NULL. Typed even when empty so DuckDB gets column
    types. Numbers go through to_numeric, so a None is a NULL and a string is an error."""
    rows = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=list(schema))
    out = pd.DataFrame(index=rows.index)
    for col, dtype in schema.items():
        values = rows[col] if col in rows.columns else pd.Series(pd.NA, index=rows.index)
        numpy_number = isinstance(values.dtype, np.dtype) and values.dtype.kind in "iuf"
        if dtype in ("Float64", "float64", "Int64") and not numpy_number:
            # numpy numbers convert as they are (the same values, without a round trip through
            # Python objects); anything else (objects, None, pd.NA, extension types) goes through to_numeric
            values = pd.to_numeric(values.astype(object).where(values.notna(), None), errors="raise")
        out[col] = values.astype(dtype)
    return out.reset_index(drop=True)


def in_pool(rows, pools, pool: str):
    """The rows of the conditions in `pool` (int_condition_pools; seeds/condition_pools.csv): a
    frame's as a frame, a dbt relation's as a relation (filtered in DuckDB; `pools` one of the same
    connection)."""
    if not isinstance(rows, pd.DataFrame):
        return rows.join(pools.filter(f"pool = '{pool}'").project("condition_id"), "condition_id", how="semi")
    pools = as_frame(pools)
    return rows[rows["condition_id"].isin(pools.loc[pools["pool"] == pool, "condition_id"])]


def model_dimensions(model_vs_human: pd.DataFrame) -> list[str]:
    """The dimensions an int_model_vs_human-shaped frame carries a Bland-Altman difference for
    (d_<dim>): var('model_dimensions') as the warehouse built it, read from the data rather than
    repeated in code. d_<dim> exists exactly where model_<dim> and human_mean_<dim> do."""
    return [c[2:] for c in model_vs_human.columns if c.startswith("d_")]


def category_labels(factor_labels, study_factors=None) -> list[str]:
    """The labels of the study's category factor (the `category` slot; stg_study_factors says which
    factor fills it, docs/study_shape.md) in display order, from the factor_labels seed; empty
    without a category."""
    category = "emotion"  # the paper's category factor, where no declaration is given
    if study_factors is not None:
        study_factors = as_frame(study_factors)
        filled = study_factors.loc[study_factors["slot"] == "category", "factor"]
        category = filled.iloc[0] if len(filled) else None
    factor_labels = as_frame(factor_labels)
    e = factor_labels[factor_labels["factor"] == category].sort_values("display_order")
    return e["label"].astype(str).tolist()


def anchor_of(catalog, pairs: pd.DataFrame | None = None) -> str | None:
    """The judge study's anchor candidate (judge_candidate_catalog.is_anchor), or None when the
    catalog names none or, given the study's pairs (candidate_a / candidate_b), when the anchor
    is in none of them: a study of model-vs-model pairs has no anchor."""
    catalog = as_frame(catalog)
    anchors = catalog.loc[catalog["is_anchor"].fillna(False).astype(bool), "candidate_id"].tolist()
    if pairs is not None:
        landed = set(pairs["candidate_a"].unique()) | set(pairs["candidate_b"].unique())
        anchors = [a for a in anchors if a in landed]
    return anchors[0] if anchors else None


def with_scopes(rows: pd.DataFrame, column: str = "category") -> pd.DataFrame:
    """Each row once under its own value of `column` and once under 'all'; a row already in the
    stratum 'all' (every row of a study without a category: stg_stimuli) once."""
    return pd.concat([rows[rows[column] != ALL], rows.assign(**{column: ALL})], ignore_index=True)


def scopes(rows: pd.DataFrame, column: str) -> list[tuple[str, pd.DataFrame]]:
    """[('all', rows), (value1, part), ...] in the order of `column`'s values; a study without a
    category has its rows in the stratum 'all' (stg_stimuli) and gets ('all', rows) only."""
    return [(ALL, rows)] + [(e, p) for e, p in rows.groupby(column, sort=True) if e != ALL]


def config_list(value, default: str, cast=float) -> list:
    """A comma-separated dbt config value (or its default) as a list."""
    return [cast(v) for v in str(value or default).split(",")]


def slot_names(study_factors: pd.DataFrame | None) -> dict[str, str]:
    """stg_study_factors -> {slot: declared name} for the slots the study fills. Without it, every
    slot named as itself."""
    if study_factors is None:
        return {s: s for s in (*AUDIT_SLOTS, CATEGORY_SLOT)}
    filled = study_factors[study_factors["slot"].notna()]
    return dict(zip(filled["slot"].astype(str), filled["factor"].astype(str)))


def spell_terms(text, names: dict[str, str]):
    """A model term, formula or coefficient list with each slot column before '[' or in a formula
    under the study's name ('audit_2[male]' -> 'gender[male]', 'rating ~ category + ...' -> 'rating ~
    emotion + ...'): the text a person reads; None stays None."""
    if not isinstance(text, str):
        return text
    slots = "|".join(s for s in (CATEGORY_SLOT, *AUDIT_SLOTS) if s in names)
    if not slots:
        return text
    return re.sub(rf"(?<![\w])({slots})(?=\[|\s*[+:)]|$)", lambda m: names[m.group(1)], text)
