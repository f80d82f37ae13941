"""Backoff with jitter, Retry-After honoured, fatal errors not retried, the total-time cap."""

from __future__ import annotations

import time

import pytest
from rater1001.runs.runner import FatalCallError, RetryableCallError, RetryPolicy, call_with_retry


class FakeClock:
    """The monotonic clock, moved only by the sleeps and calls of the test: the cap on the total
    retry time is checked without a wall clock deciding the outcome."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(time, "monotonic", fake.monotonic)
    return fake


def flaky(errors, result="ok", clock=None, cost_s=0.0):
    """A callable that raises the given errors in order, then returns result; each call takes
    cost_s on the fake clock."""
    errors = list(errors)
    calls = []

    def fn():
        calls.append(time.monotonic())
        if clock is not None:
            clock.sleep(cost_s)
        if errors:
            raise errors.pop(0)
        return result

    fn.calls = calls
    return fn


def test_retry_after_is_a_floor_for_the_wait():
    waits = []
    fn = flaky([RetryableCallError("rate_limit", "slow down", status=429, retry_after=7.5)] * 3)
    result, attempts = call_with_retry(fn, RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.02), sleep=waits.append)
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
            assert 0.0 <= w <= min(2**n, 10.0)
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


def test_a_retry_after_beyond_the_total_cap_ends_the_call_now(clock):
    # The server asks for an hour; the cap is half a second: give up without sleeping.
    waits = []
    fn = flaky([RetryableCallError("rate_limit", "quota", status=429, retry_after=3600.0)])
    started = time.monotonic()
    with pytest.raises(RetryableCallError):
        call_with_retry(fn, RetryPolicy(max_retry_time_s=0.5), sleep=waits.append)
    assert waits == [] and len(fn.calls) == 1 and time.monotonic() - started < 0.5


@pytest.mark.parametrize("cost_s, expected_calls", [(0.0, 3), (0.1, 2)])
def test_the_total_cap_counts_real_time(clock, cost_s, expected_calls):
    # Each wait is 0.15 s; with a 0.4 s cap only the waits that fit are taken: at 0, 0.15, 0.30
    # when calls are instant, at 0 and 0.25 when each call itself takes 0.1 s (time spent calling
    # counts against the cap, not only the waits).
    fn = flaky([RetryableCallError("server", "s", status=503, retry_after=0.15)] * 10, clock=clock, cost_s=cost_s)
    started = time.monotonic()
    with pytest.raises(RetryableCallError):
        call_with_retry(
            fn, RetryPolicy(initial_backoff_s=0.001, max_backoff_s=0.001, max_retry_time_s=0.4), sleep=clock.sleep
        )
    elapsed = time.monotonic() - started
    # Uncapped, the ten 0.15 s waits would take 1.5 s.
    assert 2 <= len(fn.calls) <= 3 and elapsed < 1.0
    assert len(fn.calls) == expected_calls and elapsed <= 0.4
    assert fn.calls == pytest.approx([started + n * (0.15 + cost_s) for n in range(expected_calls)])
