"""What a run will do: one unit per (condition, image, run id), each with its strategy's steps."""
from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from ..landing import file_sha256
from ..paths import ProjectPaths
from .conditions import Condition
from .prompts import FER_STRATEGY, Strategy, strategy


class PlanError(ValueError):
    pass


@dataclass(frozen=True)
class Unit:
    condition: Condition
    strategy: Strategy
    image_id: str
    image_path: Path
    image_sha256: str
    run_id: str

    @property
    def image_mime(self) -> str:
        return mimetypes.guess_type(self.image_path.name)[0] or "image/png"


def concurrency_group(c: Condition) -> str:
    return f"{c.backend}:{c.base_url or 'default'}"


def read_images(paths: ProjectPaths, images_dir: Path, *, limit: int | None = None,
                image_ids: list[str] | None = None) -> list[tuple[str, Path, str]]:
    """(image_id, file, sha256) for the landed stimuli, in image_id order; every problem names the
    stimuli row, column and value."""
    src = paths.raw_table("stimuli")
    if not src.exists():
        raise PlanError(f"{src} does not exist: land the stimulus table first (`rater1001 ingest stimuli FILE`)")
    stim = pq.read_table(src, columns=["image_id", "file_path"]).to_pylist()
    stim.sort(key=lambda r: r["image_id"])
    if image_ids:
        wanted = set(image_ids)
        unknown = wanted - {r["image_id"] for r in stim}
        if unknown:
            raise PlanError(f"{src}: no stimulus with image_id {sorted(unknown)[:5]}")
        stim = [r for r in stim if r["image_id"] in wanted]
    if limit is not None:
        stim = stim[:limit]
    out, problems = [], []
    for i, r in enumerate(stim):
        fp = r["file_path"]
        if not fp:
            problems.append(f"{src}: image_id {r['image_id']!r}: column file_path is empty")
            continue
        f = (images_dir / fp)
        if not f.is_file():
            problems.append(f"{src}: image_id {r['image_id']!r}: column file_path {fp!r}: no file {f}")
            continue
        out.append((r["image_id"], f, file_sha256(f)))
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise PlanError("\n".join(problems[:10]) + more)
    return out


def plan_units(conditions: list[Condition], images: list[tuple[str, Path, str]], run_id: str,
               strategy_override: str | None = None) -> list[Unit]:
    units = []
    for c in conditions:
        s = FER_STRATEGY if c.backend == "fer" else strategy(strategy_override or c.strategy or "context-carry")
        units.extend(Unit(c, s, image_id, f, sha, run_id) for image_id, f, sha in images)
    return units
