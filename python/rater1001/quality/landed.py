"""The landed Parquet files as DuckDB views: what the gate hands Great Expectations is computed here,
so no landed table is ever held whole in pandas (at 100x the ratings and predictions are 7.2 and
1.9 million rows, the predictions with their raw responses and thinking traces).

A contract check on a landed table is validated on a *class frame*: the table's rows grouped by
an expression (a column's value, a foreign-key flag, the number of rows sharing a key), one row per
distinct value with the number of rows holding it. A column's values all satisfy a row-wise rule
exactly when its distinct values do, so Great Expectations reaches the same verdict on the
small frame; the class values it rejects lead back to the table's rows (`rows`), which is what
the summary and the data-quality report show, numbered as in the file.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.compute as pc

ROW = "__gate_row"  # a view's row number in its file, counted from 1 (the frames' index "row")
CLASS_ROWS = "n_rows"  # a class frame's count of the table rows in each class

# The gate's own DuckDB: large enough for the 100x key counts without spilling, small next to the
# 8 GiB budget of a whole run. Larger operators spill to a private temporary folder.
MEMORY_LIMIT = "1GB"


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _checked(table: str) -> str:
    """The view of a table with its foreign-key flags (the plain view is what other tables' flags
    look their keys up in)."""
    return quoted(f"{table}__gate")


@dataclass(frozen=True)
class RowClass:
    """A landed table's rows grouped for one check: by the value of the SQL expression `sql` over
    the table's view, or, with `per_key`, by how many rows share those key columns."""

    table: str
    column: str  # the class column's name in the validated frame
    sql: str = ""
    per_key: tuple[str, ...] = ()
    name: str = ""  # tells two classes of one column apart (default: the column)

    @property
    def frame(self) -> str:
        return f"{self.table}.{self.name or self.column}"


class LandingDB:
    """One in-memory DuckDB over the landing zone, for the duration of a gate run."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="rater1001-gate-")
        self.con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "temp_directory": self._tmp.name})
        self._multiplicities: dict[tuple, pd.DataFrame] = {}

    def close(self) -> None:
        self.con.close()
        self._tmp.cleanup()

    def __enter__(self) -> LandingDB:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add_table(self, name: str, path: Path) -> None:
        literal = "'" + str(path).replace("'", "''") + "'"
        self.con.execute(
            f"create view {quoted(name)} as select file_row_number + 1 as {ROW}, "
            f"* exclude (file_row_number) from read_parquet({literal}, file_row_number = true)"
        )

    def add_flags(self, name: str, flags: dict[str, str]) -> None:
        """The checked view of `name`: its rows with each flag expression as a column."""
        extra = "".join(f", {sql} as {quoted(flag)}" for flag, sql in flags.items())
        self.con.execute(f"create view {_checked(name)} as select *{extra} from {quoted(name)} as t")

    def frame(self, table: str, columns: list[str], where: str = "true") -> pd.DataFrame:
        """Some columns of a (small) landed table, indexed by row number in the file."""
        cols = ", ".join(quoted(c) for c in columns)
        return self._indexed(f"select {ROW}, {cols} from {quoted(table)} where {where} order by {ROW}")

    def _indexed(self, sql: str) -> pd.DataFrame:
        out = self.con.sql(sql).to_arrow_table().to_pandas()
        out.index = pd.Index(out.pop(ROW), name="row")
        return out

    def class_frames(self, classes: list[RowClass]) -> dict[str, pd.DataFrame]:
        """The class frame of each row class (all of one table): the value classes in one scan
        (a grouping set each), a key's multiplicity in a query of its own."""
        out = {rc.frame: self.multiplicity(rc) for rc in classes if rc.per_key}
        values = [rc for rc in classes if not rc.per_key]
        if not values:
            return out
        (table,) = {rc.table for rc in values}
        cols = [f"c{i}" for i in range(len(values))]
        grouped = self.con.sql(
            f"with c as (select {', '.join(f'{rc.sql} as {col}' for rc, col in zip(values, cols))} "
            f"from {_checked(table)} as t) "
            f"select {', '.join(cols)}, {', '.join(f'grouping({col}) as g{col}' for col in cols)}, "
            f"count(*) as {CLASS_ROWS} from c group by grouping sets ({', '.join(f'({col})' for col in cols)})"
        ).to_arrow_table()
        for rc, col in zip(values, cols):
            mine = grouped.filter(pc.equal(grouped[f"g{col}"], 0)).select([col, CLASS_ROWS])
            out[rc.frame] = (
                mine.rename_columns([rc.column, CLASS_ROWS])
                .to_pandas()
                .sort_values(CLASS_ROWS, ascending=False, kind="stable", ignore_index=True)
            )
        return out

    def multiplicity(self, rc: RowClass) -> pd.DataFrame:
        """How many rows share each key, and how many rows each such count covers. Grouped on a
        64-bit hash of the key first (a string key of 7.2 million rows groups several times
        slower): when every hash is held by one row, every key is; otherwise the keys are
        grouped exactly."""
        known = self._multiplicities.get((rc.table, rc.per_key))
        if known is None:
            keys = ", ".join(quoted(k) for k in rc.per_key)
            counted = (
                f"select n, sum(n)::bigint as {CLASS_ROWS} from (select count(*) as n "
                f"from {quoted(rc.table)} where {_keyed(rc.per_key)} group by {{}}) group by n order by n"
            )
            known = self.con.sql(counted.format(f"hash({keys})")).to_arrow_table().to_pandas()
            if (known["n"] > 1).any():
                known = self.con.sql(counted.format(keys)).to_arrow_table().to_pandas()
            self._multiplicities[(rc.table, rc.per_key)] = known
        return known.rename(columns={"n": rc.column})

    def rows(self, rc: RowClass, classes: pd.Series) -> pd.DataFrame:
        """The table's rows (with its flags) whose class is one of `classes`, in file order."""
        values = classes.dropna()
        self.con.register("rejected_classes", pd.DataFrame({"v": values.to_numpy()}))
        try:
            if rc.per_key:
                keys = ", ".join(quoted(k) for k in rc.per_key)
                sql = (
                    f"select * from {_checked(rc.table)} where {_keyed(rc.per_key)} "
                    f"qualify count(*) over (partition by {keys}) in (select v from rejected_classes) "
                    f"order by {ROW}"
                )
            else:
                null = f" or ({rc.sql}) is null" if classes.isna().any() else ""
                sql = (
                    f"select * from {_checked(rc.table)} as t where ({rc.sql}) in "
                    f"(select v from rejected_classes){null} order by {ROW}"
                )
            return self._indexed(sql)
        finally:
            self.con.unregister("rejected_classes")

    def distinct_counts(self, table: str, by: str, of: str, unique: bool) -> pd.Series:
        """Per value of `by`: the number of distinct non-empty `of` (ratings per image counts
        raters, images per rater counts images). `unique`: (by, of) is known to be unique, so
        rows are counted instead (the same number, without a set of values per group)."""
        counted = f"count({quoted(of)})" if unique else f"count(distinct {quoted(of)})"
        out = self.con.execute(
            f"select {quoted(by)}, {counted} from {quoted(table)} where {quoted(by)} is not null group by 1"
        ).fetchall()
        return pd.Series(dict(out), dtype="int64")

    def ids(self, table: str, column: str) -> list:
        """The column's distinct non-empty values in order of first appearance in the file."""
        return [
            r[0]
            for r in self.con.execute(
                f"select {quoted(column)} from {quoted(table)} where {quoted(column)} is not null "
                f"group by 1 order by min({ROW})"
            ).fetchall()
        ]

    def condition_coverage(self, conditions: bool) -> pd.DataFrame:
        """Every condition (of model_conditions when `conditions`, then any other that predicted,
        in file order) with the number of stimuli it predicted, of how many, and which it missed
        (in the stimuli's order)."""
        declared = (
            f"select condition_id, {ROW} as k from {quoted('model_conditions')} "
            "where condition_id is not null union all "
            if conditions
            else ""
        )
        return (
            self.con.sql(f"""
            with images as (
                select image_id, min({ROW}) as k from stimuli where image_id is not null group by 1
            ), conditions as (
                select condition_id, min(k) as k from (
                    {declared}select condition_id, {ROW} + (1::bigint << 40) as k
                    from model_predictions where condition_id is not null
                ) group by 1
            ), predicted as (
                select distinct condition_id, image_id from model_predictions
                where image_id in (select image_id from images)
            )
            select c.condition_id,
                   count(p.image_id) as n_images_predicted,
                   (select count(*) from images) as n_images,
                   coalesce(list(i.image_id order by i.k) filter (where p.image_id is null and i.image_id is not null), [])
                       as missing_images
            from conditions c left join images i on true
            left join predicted p on p.condition_id = c.condition_id and p.image_id = i.image_id
            group by c.condition_id, c.k
            order by c.k""")
            .to_arrow_table()
            .to_pandas()
        )


def _keyed(key: tuple[str, ...]) -> str:
    """Rows that take part in a key: Great Expectations leaves out a missing single-column key,
    and a compound key only when all its parts are missing."""
    return "not (" + " and ".join(f"{quoted(k)} is null" for k in key) + ")"


def key_exists(columns: tuple[str, ...], table: str, ref_columns: tuple[str, ...]) -> str:
    """A foreign-key flag as SQL over the alias t: the row's columns are a key of `table`. A row
    with an empty key part refers to nothing, so it is no orphan (required columns are checked
    for nulls)."""
    empty = " or ".join(f"t.{quoted(c)} is null" for c in columns)
    match = " and ".join(f"r.{quoted(rc)} = t.{quoted(c)}" for c, rc in zip(columns, ref_columns))
    return f"({empty} or exists (select 1 from {quoted(table)} as r where {match}))"
