"""OpenAI chat completions, and any OpenAI-compatible server by base URL (vLLM, Ollama,
llama.cpp, mlx_vlm.server), through the official `openai` SDK."""

from __future__ import annotations

import time
from typing import Any

import openai

from ...runner import RetryableCallError, SecretRegistry
from .base import GenRequest, call_translated, gen_result, int_or_none, status_error


def translate_error(exc: Exception):
    """openai SDK exception -> runner error. Messages carry status and type only."""
    if isinstance(exc, openai.APITimeoutError):
        return RetryableCallError("timeout", "request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return RetryableCallError("connection", type(exc.__cause__ or exc).__name__)
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, str(getattr(exc, "message", ""))[:200], exc.response.headers)
    if isinstance(exc, (openai.APIResponseValidationError, ValueError)):
        # A truncated or garbled body: the server may do better next time.
        return RetryableCallError("truncated", type(exc).__name__)
    return None


class OpenAIBackend:
    def __init__(self, *, base_url: str | None, api_key_env: str | None, secrets: SecretRegistry, name: str = "openai"):
        self.name = name
        self.base_url = base_url
        self._secrets = secrets
        if name == "openai":
            key = secrets.from_env(api_key_env or "OPENAI_API_KEY")
        else:
            # Local servers usually need no key; the SDK insists on a non-empty string.
            key = (secrets.from_env(api_key_env, required=True) if api_key_env else None) or "EMPTY"
        self._client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0)

    def concurrency_group(self) -> str:
        return f"{self.name}:{self.base_url or 'default'}"

    def _body(self, r: GenRequest) -> dict[str, Any]:
        if r.image is None:
            content: Any = r.prompt
        else:
            image: dict[str, Any] = {"url": r.image_data_url()}
            if r.image_detail:
                image["detail"] = r.image_detail
            content = [{"type": "text", "text": r.prompt}, {"type": "image_url", "image_url": image}]
        body: dict[str, Any] = {"model": r.model_id, "messages": [{"role": "user", "content": content}]}
        if r.temperature is not None:
            body["temperature"] = r.temperature
        if r.seed is not None:
            body["seed"] = r.seed
        if r.max_tokens is not None:
            body["max_tokens"] = r.max_tokens
        extra: dict[str, Any] = {}
        if r.repetition_penalty is not None and self.name != "openai":
            extra["repetition_penalty"] = r.repetition_penalty  # vLLM / mlx_vlm.server extension
        if extra:
            body["extra_body"] = extra
        return body

    def generate(self, request: GenRequest) -> dict[str, Any]:
        started = time.perf_counter()
        resp = call_translated(
            lambda: self._client.chat.completions.create(**self._body(request), timeout=request.timeout_s),
            translate_error,
            self._secrets,
        )
        latency_ms = (time.perf_counter() - started) * 1000.0
        try:
            return self._read(resp, latency_ms)
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            # A 200 that is not a chat completion (an HTML error page from a proxy, `choices: [{}]`):
            # a server may well answer properly next time.
            raise RetryableCallError(
                "bad_response", f"not a chat completion ({type(resp).__name__}: {type(exc).__name__})"
            ) from None

    def _read(self, resp, latency_ms: float) -> dict[str, Any]:
        if not resp.choices:
            raise RetryableCallError("truncated", "response has no choices")
        choice = resp.choices[0]
        message = choice.message
        if message is None:
            raise RetryableCallError("bad_response", "a choice without a message")
        content = message.content
        if content is not None and not isinstance(content, str):
            raise RetryableCallError("bad_response", f"message content is {type(content).__name__}, not text")
        # Reasoning servers (vLLM, Ollama, DeepSeek-style) put the trace in a non-standard field.
        extra = getattr(message, "model_extra", None) or {}
        thinking = extra.get("reasoning_content") or extra.get("reasoning")
        usage = resp.usage
        reasoning_tokens = None
        if usage is not None and getattr(usage, "completion_tokens_details", None) is not None:
            reasoning_tokens = usage.completion_tokens_details.reasoning_tokens
        return gen_result(
            content,
            thinking_text=thinking if isinstance(thinking, str) else None,
            input_tokens=int_or_none(getattr(usage, "prompt_tokens", None)),
            output_tokens=int_or_none(getattr(usage, "completion_tokens", None)),
            thinking_tokens=int_or_none(reasoning_tokens),
            model_version=resp.model if isinstance(resp.model, str) else None,
            finish_reason=choice.finish_reason if isinstance(choice.finish_reason, str) else None,
            latency_ms=latency_ms,
        )
