"""A project with stimuli and raters landed, large rating files with a share of bad rows, and the
landing state of a table (manifest row, landed rows, rejected rows) to compare before and after a
fault. Used by the fault-injection tests of ingest and of the project lock."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from rater1001.ingest import ingest_file
from rater1001.landing import TMP_SUFFIX, read_manifest
from rater1001.paths import ProjectPaths, project

EMOTIONS = ["happy", "sad", "angry", "fear", "disgust", "neutral"]


@contextlib.contextmanager
def mounted_tmpfs(mnt: Path, options: str, what: str):
    """Mount a tmpfs with these options on the empty folder mnt for the duration, or skip the test
    (mounting needs root, or a system that lets this user mount); `what` names it in the reason."""
    import pytest

    mnt.mkdir()
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip(f"no mount command: cannot make {what}")
    if r.returncode:
        pytest.skip(f"cannot mount {what} here ({r.stderr.strip()})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def make_rating_project(root: Path, n_raters: int = 100, n_images: int = 720) -> ProjectPaths:
    """stimuli img0000.. and raters r000.. landed through ingest."""
    paths = project(root)
    src = root / "sources"
    src.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(
        {
            "image_id": [f"img{i:04d}" for i in range(n_images)],
            "identity_id": [f"id{i // 6}" for i in range(n_images)],
            "race": "Korean",
            "gender": "female",
            "emotion": [EMOTIONS[i % 6] for i in range(n_images)],
        }
    ).to_csv(src / "stimuli.csv", index=False)
    pd.DataFrame({"rater_id": [f"r{i:03d}" for i in range(n_raters)], "gender": "male", "age": 30}).to_csv(
        src / "raters.csv", index=False
    )
    assert ingest_file(paths, "stimuli", src / "stimuli.csv").rows_rejected == 0
    assert ingest_file(paths, "raters", src / "raters.csv").rows_rejected == 0
    return paths


def write_ratings(path: Path, n: int, bad_share: float, seed: int, n_raters: int = 100, n_images: int = 720) -> Path:
    """n ratings (distinct rater x image pairs) of which about bad_share are bad in assorted ways."""
    rng = np.random.default_rng(seed)
    pairs = rng.choice(n_raters * n_images, size=n, replace=False)
    frame = pd.DataFrame(
        {
            "rater_id": [f"r{p // n_images:03d}" for p in pairs],
            "image_id": [f"img{p % n_images:04d}" for p in pairs],
            "valence": rng.integers(1, 10, n).astype(str),
            "arousal": rng.integers(1, 10, n).astype(str),
            "naturalness": rng.integers(1, 10, n).astype(str),
            "trial_index": (np.arange(n) % 72 + 1).astype(str),
        }
    )
    bad = np.flatnonzero(rng.random(n) < bad_share)
    kinds = rng.integers(0, 4, len(bad))
    frame.loc[bad[kinds == 0], "valence"] = "10"
    frame.loc[bad[kinds == 1], "arousal"] = "high"
    frame.loc[bad[kinds == 2], "image_id"] = "img_unknown"
    frame.loc[bad[kinds == 3], "naturalness"] = "4.5"
    frame.to_csv(path, index=False)
    return path


@dataclass
class LandingState:
    manifest: tuple | None  # (source, sha256, rows_landed, rows_rejected) of the table's manifest row
    landed: pa.Table | None
    rejected: pa.Table | None

    def same_as(self, other: LandingState) -> bool:
        def eq(a, b):
            return (a is None and b is None) or (a is not None and b is not None and a.equals(b))

        return self.manifest == other.manifest and eq(self.landed, other.landed) and eq(self.rejected, other.rejected)


def landing_state(paths: ProjectPaths, table: str = "human_ratings") -> LandingState:
    def read(path):
        return pq.read_table(path) if path.exists() else None

    m = read_manifest(paths)
    row = m[m["table_name"] == table]
    manifest = None if not len(row) else tuple(row.iloc[0][["source", "source_sha256", "rows_landed", "rows_rejected"]])
    return LandingState(manifest, read(paths.raw_table(table)), read(paths.rejected_table(table)))


def temporaries(paths: ProjectPaths) -> list[Path]:
    folders = (paths.raw, paths.rejected, paths.raw.parent)
    return [p for f in folders if f.is_dir() for p in f.iterdir() if p.name.endswith(TMP_SUFFIX)]


def cli(paths: ProjectPaths, *args: str, wait: bool = True, **kw):
    """`rater1001 --home ROOT ARGS` in a fresh process (Popen when wait is False)."""
    cmd = [sys.executable, "-m", "rater1001.cli", "--home", str(paths.root), *args]
    env = {**os.environ, **kw.pop("env", {})}
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, **kw)
