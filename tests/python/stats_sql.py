"""Render this project's dbt macros with plain Jinja so pytest can run the exact SQL text dbt
compiles against DuckDB (one home per formula: the macro is checked where it lives)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import duckdb
import jinja2
import pandas as pd

MACROS = Path(__file__).resolve().parents[2] / "macros"


@cache  # parsing the Jinja costs ~6 ms, and property tests render the same macros per example
def macros(*names: str, **context):
    """The Jinja module of the given macro files (macros in them can call each other); `context`
    stands in for the project macros they call that read the study (e.g. has_category)."""
    text = "\n".join((MACROS / f"{n}.sql").read_text(encoding="utf-8") for n in names)
    return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(text, globals=context).module


@cache
def _database() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


def run(sql: str, **frames: pd.DataFrame) -> pd.DataFrame:
    """`sql` over the frames, registered under their names. Each call gets its own cursor (its own
    connection, so nothing registered survives the call) on one in-memory database: opening a
    database costs ~20 ms, a cursor ~0.1 ms, which is most of a property test's example."""
    with _database().cursor() as con:
        for name, df in frames.items():
            con.register(name, df)
        return con.execute(sql).df()


def alpha_interval_sql(relation: str, unit: str, value: str, group_by=()) -> str:
    """Interval alpha of a long relation as the marts compose it: per-unit statistics, then alpha."""
    m = macros("alpha_sufficient_statistics")
    return m.alpha_interval_from_stats(f"({m.alpha_unit_stats(relation, unit, value, list(group_by))})", list(group_by))
