"""Where things live in a project folder. Every path derives from one root so tests can point the
whole tool at a temporary folder (RATER1001_HOME or an explicit argument)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The repository this package was installed from (editable install): its seeds, models and
# study.yml are the defaults when a project folder does not carry its own.
REPO_ROOT = Path(__file__).resolve().parents[2]

# A project folder's own seeds laid over the repository's, one folder per distinct set of files
# (named by their digest) that every project folder with the same files shares: dbt hashes the seed
# path into its parse state, so a path of each folder's own made every such study parse the whole
# project again (docs/performance.md, "Parse reuse").
SEED_SETS = REPO_ROOT / "target" / "seed_sets"


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @property
    def raw(self) -> Path:
        return self.root / "data" / "raw"

    @property
    def rejected(self) -> Path:
        return self.root / "data" / "rejected"

    @property
    def manifest(self) -> Path:
        return self.raw / "_manifest.parquet"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse" / "rater1001.duckdb"

    @property
    def staging(self) -> Path:
        """Where a build writes before it is published: dbt runs here, so the profile's relative
        path (warehouse/rater1001.duckdb) names staging/warehouse/rater1001.duckdb, and the staged
        report is beside it. Readers never look here (warehouse.py, "Publishing")."""
        return self.root / "warehouse" / ".next"

    @property
    def staged_warehouse(self) -> Path:
        return self.staging / "warehouse" / "rater1001.duckdb"

    @property
    def failed_warehouse(self) -> Path:
        """The last failed build's warehouse, kept for a look at what failed; nothing reads it. Named
        like the warehouse: DuckDB names a file's catalog after it, and the views refer to it."""
        return self.root / "warehouse" / "failed" / "rater1001.duckdb"

    @property
    def build_record(self) -> Path:
        """What the last build did (running, failed and why, published), beside the warehouse."""
        return self.root / "warehouse" / "last_build.json"

    @property
    def report(self) -> Path:
        return self.root / "report"

    @property
    def data_docs(self) -> Path:
        return self.report / "data_quality"

    @property
    def study_file(self) -> Path:
        own = self.root / "study.yml"
        return own if own.exists() else REPO_ROOT / "study.yml"

    @property
    def seeds(self) -> Path:
        """The project's seed folder: the repository's seeds with the project's own seeds/ files
        laid over them (a folder may carry only its label set), so that dbt, which takes one seed
        path, reads the same files as the Python steps. Materialised once per distinct set of files
        in SEED_SETS, or in .rater1001/seeds of the folder when the repository is read-only."""
        own = self.root / "seeds"
        if not own.is_dir() or own.resolve() == (REPO_ROOT / "seeds").resolve():
            return REPO_ROOT / "seeds"
        wanted = {p.name: p for p in (REPO_ROOT / "seeds").iterdir() if p.is_file()}
        wanted.update({p.name: p for p in own.iterdir() if p.is_file()})
        files = {name: wanted[name].read_bytes() for name in sorted(wanted)}
        digest = hashlib.sha256()
        for name, data in files.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        shared = SEED_SETS / digest.hexdigest()[:16]
        if shared.is_dir():
            return shared
        try:
            return _materialise(files, shared)
        except OSError:
            return _synchronise(files, self.root / ".rater1001" / "seeds")

    def seed_file(self, name: str) -> Path:
        own = self.root / "seeds" / name
        return own if own.is_file() else REPO_ROOT / "seeds" / name

    def raw_table(self, table: str) -> Path:
        return self.raw / f"{table}.parquet"

    def rejected_table(self, table: str) -> Path:
        return self.rejected / f"{table}.parquet"


def project(root: str | os.PathLike | None = None) -> ProjectPaths:
    if root is None:
        root = os.environ.get("RATER1001_HOME") or Path.cwd()
    return ProjectPaths(Path(root).resolve())


def _materialise(files: dict[str, bytes], folder: Path) -> Path:
    """Writes the files into a new folder under a temporary name, then renames it: parallel
    builds see the whole set or none; a folder once there is never written again."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    tmp.chmod(0o755)  # mkdtemp's 0700 would stay on the shared folder
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    try:
        tmp.rename(folder)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not folder.is_dir():  # not another process's copy of the same files: a real error
            raise
    return folder


def _synchronise(files: dict[str, bytes], folder: Path) -> Path:
    """The folder holds exactly `files` afterwards (files rewritten only where they differ)."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.iterdir():
        if stale.name not in files:
            stale.unlink()
    for name, data in files.items():
        dst = folder / name
        if not dst.exists() or dst.read_bytes() != data:
            dst.write_bytes(data)
    return folder
