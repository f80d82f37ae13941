"""What a run will do: one unit per (condition, image, run id), each with its strategy's steps."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from ..landing import file_sha256
from ..paths import ProjectPaths
from .conditions import Condition
from .images import ImageFile, inspect, limit_problem, resolve_inside
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
    image_mime: str = "image/png"  # from the decoded format, not the file name


def concurrency_group(c: Condition) -> str:
    return f"{c.backend}:{c.base_url or 'default'}"


@dataclass(frozen=True)
class Refusal:
    """A stimulus that will not be sent, and why (every condition, or the one named)."""
    image_id: str
    message: str
    condition_id: str | None = None


def read_images(paths: ProjectPaths, images_dir: Path, *, limit: int | None = None,
                image_ids: list[str] | None = None) -> tuple[list[ImageFile], list[Refusal]]:
    """The landed stimuli's files, in image_id order, each inside `images_dir` and a decodable
    image; the others are refused with a message naming the stimuli row, column and value."""
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
    out, refused = [], []
    for r in stim:
        fp = r["file_path"]
        where = f"{src}: image_id {r['image_id']!r}: column file_path"
        if not fp:
            refused.append(Refusal(r["image_id"], f"{where} is empty"))
            continue
        f, why = resolve_inside(images_dir, fp)
        if why is None:
            try:
                fmt, w, h, animated = inspect(f)
            except ValueError as exc:
                why = f"{f} {exc}"
        if why is not None:
            refused.append(Refusal(r["image_id"], f"{where} {fp!r}: {why}"))
            continue
        out.append(ImageFile(r["image_id"], f, file_sha256(f), fmt, w, h, f.stat().st_size, animated))
    return out, refused


def plan_units(conditions: list[Condition], images: list[ImageFile], run_id: str,
               strategy_override: str | None = None) -> tuple[list[Unit], list[Refusal]]:
    """One unit per (condition, image); an image the condition's backend does not accept is refused."""
    units, refused = [], []
    for c in conditions:
        s = FER_STRATEGY if c.backend == "fer" else strategy(strategy_override or c.strategy or "context-carry")
        for im in images:
            why = limit_problem(im, c.backend)
            if why:
                refused.append(Refusal(im.image_id, f"image_id {im.image_id!r} ({im.path.name}) {why}", c.condition_id))
                continue
            units.append(Unit(c, s, im.image_id, im.path, im.sha256, run_id, im.mime))
    return units, refused
