"""mlx-vlm in-process (Apple silicon; on Linux it needs `mlx[cpu]`). Imported lazily so the rest
of the tool works where mlx is absent. Uses mlx-vlm's documented API: load, load_config,
prompt_utils.apply_chat_template, generate (returns a GenerationResult with text and token
counts in current releases, a plain string in old ones)."""

from __future__ import annotations

import importlib
import threading
import time
from typing import Any

from ...runner import FatalCallError
from .base import GenRequest, gen_result

# Room for the JSON answer after a thinking trace when a thinking budget caps generation.
ANSWER_TOKENS = 256


class MlxUnavailable(RuntimeError):
    pass


def _import_mlx_vlm():
    try:
        mlx_vlm = importlib.import_module("mlx_vlm")
        prompt_utils = importlib.import_module("mlx_vlm.prompt_utils")
        utils = importlib.import_module("mlx_vlm.utils")
    except ImportError as exc:
        raise MlxUnavailable(
            "the mlx backend needs the mlx-vlm package (Apple silicon: `pip install mlx-vlm`; "
            f"Linux: `pip install mlx[cpu] mlx-vlm`), which is not importable here ({exc}). "
            "Run this condition on a Mac, or serve the model with `mlx_vlm.server` / Ollama and use "
            "backend openai-compatible with a base_url."
        ) from None
    return mlx_vlm, prompt_utils, utils


class MlxBackend:
    name = "mlx"

    def __init__(self) -> None:
        self._mlx_vlm, self._prompt_utils, self._utils = _import_mlx_vlm()
        self._models: dict[str, tuple[Any, Any, Any]] = {}
        # One model in one process: calls are serialised (the concurrency group limit is 1 too).
        self._lock = threading.Lock()

    def concurrency_group(self) -> str:
        return "mlx:in-process"

    def _model(self, model_id: str):
        if model_id not in self._models:
            model, processor = self._mlx_vlm.load(model_id)
            config = self._utils.load_config(model_id)
            self._models[model_id] = (model, processor, config)
        return self._models[model_id]

    def generate(self, request: GenRequest) -> dict[str, Any]:
        if not request.image_path:
            raise FatalCallError("bad_request", "the mlx backend needs the image as a file path")
        with self._lock:
            model, processor, config = self._model(request.model_id)
            prompt = self._prompt_utils.apply_chat_template(processor, config, request.prompt, num_images=1)
            kwargs: dict[str, Any] = {"verbose": False}
            if request.temperature is not None:
                kwargs["temperature"] = request.temperature
            if request.repetition_penalty is not None:
                kwargs["repetition_penalty"] = request.repetition_penalty
            max_tokens = request.max_tokens
            if request.thinking_budget is not None and request.thinking_budget > 0:
                kwargs["thinking_budget"] = request.thinking_budget
                max_tokens = max_tokens or request.thinking_budget + ANSWER_TOKENS
            if max_tokens is not None:
                kwargs["max_tokens"] = max_tokens
            started = time.perf_counter()
            out = self._mlx_vlm.generate(model, processor, prompt, [request.image_path], **kwargs)
            latency_ms = (time.perf_counter() - started) * 1000.0
        if isinstance(out, str):
            return gen_result(out, model_version=request.model_id, latency_ms=latency_ms)
        return gen_result(
            getattr(out, "text", None),
            input_tokens=getattr(out, "prompt_tokens", None),
            output_tokens=getattr(out, "generation_tokens", None),
            model_version=request.model_id,
            latency_ms=latency_ms,
        )
