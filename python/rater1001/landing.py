"""Writing the landing zone: typed Parquet, written atomically, and a manifest of what landed.

A file is written to a temporary name in the same folder, fsynced, then renamed over the target,
so a crash leaves either the old file or the new one, never half of one. Several files that only
make sense together (an ingest's table, its rejected rows and the manifest row that describes both)
are published by `commit`: all are staged first, then one small journal naming them is written
atomically (the commit point), then the renames follow. A crash before the journal leaves the old
files and some temporaries; a crash after it is rolled forward by `recover`, which every writer runs
when it takes the project lock (`lock.project_lock`), and which also deletes temporaries left by a
killed writer. The manifest (data/raw/_manifest.parquet) has one row per landed table: where it
came from, a content hash (so re-ingesting the same file is recognised), row counts and whether it
is simulated data. Every output built from a landing zone with any simulated table says SIMULATED.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .contract import TableSpec
from .paths import ProjectPaths

# Temporary files end in this; any left in the landing folders belong to a killed writer.
TMP_SUFFIX = ".tmp"
# pyarrow's default rows per row group: a table is written one row group at a time, each made
# contiguous, so the file is the one pq.write_table writes for the table in one piece, and a
# table assembled from parts is never copied whole.
ROW_GROUP_ROWS = 1024 * 1024
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
    tmp = _stage(table, path)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _stage(table: pa.Table, path: Path) -> Path:
    """Write table, fsynced, to a temporary file beside path (removed again if writing fails)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            with pq.ParquetWriter(fh, table.schema) as writer:
                for start in range(0, max(table.num_rows, 1), ROW_GROUP_ROWS):
                    writer.write_table(table.slice(start, ROW_GROUP_ROWS).combine_chunks())
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _fsync_dir(folder: Path) -> None:
    # a rename is only durable once its folder is; best effort where folders cannot be opened
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _journal(paths: ProjectPaths) -> Path:
    return paths.raw.parent / ".landing_commit.json"


def commit(paths: ProjectPaths, files: dict[Path, pa.Table | None]) -> None:
    """Publish several files of the project as one change: a table replaces its target, None deletes
    it. Either all of them change or (if this fails or is killed before the commit point) none."""
    staged: list[tuple[Path, Path]] = []
    try:
        for target, table in files.items():
            if table is not None:
                staged.append((_stage(table, target), target))
    except BaseException:
        for tmp_file, _ in staged:
            tmp_file.unlink(missing_ok=True)
        raise
    publish(paths, staged, [target for target, table in files.items() if table is None])


def publish(paths: ProjectPaths, staged: list[tuple[Path, Path]], delete: list[Path] = ()) -> None:
    """Rename each complete staged file over its target and delete `delete`, as one change: a journal
    naming them is written atomically first (the commit point), so a process killed before it
    changed nothing and one killed after it is rolled forward by `recover`. Staged files are removed
    if the journal cannot be written (a full disk)."""
    journal = _journal(paths)
    try:
        record = {
            "replace": [[_rel(paths, tmp), _rel(paths, target)] for tmp, target in staged],
            "delete": [_rel(paths, target) for target in delete],
        }
        journal.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f"{journal.name}.", suffix=TMP_SUFFIX, dir=journal.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, journal)  # the commit point
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _fsync_dir(journal.parent)
    except BaseException:
        for tmp_file, _ in staged:
            tmp_file.unlink(missing_ok=True)
        raise
    _apply(paths, record)


def pending_publish(paths: ProjectPaths) -> bool:
    """A change past its commit point whose renames a killed process left unfinished."""
    return _journal(paths).exists()


def _rel(paths: ProjectPaths, path: Path) -> str:
    return str(Path(path).resolve().relative_to(paths.root.resolve()))


def _apply(paths: ProjectPaths, record: dict) -> None:
    """Carry out a committed journal. Idempotent: a staged file already renamed is skipped, so a
    journal interrupted half-way is finished by running it again."""
    folders = set()
    for tmp, target in record["replace"]:
        tmp_path, target_path = paths.root / tmp, paths.root / target
        if tmp_path.exists():
            target_path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp_path, target_path)
        folders.add(target_path.parent)
    for target in record["delete"]:
        (paths.root / target).unlink(missing_ok=True)
        folders.add((paths.root / target).parent)
    for folder in folders:
        _fsync_dir(folder)
    _journal(paths).unlink(missing_ok=True)
    _fsync_dir(_journal(paths).parent)


def recover(paths: ProjectPaths) -> bool:
    """Finish a commit interrupted after its commit point, then delete temporary files left by a
    killed writer. Only safe while holding the project lock. Returns whether a commit was finished."""
    journal = _journal(paths)
    finished = False
    if journal.exists():
        _apply(paths, json.loads(journal.read_text(encoding="utf-8")))
        finished = True
    for folder in (paths.raw, paths.rejected, journal.parent):
        if folder.is_dir():
            for tmp in folder.glob(f".*{TMP_SUFFIX}"):
                tmp.unlink(missing_ok=True)
    shutil.rmtree(paths.staging, ignore_errors=True)  # a killed build's unpublished warehouse
    return finished


def to_arrow(df: pd.DataFrame, spec: TableSpec) -> pa.Table:
    """Cast a frame holding exactly the contract's columns to the contract's Arrow schema."""
    schema = spec.arrow_schema()
    frame = df.reindex(columns=spec.column_names)
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


def bytes_sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


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


def manifest_with(paths: ProjectPaths, entry: ManifestEntry) -> pa.Table:
    """The manifest with the row of entry.table_name replaced (one row per table)."""
    current = read_manifest(paths)
    current = current[current["table_name"] != entry.table_name]
    row = pd.DataFrame([{**entry.__dict__, "landed_at": datetime.now(UTC)}])
    merged = pd.concat([current, row], ignore_index=True) if len(current) else row
    return pa.Table.from_pandas(merged, schema=MANIFEST_SCHEMA, preserve_index=False)


def record_landing(paths: ProjectPaths, entry: ManifestEntry) -> None:
    """Replace the manifest row of entry.table_name (one row per table)."""
    write_parquet_atomic(manifest_with(paths, entry), paths.manifest)


def is_simulated(paths: ProjectPaths) -> bool:
    m = read_manifest(paths)
    return bool(len(m)) and bool(m["is_simulated"].any())
