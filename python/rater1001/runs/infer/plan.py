"""What a run will do: one unit per (condition, stimulus, run id), each with its strategy's steps.
A stimulus is an image file or, in a study whose stimulus_kind is text, the stimuli row's text."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ...landing import file_sha256
from ...paths import ProjectPaths
from .conditions import Condition
from .images import ImageFile, inspect, limit_problem, resolve_inside
from .prompts import FER_STRATEGY, Strategy, strategy, text_strategy


class PlanError(ValueError):
    pass


@dataclass(frozen=True)
class Unit:
    condition: Condition
    strategy: Strategy
    image_id: str
    image_path: Path | None  # None for a text stimulus
    image_sha256: str  # of the image file, or of the text (an edited text is a new call)
    run_id: str
    image_mime: str = "image/png"  # from the decoded format, not the file name
    text: str | None = None  # the stimulus text, for a text study


@dataclass(frozen=True)
class TextStimulus:
    image_id: str
    text: str
    sha256: str


# In-process backends that read an image file: they have nothing to do with a text.
IMAGE_ONLY_BACKENDS = ("fer", "mlx")


def concurrency_group(c: Condition) -> str:
    return f"{c.backend}:{c.base_url or 'default'}"


@dataclass(frozen=True)
class Refusal:
    """A stimulus that will not be sent, and why (every condition, or the one named)."""

    image_id: str
    message: str
    condition_id: str | None = None


def _stimuli(paths: ProjectPaths, column: str, limit: int | None, image_ids: list[str] | None) -> list[dict]:
    """The landed stimuli (image_id and `column`) in image_id order, narrowed to the ids and limit."""
    src = paths.raw_table("stimuli")
    if not src.exists():
        raise PlanError(f"{src} does not exist: land the stimulus table first (`rater1001 ingest stimuli FILE`)")
    if column not in pq.read_schema(src).names:
        raise PlanError(f"{src} has no column {column!r}")
    stim = pq.read_table(src, columns=["image_id", column]).to_pylist()
    stim.sort(key=lambda r: r["image_id"])
    if image_ids:
        wanted = set(image_ids)
        unknown = wanted - {r["image_id"] for r in stim}
        if unknown:
            raise PlanError(f"{src}: no stimulus with image_id {sorted(unknown)[:5]}")
        stim = [r for r in stim if r["image_id"] in wanted]
    if limit is not None:
        stim = stim[:limit]
    return stim


def read_texts(
    paths: ProjectPaths, *, limit: int | None = None, image_ids: list[str] | None = None
) -> tuple[list[TextStimulus], list[Refusal]]:
    """The landed stimuli's texts, in image_id order; an empty text is refused, naming the row."""
    out, refused = [], []
    for r in _stimuli(paths, "text", limit, image_ids):
        text = r["text"]
        if text is None or not text.strip():
            refused.append(
                Refusal(
                    r["image_id"], f"{paths.raw_table('stimuli')}: image_id {r['image_id']!r}: column text is empty"
                )
            )
            continue
        out.append(TextStimulus(r["image_id"], text, hashlib.sha256(text.encode("utf-8")).hexdigest()))
    return out, refused


def read_images(
    paths: ProjectPaths, images_dir: Path, *, limit: int | None = None, image_ids: list[str] | None = None
) -> tuple[list[ImageFile], list[Refusal]]:
    """The landed stimuli's files, in image_id order, each inside `images_dir` and a decodable
    image; the others are refused with a message naming the stimuli row, column and value."""
    src = paths.raw_table("stimuli")
    stim = _stimuli(paths, "file_path", limit, image_ids)
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


def plan_units(
    conditions: list[Condition], images: list[ImageFile], run_id: str, strategy_override: str | None = None
) -> tuple[list[Unit], list[Refusal]]:
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


def plan_text_units(
    conditions: list[Condition], texts: list[TextStimulus], run_id: str, study, strategy_override: str | None = None
) -> list[Unit]:
    """One unit per (condition, text), asked with the study's text prompt."""
    units = []
    for c in conditions:
        if c.backend in IMAGE_ONLY_BACKENDS:
            raise PlanError(
                f"condition {c.condition_id}: backend {c.backend} reads image files; this study's "
                "stimuli are texts (use an openai, openai-compatible, gemini or anthropic condition)"
            )
        try:
            s = text_strategy(study, strategy_override or c.strategy)
        except ValueError as exc:
            raise PlanError(f"condition {c.condition_id}: {exc}") from None
        units.extend(Unit(c, s, t.image_id, None, t.sha256, run_id, "text/plain", t.text) for t in texts)
    return units


def prompt_inputs(unit: Unit, template: str | None, variables: dict[str, Any]) -> dict[str, Any]:
    """What a call's prompt was made of, for its ledger line: the stimulus by id and digest (a text
    stimulus by the digest of its text), never the image bytes or the text itself."""
    digest = (
        {"text_sha256": hashlib.sha256(unit.text.encode("utf-8")).hexdigest()}
        if unit.text is not None
        else {"image_sha256": unit.image_sha256}
    )
    return {"template": template, "variables": variables, "stimulus_id": unit.image_id, **digest}
