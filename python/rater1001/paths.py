"""Where things live in a project folder. Every path derives from one root so tests can point the
whole tool at a temporary folder (RATER1001_HOME or an explicit argument)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# The repository this package was installed from (editable install): its seeds, models and
# study.yml are the defaults when a project folder does not carry its own.
REPO_ROOT = Path(__file__).resolve().parents[2]


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
        laid over them (a folder may carry only its label set), materialised in .rater1001/seeds
        so that dbt, which takes one seed path, reads the same files as the Python steps."""
        own = self.root / "seeds"
        if not own.is_dir() or own.resolve() == (REPO_ROOT / "seeds").resolve():
            return REPO_ROOT / "seeds"
        merged = self.root / ".rater1001" / "seeds"
        merged.mkdir(parents=True, exist_ok=True)
        wanted = {p.name: p for p in (REPO_ROOT / "seeds").iterdir() if p.is_file()}
        wanted.update({p.name: p for p in own.iterdir() if p.is_file()})
        for stale in merged.iterdir():
            if stale.name not in wanted:
                stale.unlink()
        for name, src in wanted.items():
            data = src.read_bytes()
            dst = merged / name
            if not dst.exists() or dst.read_bytes() != data:
                dst.write_bytes(data)
        return merged

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
