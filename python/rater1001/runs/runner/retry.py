"""Retries with exponential backoff and full jitter (tenacity), honouring Retry-After, with a cap
on the total time one call may spend retrying."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_random_exponential,
)

from .errors import CallError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 8
    initial_backoff_s: float = 1.0  # scale of the first backoff
    max_backoff_s: float = 60.0  # cap of one computed backoff (Retry-After may ask for more)
    max_retry_time_s: float = 600.0  # cap on the total time one call spends (attempts + waits)


class _WaitHonouringRetryAfter(tenacity.wait.wait_base):
    """Full-jitter exponential backoff, but never shorter than the server's Retry-After."""

    def __init__(self, policy: RetryPolicy):
        self._backoff = wait_random_exponential(multiplier=policy.initial_backoff_s, max=policy.max_backoff_s)

    def __call__(self, state: RetryCallState) -> float:
        computed = self._backoff(state)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        return max(computed, retry_after) if retry_after is not None else computed


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, CallError) and exc.retryable


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[CallError, float, int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, int]:
    """Run fn until it succeeds, raises a non-retryable error, runs out of attempts, or the next
    wait would cross the total retry-time cap. Returns (result, attempts); re-raises the last
    CallError otherwise (with `.attempts` set)."""

    def before_sleep(state: RetryCallState) -> None:
        if on_retry is not None:
            on_retry(state.outcome.exception(), state.upcoming_sleep, state.attempt_number)

    retrying = Retrying(
        retry=retry_if_exception(_retryable),
        wait=_WaitHonouringRetryAfter(policy),
        # stop_before_delay: give up *before* a sleep that would cross the cap, so a Retry-After of
        # an hour ends the call now instead of blocking a worker for an hour.
        stop=stop_after_attempt(policy.max_attempts) | stop_before_delay(policy.max_retry_time_s),
        before_sleep=before_sleep,
        sleep=sleep,
        reraise=True,
    )
    attempts = 0

    def counted() -> T:
        nonlocal attempts
        attempts += 1
        return fn()

    try:
        return retrying(counted), attempts
    except CallError as exc:
        exc.attempts = attempts
        raise
