"""The warehouse's side of the comparison: each mart read into the oracle's layout (oracle_calc),
and the comparison itself. The one place that knows the marts' column names (WAREHOUSE_NAMES)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

# oracle name -> the marts' name (the category stratum column, the per-label column and table)
WAREHOUSE_NAMES = {"scope": "category", "label": "category", "by_label_table": "classification_by_category"}
CLOSED_FORM = 1e-9
FIT = 1e-4


_CONNECTIONS: dict[Path, duckdb.DuckDBPyConnection] = {}


def read(root: Path, sql: str) -> pd.DataFrame | None:
    """A query's rows, or None when its table is missing (a model that failed to build). One
    read-only connection per warehouse (opening the file is most of a small query's time)."""
    if root not in _CONNECTIONS:
        db = next((root / "warehouse").glob("*.duckdb"))
        _CONNECTIONS[root] = duckdb.connect(str(db), read_only=True)
    try:
        return _CONNECTIONS[root].execute(sql).df()
    except duckdb.CatalogException:
        return None


def mart(root: Path, table: str, where: str = "true") -> pd.DataFrame | None:
    frame = read(root, f"select * from {table} where {where}")
    if frame is None:
        return None
    if table == WAREHOUSE_NAMES["by_label_table"]:
        return frame.rename(columns={WAREHOUSE_NAMES["label"]: "label"})
    return frame.rename(columns={WAREHOUSE_NAMES["scope"]: "scope"})


@dataclass
class Comparison:
    compared: int = 0
    max_diff: float = 0.0
    problems: list[str] = field(default_factory=list)

    def add(self, other: Comparison) -> None:
        self.compared += other.compared
        self.max_diff = max(self.max_diff, other.max_diff)
        self.problems += other.problems


def _same(expected, actual, tol: float) -> tuple[bool, float]:
    e_na = expected is None or (isinstance(expected, float) and math.isnan(expected))
    a_na = actual is None or actual is pd.NA or (isinstance(actual, float) and math.isnan(actual))
    if e_na or a_na:
        return e_na and a_na, 0.0
    if isinstance(expected, str) or isinstance(actual, str):
        return str(expected) == str(actual), 0.0
    diff = abs(float(expected) - float(actual))
    return diff <= tol * max(1.0, abs(float(expected))), diff


def compare(
    expected: pd.DataFrame,
    actual: pd.DataFrame | None,
    keys: list[str],
    values: list[str],
    tol: float = CLOSED_FORM,
    what: str = "",
) -> Comparison:
    """Every expected row must be in actual (by keys) with every value within tol (relative above 1)."""
    out = Comparison()
    if actual is None:
        out.problems.append(f"{what}: table missing (its model did not build)")
        return out
    if expected.empty:
        return out
    actual = actual.copy()
    for k in keys:
        actual[k] = actual[k].astype(object).where(actual[k].notna(), None)
    index = {tuple(r[k] for k in keys): r for _, r in actual.iterrows()}
    for _, row in expected.iterrows():
        key = tuple(row[k] for k in keys)
        got = index.get(key)
        if got is None:
            out.problems.append(f"{what}: no row {dict(zip(keys, key, strict=True))}")
            continue
        for v in values:
            e = row[v]
            a = got[v]
            e = e.item() if isinstance(e, np.generic) else e
            a = a.item() if isinstance(a, np.generic) else a
            ok, diff = _same(e, a, tol)
            out.compared += 1
            out.max_diff = max(out.max_diff, diff)
            if not ok:
                out.problems.append(f"{what} {dict(zip(keys, key, strict=True))} {v}: oracle {e!r}, warehouse {a!r}")
    return out
