"""Anthropic's Messages API (Claude; the lab log's second judge, Claude Sonnet 4.6) through the
official `anthropic` SDK: text and image requests, an extended-thinking budget, thinking blocks
kept apart from the answer, refusals kept as answers, usage for the cost.

The SDK in the lock (anthropic 2.x) has no temperature or seed parameter on messages.create, so a
condition's temperature and seed are recorded but not sent (docs/infer.md)."""

from __future__ import annotations

import base64
import time
from typing import Any

import anthropic

from ...runner import RetryableCallError, SecretRegistry
from .base import GenRequest, call_translated, gen_result, int_or_none, status_error

# The Messages API requires max_tokens; this fits a JSON answer or a verdict with its reason.
DEFAULT_MAX_TOKENS = 1024


def translate_error(exc: Exception):
    """anthropic SDK exception -> runner error (the SDK's exception tree mirrors openai's)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return RetryableCallError("timeout", "request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return RetryableCallError("connection", type(exc.__cause__ or exc).__name__)
    if isinstance(exc, anthropic.APIStatusError):
        return status_error(exc.status_code, str(getattr(exc, "message", ""))[:200], exc.response.headers)
    if isinstance(exc, (anthropic.APIResponseValidationError, ValueError)):
        return RetryableCallError("truncated", type(exc).__name__)
    return None


class AnthropicBackend:
    name = "anthropic"

    def __init__(self, *, base_url: str | None, api_key_env: str | None, secrets: SecretRegistry):
        self.base_url = base_url
        self._secrets = secrets
        key = secrets.from_env(api_key_env or "ANTHROPIC_API_KEY")
        # max_retries=0: the runner owns retries (one policy for every provider).
        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=0)

    def concurrency_group(self) -> str:
        return f"anthropic:{self.base_url or 'default'}"

    def body(self, r: GenRequest) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if r.image is not None:
            content.append(
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": r.image_mime,
                        "data": base64.b64encode(r.image).decode("ascii"),
                    },
                }
            )
        content.append({"type": "text", "text": r.prompt})
        max_tokens = r.max_tokens or DEFAULT_MAX_TOKENS
        body: dict[str, Any] = {"model": r.model_id, "messages": [{"role": "user", "content": content}]}
        # The catalog's thinking budgets read as Gemini's: N > 0 tokens, 0 = no thinking, -1 = the
        # model decides (Anthropic's "adaptive").
        if r.thinking_budget is not None and r.thinking_budget > 0:
            # The budget counts inside max_tokens; room for the answer is added on top of it.
            body["thinking"] = {"type": "enabled", "budget_tokens": r.thinking_budget}
            max_tokens = max(max_tokens, r.thinking_budget + DEFAULT_MAX_TOKENS)
        elif r.thinking_budget == 0:
            body["thinking"] = {"type": "disabled"}
        elif r.thinking_budget == -1:
            body["thinking"] = {"type": "adaptive"}
        body["max_tokens"] = max_tokens
        return body

    def generate(self, request: GenRequest) -> dict[str, Any]:
        started = time.perf_counter()
        resp = call_translated(
            lambda: self._client.messages.create(**self.body(request), timeout=request.timeout_s),
            translate_error,
            self._secrets,
        )
        latency_ms = (time.perf_counter() - started) * 1000.0
        try:
            return _read(resp, latency_ms)
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            raise RetryableCallError("bad_response", f"not a Messages API response ({type(exc).__name__})") from None


def _read(resp, latency_ms: float) -> dict[str, Any]:
    if getattr(resp, "type", None) != "message" or not isinstance(resp.content, list):
        raise RetryableCallError("bad_response", "not a Messages API message")
    answer, thoughts = [], []
    for block in resp.content:
        kind = getattr(block, "type", None)
        if kind == "text" and isinstance(block.text, str):
            answer.append(block.text)
        elif kind == "thinking" and isinstance(getattr(block, "thinking", None), str):
            thoughts.append(block.thinking)
    if not answer and resp.stop_reason != "refusal" and not thoughts:
        # A refusal without text is an answer (kept, parsed as a failure); nothing at all is not.
        raise RetryableCallError("bad_response", f"a message without text (stop_reason {resp.stop_reason!r})")
    usage = resp.usage
    details = getattr(usage, "output_tokens_details", None)
    return gen_result(
        "".join(answer) if answer else None,
        thinking_text="\n".join(thoughts) if thoughts else None,
        input_tokens=int_or_none(getattr(usage, "input_tokens", None)),
        # output_tokens already includes the thinking tokens (billed once, as output).
        output_tokens=int_or_none(getattr(usage, "output_tokens", None)),
        thinking_tokens=int_or_none(getattr(details, "thinking_tokens", None)),
        model_version=resp.model if isinstance(resp.model, str) else None,
        finish_reason=resp.stop_reason if isinstance(resp.stop_reason, str) else None,
        latency_ms=latency_ms,
    )
