"""One FER unit: one image through the in-process classifier (ledger first), then the study label.

The ledger keeps the classifier's own answer (face status, box, probabilities over its classes);
the row maps classes to the study's labels through seeds/fer_class_labels.csv and takes the argmax
over the study's labels only. A photo without a detected face gets no label: `emotion` is NULL,
`parse_path` is `failed` and `parse_detail` says `no_face`.
"""

from __future__ import annotations

import csv
import json
from functools import cache
from pathlib import Path
from typing import Any

from ..runner import CallSpec, Runner, call_key
from .backends.base import GenRequest
from .fer_model import study_label
from .plan import Unit, concurrency_group, prompt_inputs

CLASS_MAP_SEED = "fer_class_labels.csv"


@cache
def _class_maps(path: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            if not row.get("model_id") or not row.get("model_class"):
                raise ValueError(f"{path}: row {lineno}: columns model_id and model_class must not be empty")
            out.setdefault(row["model_id"], {})[row["model_class"]] = (row.get("category") or "").strip()
    return out


def class_map(seeds: Path, model_id: str) -> dict[str, str]:
    path = seeds / CLASS_MAP_SEED
    maps = _class_maps(str(path))
    if model_id not in maps:
        raise ValueError(f"{path}: no class -> label rows for model_id {model_id!r}")
    return maps[model_id]


def fer_unit(unit: Unit, runner: Runner, ctx) -> dict[str, Any]:
    c = unit.condition
    backend = ctx.backend(c)
    det = {
        "condition_id": c.condition_id,
        "backend": c.backend,
        "model_id": c.model_id,
        "image_id": unit.image_id,
        "image_sha256": unit.image_sha256,
        "run_id": unit.run_id,
        **backend.classifier.identity(),
    }
    spec = CallSpec(
        key=call_key(det),
        group=concurrency_group(c),
        meta={
            "condition_id": c.condition_id,
            "image_id": unit.image_id,
            "run_id": unit.run_id,
            "strategy": "fer",
            "step": "classify",
        },
        inputs=prompt_inputs(unit, None, {}),
    )
    result = runner.call(
        spec,
        lambda: backend.generate(
            GenRequest(
                prompt="", image=None, image_mime=None, image_path=str(unit.image_path), model_id=c.model_id or ""
            )
        ),
    )
    answer = json.loads(result["text"])
    labels = ctx.study.levels("emotion")
    emotion, by_label = (None, {})
    if answer["status"] == "ok":
        emotion, by_label = study_label(answer["probabilities"], class_map(ctx.seeds, c.model_id), labels)
    detail = {
        "step": "classify",
        "path": "json" if emotion else "failed",
        "status": answer["status"],
        "n_faces": answer["n_faces"],
        "box": answer["box"],
        "values": {"emotion": emotion} if emotion else {},
        "probabilities": answer["probabilities"],
        "label_probabilities": by_label or None,
    }
    return {
        "condition_id": c.condition_id,
        "image_id": unit.image_id,
        "run_id": unit.run_id,
        "strategy": "fer",
        "emotion": emotion,
        "valence": None,
        "arousal": None,
        "raw_responses": json.dumps([result["text"]]),
        "parse_path": detail["path"],
        "parse_detail": json.dumps([detail]),
        "thinking_text": None,
        "thinking_tokens": None,
        "latency_ms": result.get("latency_ms"),
        "input_tokens": None,
        "output_tokens": None,
    }
