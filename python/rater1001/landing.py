"""Writing the landing zone: typed Parquet, written atomically, and a manifest of what landed.

A file is written to a temporary name in the same folder, fsynced, then renamed over the target,
so a crash leaves either the old file or the new one, never half of one. The manifest
(data/raw/_manifest.parquet) has one row per landed table: where it came from, a content hash
(so re-ingesting the same file is recognised), row counts and whether it is simulated data.
Every output built from a landing zone with any simulated table says SIMULATED.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .contract import TableSpec
from .paths import ProjectPaths

MANIFEST_SCHEMA = pa.schema(
    [
        pa.field("table_name", pa.string(), nullable=False),
        pa.field("source", pa.string()),
        pa.field("source_sha256", pa.string()),
        pa.field("rows_landed", pa.int64()),
        pa.field("rows_rejected", pa.int64()),
        pa.field("is_simulated", pa.bool_(), nullable=False),
        pa.field("landed_at", pa.timestamp("us", tz="UTC")),
    ]
)


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            pq.write_table(table, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def to_arrow(df: pd.DataFrame, spec: TableSpec) -> pa.Table:
    """Cast a frame holding exactly the contract's columns to the contract's Arrow schema."""
    schema = spec.arrow_schema()
    frame = df.reindex(columns=spec.column_names)
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class ManifestEntry:
    table_name: str
    source: str
    source_sha256: str | None
    rows_landed: int
    rows_rejected: int
    is_simulated: bool


def read_manifest(paths: ProjectPaths) -> pd.DataFrame:
    if paths.manifest.exists():
        return pq.read_table(paths.manifest).to_pandas()
    return MANIFEST_SCHEMA.empty_table().to_pandas()


def record_landing(paths: ProjectPaths, entry: ManifestEntry) -> None:
    """Replace the manifest row of entry.table_name (one row per table)."""
    current = read_manifest(paths)
    current = current[current["table_name"] != entry.table_name]
    row = pd.DataFrame(
        [{**entry.__dict__, "landed_at": datetime.now(timezone.utc)}]
    )
    merged = pd.concat([current, row], ignore_index=True) if len(current) else row
    write_parquet_atomic(
        pa.Table.from_pandas(merged, schema=MANIFEST_SCHEMA, preserve_index=False), paths.manifest
    )


def is_simulated(paths: ProjectPaths) -> bool:
    m = read_manifest(paths)
    return bool(len(m)) and bool(m["is_simulated"].any())
