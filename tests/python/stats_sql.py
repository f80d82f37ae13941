"""Render this project's dbt macros with plain Jinja so pytest can run the exact SQL text dbt
compiles against DuckDB (one home per formula: the macro is checked where it lives)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import jinja2
import pandas as pd

MACROS = Path(__file__).resolve().parents[2] / "macros"


def macros(*names: str):
    """The Jinja module of the given macro files (macros in them can call each other)."""
    text = "\n".join((MACROS / f"{n}.sql").read_text(encoding="utf-8") for n in names)
    return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(text).module


def run(sql: str, **frames: pd.DataFrame) -> pd.DataFrame:
    con = duckdb.connect()
    for name, df in frames.items():
        con.register(name, df)
    return con.execute(sql).df()


def alpha_interval_sql(relation: str, unit: str, value: str, group_by=()) -> str:
    """Interval alpha of a long relation as the marts compose it: per-unit statistics, then alpha."""
    m = macros("alpha_sufficient_statistics")
    return m.alpha_interval_from_stats(f"({m.alpha_unit_stats(relation, unit, value, list(group_by))})", list(group_by))
