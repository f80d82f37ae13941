"""Ad hoc SQL on a built warehouse (`rater1001 sql`): one query printed as a table or written to
CSV / Parquet, or an interactive session in harlequin (a maintained terminal SQL client for DuckDB,
installed with rater1001). Read-only unless the user asks to write."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .freshness import connect
from .paths import ProjectPaths


class NoWarehouse(RuntimeError):
    pass


def _require(paths: ProjectPaths) -> None:
    if not paths.warehouse.exists():
        raise NoWarehouse(f"{paths.warehouse} does not exist; run `rater1001 run` (or `rater1001 build`) first")


def run_query(
    paths: ProjectPaths, sql: str, csv: Path | None = None, parquet: Path | None = None, write: bool = False
) -> str:
    """Run `sql`; write the result to `csv` / `parquet` when given. Returns the table as text (the
    DuckDB rendering: column types, and the first and last rows of a long result) or, when
    writing a file, what was written. Raises duckdb.Error for a bad query."""
    _require(paths)
    con = connect(paths, write=write)
    try:
        if csv is None and parquet is None:
            rel = con.sql(sql)
            return "ok" if rel is None else str(rel)  # None: a statement without a result
        query = sql.strip().rstrip(";")
        lines = []
        for target, fmt in ((csv, "csv, header"), (parquet, "parquet")):
            if target is not None:
                (n,) = con.execute(f"copy ({query}) to '{_quote(target)}' (format {fmt})").fetchone()
                lines.append(f"{n:,} rows -> {target}")
        return "\n".join(lines)
    finally:
        con.close()


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


def harlequin_command(paths: ProjectPaths, write: bool = False) -> list[str]:
    """The harlequin command line for an interactive session on the warehouse."""
    _require(paths)
    exe = shutil.which("harlequin") or str(Path(sys.executable).with_name("harlequin"))
    return [exe, "--adapter", "duckdb", *([] if write else ["--read-only"]), str(paths.warehouse)]
