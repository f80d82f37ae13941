"""Google Gemini through the official `google-genai` SDK: temperature, seed, thinking budget
(including 0 and -1 = dynamic), include thoughts, thought text and thoughts_token_count."""

from __future__ import annotations

import time
from typing import Any

import httpx2
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from ...runner import RetryableCallError, SecretRegistry
from .base import GenRequest, call_translated, gen_result, status_error


def translate_error(exc: Exception):
    if isinstance(exc, httpx2.TimeoutException):
        return RetryableCallError("timeout", "request timed out")
    if isinstance(exc, (httpx2.TransportError,)):
        return RetryableCallError("connection", type(exc).__name__)
    if isinstance(exc, genai_errors.APIError):
        return status_error(
            int(exc.code or 0),
            str(exc.message or exc.status or "")[:200],
            getattr(getattr(exc, "response", None), "headers", None),
        )
    if isinstance(exc, ValueError):  # a body that is not JSON (truncated)
        return RetryableCallError("truncated", type(exc).__name__)
    return None


class GeminiBackend:
    name = "gemini"

    def __init__(self, *, base_url: str | None, api_key_env: str | None, secrets: SecretRegistry):
        self.base_url = base_url
        self._secrets = secrets
        key = secrets.from_env(api_key_env or "GEMINI_API_KEY")
        http = types.HttpOptions(base_url=base_url) if base_url else None
        # No retry_options: the SDK then never retries; our runner owns retries.
        self._client = genai.Client(api_key=key, http_options=http)

    def concurrency_group(self) -> str:
        return f"gemini:{self.base_url or 'default'}"

    def config(self, r: GenRequest) -> types.GenerateContentConfig:
        thinking = None
        if r.thinking_budget is not None or r.include_thoughts is not None:
            thinking = types.ThinkingConfig(thinking_budget=r.thinking_budget, include_thoughts=r.include_thoughts)
        return types.GenerateContentConfig(
            temperature=r.temperature,
            seed=r.seed,
            max_output_tokens=r.max_tokens,
            thinking_config=thinking,
            http_options=types.HttpOptions(timeout=int(r.timeout_s * 1000)),
        )

    def generate(self, request: GenRequest) -> dict[str, Any]:
        contents: list[Any] = [request.prompt]
        if request.image is not None:
            contents.insert(0, types.Part.from_bytes(data=request.image, mime_type=request.image_mime))
        started = time.perf_counter()
        resp = call_translated(
            lambda: self._client.models.generate_content(
                model=request.model_id, contents=contents, config=self.config(request)
            ),
            translate_error,
            self._secrets,
        )
        latency_ms = (time.perf_counter() - started) * 1000.0
        try:
            return _read(resp, latency_ms)
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            raise RetryableCallError("bad_response", f"not a generateContent response ({type(exc).__name__})") from None


def _read(resp, latency_ms: float) -> dict[str, Any]:
    if not resp.candidates and resp.prompt_feedback is None:
        # Neither an answer nor a blocked prompt (which is an answer: it is kept as a failed parse).
        raise RetryableCallError("bad_response", "a response with neither candidates nor prompt feedback")
    answer, thoughts, finish = [], [], None
    if resp.candidates:
        cand = resp.candidates[0]
        if cand.content is None and cand.finish_reason is None:
            # A real candidate has content or says why it has none (SAFETY, MAX_TOKENS, ...).
            raise RetryableCallError("bad_response", "a candidate with neither content nor finish reason")
        finish = (
            str(cand.finish_reason.value if hasattr(cand.finish_reason, "value") else cand.finish_reason)
            if cand.finish_reason is not None
            else None
        )
        for part in cand.content.parts if cand.content and cand.content.parts else []:
            if part.text is None:
                continue
            (thoughts if part.thought else answer).append(part.text)
    usage = resp.usage_metadata
    return gen_result(
        "".join(answer) if answer else None,
        thinking_text="\n".join(thoughts) if thoughts else None,
        input_tokens=getattr(usage, "prompt_token_count", None),
        output_tokens=getattr(usage, "candidates_token_count", None),
        thinking_tokens=getattr(usage, "thoughts_token_count", None),
        model_version=resp.model_version,
        finish_reason=finish,
        latency_ms=latency_ms,
    )
