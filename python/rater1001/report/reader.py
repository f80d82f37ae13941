"""Read-only access to a built warehouse, plus what dbt knows about its models (descriptions and
the marts folder of each model, from target/manifest.json)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd

from ..freshness import connect
from ..paths import ProjectPaths


class Unavailable(Exception):
    """A section's input is absent or unusable; the message is shown in the report."""


@dataclass
class ModelDocs:
    description: str = ""
    columns: dict[str, str] = field(default_factory=dict)
    folder: str | None = None      # models/marts/<folder>, None for staging/intermediate/seeds


def read_model_docs(manifest_path: Path) -> dict[str, ModelDocs]:
    if not manifest_path.exists():
        return {}
    nodes = json.loads(manifest_path.read_text(encoding="utf-8")).get("nodes", {})
    docs = {}
    for node in nodes.values():
        if node.get("resource_type") not in ("model", "seed"):
            continue
        parts = Path(node.get("original_file_path", "")).parts
        folder = parts[2] if len(parts) > 3 and parts[:2] == ("models", "marts") else None
        docs[node["name"]] = ModelDocs(
            description=node.get("description", "") or "",
            columns={c: (v.get("description") or "") for c, v in node.get("columns", {}).items()},
            folder=folder,
        )
    return docs


class WarehouseReader:
    def __init__(self, paths: ProjectPaths, warehouse: Path | None = None):
        """Reads the published warehouse, or `warehouse` (a run's staged build)."""
        warehouse = warehouse or paths.warehouse
        if not warehouse.exists():
            raise FileNotFoundError(
                f"{warehouse}: no warehouse; run `rater1001 build` (or `rater1001 run`) first")
        self.con = connect(paths, warehouse)
        rows = self.con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position").fetchall()
        self.columns: dict[str, list[str]] = {}
        for table, column in rows:
            self.columns.setdefault(table, []).append(column)
        self.docs = read_model_docs(paths.root / "target" / "manifest.json")
        self.shape_reasons: dict[str, str] = {}  # what the study cannot support (applicability.py)
        self.factor_headers: dict[str, str] = {}  # slot column -> the study's name (applicability.py)
        self.audit_limits: list[str] = []  # what the audit leaves out for this study (applicability.py)

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def has(self, table: str) -> bool:
        return table in self.columns

    def require(self, tables) -> None:
        missing = [t for t in tables if not self.has(t)]
        if missing:
            raise Unavailable("not available: " + ", ".join(
                f"table {t} has not been built" for t in missing))

    def query(self, sql: str) -> pd.DataFrame:
        try:
            return self.con.execute(sql).df()
        except duckdb.Error as exc:
            first_line = str(exc).strip().splitlines()[0]
            raise Unavailable(f"could not be produced from the warehouse: {first_line}") from exc

    def export(self, table: str, folder: Path, csv: bool = True) -> list[Path]:
        """The whole table as folder/<table>.parquet (and .csv when `csv`), with the study's names
        for the slot columns, for a table too long to show in the page."""
        folder.mkdir(parents=True, exist_ok=True)
        cols = ", ".join(f'"{c}" AS "{self.factor_headers.get(c, c)}"' for c in self.columns[table])
        out = []
        for fmt, options in (("parquet", "FORMAT parquet"), ("csv", "FORMAT csv, HEADER"))[: 2 if csv else 1]:
            target = folder / f"{table}.{fmt}"
            quoted = str(target).replace("'", "''")
            self.con.execute(f"COPY (SELECT {cols} FROM {table}) TO '{quoted}' ({options})")
            out.append(target)
        return out

    def mart_folder_tables(self, folder: str) -> list[str]:
        return sorted(name for name, d in self.docs.items() if d.folder == folder and self.has(name))
