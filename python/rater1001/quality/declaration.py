"""Declarations the landed data contradict: a declared factor whose column holds no value, a
dimension no rater used, a rater attribute with fewer than two levels. None stops the gate (the
rest of the study is analysed); each is a warning naming the file, the column and what it holds,
and the analysis that cannot run, which the report shows on its first screen."""

from __future__ import annotations

import pyarrow.parquet as pq

from ..paths import ProjectPaths
from ..study import Study


def _values(paths: ProjectPaths, table: str, column: str):
    """The column's non-empty values as a pandas Series, or None when the file or column is absent
    or the table has no rows (a table that landed empty is the gate's own finding)."""
    path = paths.raw_table(table)
    if not path.exists():
        return None
    meta = pq.ParquetFile(path)
    if column not in meta.schema_arrow.names or meta.metadata.num_rows == 0:
        return None
    values = pq.read_table(path, columns=[column]).column(column).to_pandas()
    if values.dtype == object:
        values = values.where(values.astype(str).str.strip() != "")
    return values.dropna()


def declaration_warnings(paths: ProjectPaths, study: Study) -> list[str]:
    out = []
    for factor in study.audit_factors:
        values = _values(paths, "stimuli", factor.name)
        if values is not None and values.empty:
            out.append(
                f"{paths.raw_table('stimuli').name}: column '{factor.name}' (a declared audit factor) holds no "
                f"value: the audit by {factor.name} cannot run"
            )
    for dimension in study.dimensions:
        values = _values(paths, "human_ratings", dimension)
        if values is not None and values.empty:
            out.append(
                f"{paths.raw_table('human_ratings').name}: column '{dimension}' (a declared dimension) holds no "
                f"rating: no human baseline, alpha or z-score on {dimension}"
            )
    for attribute in study.rater_attributes:
        values = _values(paths, "raters", attribute)
        if values is not None and values.nunique() < 2:
            levels = sorted(values.astype(str).unique())
            held = f"one level, {levels[0]!r}" if levels else "no value"
            out.append(
                f"{paths.raw_table('raters').name}: column '{attribute}' (a declared rater attribute) has "
                f"{held}: no comparison of raters by {attribute}"
            )
    return out
