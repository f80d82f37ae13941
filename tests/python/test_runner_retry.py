"""Backoff with jitter, Retry-After honoured, fatal errors not retried, the total-time cap."""
from __future__ import annotations

import time

import pytest

from rater1001.runner import FatalCallError, RetryableCallError, RetryPolicy, call_with_retry


def flaky(errors, result="ok"):
    """A callable that raises the given errors in order, then returns result."""
    errors = list(errors)
    calls = []

    def fn():
        calls.append(time.monotonic())
        if errors:
            raise errors.pop(0)
        return result

    fn.calls = calls
    return fn


def test_retry_after_is_a_floor_for_the_wait():
    waits = []
    fn = flaky([RetryableCallError("rate_limit", "slow down", status=429, retry_after=7.5)] * 3)
    result, attempts = call_with_retry(fn, RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.02),
                                       sleep=waits.append)
    assert (result, attempts) == ("ok", 4)
    assert len(waits) == 3 and all(w >= 7.5 for w in waits)
    # ...and only a floor: never more than max(Retry-After, the computed backoff cap).
    assert all(w <= 7.5 for w in waits)


def test_backoff_grows_exponentially_within_full_jitter_bounds():
    policy = RetryPolicy(max_attempts=7, initial_backoff_s=1.0, max_backoff_s=10.0)
    for _ in range(20):
        waits = []
        fn = flaky([RetryableCallError("server", "boom", status=500)] * 6)
        call_with_retry(fn, policy, sleep=waits.append)
        # wait_random_exponential: uniform in [0, min(initial * 2**n, max)] for the n-th retry
        for n, w in enumerate(waits):
            assert 0.0 <= w <= min(2 ** n, 10.0)
    # with 20 x 6 draws the jitter must actually vary
    assert len({round(w, 6) for w in waits}) > 1


def test_a_bad_request_is_not_retried():
    waits = []
    fn = flaky([FatalCallError("bad_request", "invalid image", status=400)])
    with pytest.raises(FatalCallError) as info:
        call_with_retry(fn, RetryPolicy(), sleep=waits.append)
    assert len(fn.calls) == 1 and waits == [] and info.value.attempts == 1


def test_attempts_are_capped():
    fn = flaky([RetryableCallError("timeout", "t")] * 10)
    with pytest.raises(RetryableCallError) as info:
        call_with_retry(fn, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert len(fn.calls) == 3 and info.value.attempts == 3


def test_a_retry_after_beyond_the_total_cap_ends_the_call_now():
    # The server asks for an hour; the cap is half a second: give up without sleeping.
    waits = []
    fn = flaky([RetryableCallError("rate_limit", "quota", status=429, retry_after=3600.0)])
    started = time.monotonic()
    with pytest.raises(RetryableCallError):
        call_with_retry(fn, RetryPolicy(max_retry_time_s=0.5), sleep=waits.append)
    assert waits == [] and len(fn.calls) == 1 and time.monotonic() - started < 0.5


def test_the_total_cap_counts_real_time():
    # Each real wait is 0.15 s; with a 0.4 s cap only the waits that fit are taken.
    fn = flaky([RetryableCallError("server", "s", status=503, retry_after=0.15)] * 10)
    started = time.monotonic()
    with pytest.raises(RetryableCallError):
        call_with_retry(fn, RetryPolicy(initial_backoff_s=0.001, max_backoff_s=0.001, max_retry_time_s=0.4))
    elapsed = time.monotonic() - started
    # Uncapped, the ten 0.15 s waits would take 1.5 s; the slack above 0.4 s is call overhead on a busy machine.
    assert 2 <= len(fn.calls) <= 3 and elapsed < 1.0
