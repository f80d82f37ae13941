"""The one small interface every backend implements."""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Protocol

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


def gen_result(text: str | None, *, thinking_text: str | None = None, input_tokens: int | None = None,
               output_tokens: int | None = None, thinking_tokens: int | None = None,
               model_version: str | None = None, finish_reason: str | None = None,
               latency_ms: float | None = None) -> dict[str, Any]:
    """A backend's answer as the JSON-able dict stored in the ledger."""
    return {"text": text, "thinking_text": thinking_text, "input_tokens": input_tokens,
            "output_tokens": output_tokens, "thinking_tokens": thinking_tokens,
            "model_version": model_version, "finish_reason": finish_reason, "latency_ms": latency_ms}


class Backend(Protocol):
    name: str

    def concurrency_group(self) -> str:
        """Calls in one group share a concurrency limit (one provider / one server)."""

    def generate(self, request: GenRequest) -> dict[str, Any]:
        """One call. Returns gen_result(...); raises runner.RetryableCallError / FatalCallError."""
