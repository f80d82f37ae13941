"""The one small interface every backend implements."""

from __future__ import annotations

import base64
import email.utils
import time
from dataclasses import dataclass
from typing import Any, Protocol

from ...runner import FatalCallError, RetryableCallError

DEFAULT_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class GenRequest:
    prompt: str
    # None for a text-only request (the pairwise judge); every backend then sends the prompt alone.
    image: bytes | None
    image_mime: str | None
    model_id: str
    image_path: str | None = None  # for in-process backends that read files
    temperature: float | None = None
    seed: int | None = None
    image_detail: str | None = None
    thinking_budget: int | None = None
    include_thoughts: bool | None = None
    repetition_penalty: float | None = None
    max_tokens: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    def image_data_url(self) -> str:
        return f"data:{self.image_mime};base64,{base64.b64encode(self.image).decode('ascii')}"


def retry_after_seconds(headers) -> float | None:
    """Seconds from Retry-After / retry-after-ms (a number or an HTTP date); None when absent or
    unreadable ("soon"): the backoff then decides, and an odd header never ends the call."""
    if headers is None:
        return None
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
        if seconds != seconds:  # NaN
            return None
        return max(0.0, seconds / 1000.0 if name == "retry-after-ms" else seconds)
    return None


def status_error(status: int, excerpt: str, headers=None):
    """An HTTP error status -> the runner's error: 429, 5xx (Anthropic's 529 "overloaded" too), 408
    and 409 are retried (honouring Retry-After), the other 4xx are not. One mapping for every SDK."""
    if status == 429:
        return RetryableCallError("rate_limit", excerpt, status=status, retry_after=retry_after_seconds(headers))
    if status >= 500 or status in (408, 409):
        return RetryableCallError("server", excerpt, status=status, retry_after=retry_after_seconds(headers))
    kind = {400: "bad_request", 401: "auth", 403: "auth", 404: "not_found", 422: "bad_request"}.get(status, "client")
    return FatalCallError(kind, excerpt, status=status)


def call_translated(call, translate_error, secrets):
    """Run one SDK call; an SDK exception becomes the runner's retryable / fatal error (or is
    re-raised when the backend does not recognise it), with the key scrubbed from its text because
    a server may echo request headers in an error."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - translated or re-raised below
        err = translate_error(exc)
        if err is None:
            raise
        err.args = tuple(secrets.scrub(str(a)) for a in err.args)
        raise err from None


def int_or_none(value) -> int | None:
    # Usage counts go to integer columns; a server that sends "12" or 1.5 must not break landing.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def gen_result(
    text: str | None,
    *,
    thinking_text: str | None = None,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    thinking_tokens: int | None = None,
    model_version: str | None = None,
    finish_reason: str | None = None,
    latency_ms: float | None = None,
) -> dict[str, Any]:
    """A backend's answer as the JSON-able dict stored in the ledger."""
    return {
        "text": text,
        "thinking_text": thinking_text,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "thinking_tokens": thinking_tokens,
        "model_version": model_version,
        "finish_reason": finish_reason,
        "latency_ms": latency_ms,
    }


class Backend(Protocol):
    name: str

    def concurrency_group(self) -> str:
        """Calls in one group share a concurrency limit (one provider / one server)."""

    def generate(self, request: GenRequest) -> dict[str, Any]:
        """One call. Returns gen_result(...); raises runner.RetryableCallError / FatalCallError."""
