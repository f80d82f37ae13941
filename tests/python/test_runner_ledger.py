"""The ledger survives a torn write, failed calls are not answers, the runner resumes from it,
bounds concurrency per group and scrubs secrets."""

from __future__ import annotations

import json
import logging
import re
import threading

import pytest
from rater1001.runs.runner import (
    CallFailed,
    CallSpec,
    FatalCallError,
    Ledger,
    NotInLedger,
    RetryableCallError,
    RetryPolicy,
    Runner,
    SecretRegistry,
    call_key,
)


def test_key_is_order_independent_and_sensitive_to_every_determinant():
    a = call_key({"model": "m", "image": "x", "settings": {"temperature": 0, "seed": 42}})
    b = call_key({"settings": {"seed": 42, "temperature": 0}, "image": "x", "model": "m"})
    c = call_key({"model": "m", "image": "x", "settings": {"temperature": 0, "seed": 43}})
    assert a == b != c and len(a) == 64


def test_torn_tail_is_cut_and_earlier_records_survive(tmp_path):
    path = tmp_path / "ledger.jsonl"
    with Ledger(path) as led:
        led.append({"key": "k1", "status": "ok", "result": {"text": "a"}})
        led.append({"key": "k2", "status": "ok", "result": {"text": "b"}})
    with open(path, "ab") as fh:  # what kill -9 in the middle of a write leaves behind
        fh.write(b'{"key": "k3", "status": "ok", "res')
    with Ledger(path) as led:
        assert "k1" in led and "k2" in led and "k3" not in led
        led.append({"key": "k3", "status": "ok", "result": {"text": "c"}})
    with Ledger(path) as led:
        assert [r["key"] for r in led.records()] == ["k1", "k2", "k3"]


def test_a_corrupt_middle_line_is_reported_with_its_line_number_and_the_rest_kept(tmp_path, caplog):
    path = tmp_path / "ledger.jsonl"
    good = '{"key": "k1", "status": "ok", "result": {}}\n'
    body = (good + "not json\n" + '{"key": "k2", "status": "ok", "result": {}}\n' + "[1, 2]\n").encode()
    path.write_bytes(body + b'{"key": "k4", "status": "ok", "result": {"text": "\xff"}}\n')
    with caplog.at_level(logging.WARNING, logger="rater1001.runs.runner.ledger"):
        led = Ledger(path)
    [message] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert re.search(r"3 line\(s\).*line 2 \(not valid JSON.*line 4 \(a JSON list.*line 5 \(not UTF-8", message)
    caplog.clear()
    with led:
        assert "k1" in led and "k2" in led and "k4" not in led and sorted(led.unreadable) == [2, 4, 5]
        led.append({"key": "k4", "status": "ok", "result": {"text": "d"}})
    assert path.read_bytes().startswith(body)  # nothing of the old ledger was removed
    with caplog.at_level(logging.WARNING, logger="rater1001.runs.runner.ledger"), Ledger(path, read_only=True) as led:
        assert "k4" in led and "not ledger records" in caplog.text
        with pytest.raises(RuntimeError, match="read-only"):
            led.append({"key": "k5", "status": "ok", "result": {}})


def test_failed_calls_are_recorded_but_not_answers_and_are_retried(tmp_path):
    path = tmp_path / "ledger.jsonl"
    spec = CallSpec(call_key({"x": 1}), "g", {"what": "x"})
    with Ledger(path) as led:
        runner = Runner(led, policy=RetryPolicy(max_attempts=1))

        def fail():
            raise FatalCallError("bad_request", "nope", status=400)

        with pytest.raises(CallFailed):
            runner.call(spec, fail)
        assert spec.key not in led
    calls = []
    with Ledger(path) as led:
        runner = Runner(led)
        assert runner.call(spec, lambda: calls.append(1) or {"text": "fine"}) == {"text": "fine"}
        # finished: never called again, not even by a new runner
        assert Runner(led).call(spec, lambda: calls.append(1) or {"text": "other"}) == {"text": "fine"}
    assert calls == [1]
    statuses = [r["status"] for r in Ledger(path).records()]
    assert statuses == ["failed", "ok"]


def test_offline_mode_never_calls(tmp_path):
    with Ledger(tmp_path / "l.jsonl") as led:
        with pytest.raises(NotInLedger):
            Runner(led, offline=True).call(CallSpec("k", "g"), lambda: pytest.fail("called"))


def test_concurrency_is_bounded_per_group(tmp_path):
    limits = {"a": 2, "b": 3}
    in_flight = {"a": 0, "b": 0}
    peak = {"a": 0, "b": 0}
    changed = threading.Condition()

    def work(unit, runner):
        group, i = unit

        def call():
            # No sleep decides the overlap: a group's calls wait until its limit has been in
            # flight at once (the timeout only ends a run whose bound is too low).
            with changed:
                in_flight[group] += 1
                peak[group] = max(peak[group], in_flight[group])
                changed.notify_all()
                changed.wait_for(lambda: peak[group] >= limits[group], timeout=60)
                in_flight[group] -= 1
            return {"i": i}

        return runner.call(CallSpec(call_key({"g": group, "i": i}), group), call)

    with Ledger(tmp_path / "l.jsonl") as led:
        runner = Runner(led, limits)
        out = runner.run_units([("a", i) for i in range(12)] + [("b", i) for i in range(12)], work, workers=10)
    assert len(out) == 24 and all(err is None for _, _, err in out)
    assert peak == {"a": 2, "b": 3}


def test_retries_then_success_counts_attempts(tmp_path):
    errors = [RetryableCallError("server", "500", status=500), RetryableCallError("timeout", "t")]

    def call():
        if errors:
            raise errors.pop(0)
        return {"text": "ok"}

    waits = []
    with Ledger(tmp_path / "l.jsonl") as led:
        runner = Runner(led, policy=RetryPolicy(initial_backoff_s=0.001, max_backoff_s=0.001), sleep=waits.append)
        runner.call(CallSpec("k", "g", {"what": "x"}), call)
        rec = led.get_ok("k")
    assert rec["attempts"] == 3 and runner.stats.retries == 2
    # Each retry is its own line before the call's final line: which attempt failed, how, and the
    # wait that followed it (the very seconds the runner slept).
    lines = list(Ledger(tmp_path / "l.jsonl").records())
    assert [r["status"] for r in lines] == ["retry", "retry", "ok"]
    assert [(r["attempt"], r["error"]["kind"], r["error"]["status"]) for r in lines[:2]] == [
        (1, "server", 500),
        (2, "timeout", None),
    ]
    assert [r["wait_s"] for r in lines[:2]] == waits and all(r["meta"] == {"what": "x"} for r in lines)


def test_a_call_killed_in_its_backoff_or_given_up_after_retries_is_made_again(tmp_path):
    """Retry lines are never answers: a key with only retry lines (a run killed while waiting) or
    ending in `failed` is called again, and a failed call has attempts - 1 retry lines."""
    path = tmp_path / "l.jsonl"
    with Ledger(path) as led:
        runner = Runner(
            led, policy=RetryPolicy(max_attempts=3, initial_backoff_s=0.001, max_backoff_s=0.001), sleep=lambda s: None
        )
        with pytest.raises(CallFailed):
            runner.call(
                CallSpec("gives-up", "g"),
                lambda: (_ for _ in ()).throw(RetryableCallError("rate_limit", "429", status=429)),
            )
        led.append(
            {
                "key": "killed",
                "status": "retry",
                "attempt": 1,
                "wait_s": 60.0,
                "error": {"kind": "rate_limit", "status": 429, "message": "429"},
            }
        )
    statuses = [(r["key"], r["status"]) for r in Ledger(path).records()]
    assert statuses == [("gives-up", "retry"), ("gives-up", "retry"), ("gives-up", "failed"), ("killed", "retry")]
    calls = []
    with Ledger(path) as led:
        assert "gives-up" not in led and "killed" not in led and led.n_ok == 0
        runner = Runner(led)
        for key in ("gives-up", "killed"):
            assert runner.call(CallSpec(key, "g"), lambda key=key: calls.append(key) or {"text": key}) == {"text": key}
    assert calls == ["gives-up", "killed"]
    with Ledger(path) as led:
        assert led.get_ok("killed")["result"] == {"text": "killed"} and led.n_ok == 2


def test_the_final_line_keeps_the_prompts_inputs_scrubbed_and_retries_are_logged(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SOME_API_KEY", "sk-very-secret-value-456")
    secrets = SecretRegistry()
    key = secrets.from_env("SOME_API_KEY")
    inputs = {
        "template": "t.v1.txt@abc",
        "variables": {"emotion": "happy", "note": f"pasted {key}"},
        "stimulus_id": "img1",
        "image_sha256": "0" * 64,
    }
    errors = [RetryableCallError("server", f"500 for key {key}", status=500)]

    def call():
        if errors:
            raise errors.pop(0)
        return {"text": "ok"}

    path = tmp_path / "l.jsonl"
    with caplog.at_level(logging.INFO, logger="rater1001.runs.runner"), Ledger(path, secrets) as led:
        Runner(led, sleep=lambda s: None).call(CallSpec("k", "g", {"u": 1}, inputs), call)
    retry, ok = Ledger(path).records()
    assert "inputs" not in retry and ok["inputs"] == {
        **inputs,
        "variables": {"emotion": "happy", "note": "pasted [REDACTED]"},
    }
    assert key not in path.read_text() and key not in caplog.text
    assert "attempt 1 failed (server: 500 for key [REDACTED]): retrying in" in caplog.text


def test_secrets_are_scrubbed_from_what_the_ledger_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "sk-very-secret-value-123")
    secrets = SecretRegistry()
    key = secrets.from_env("SOME_API_KEY")
    path = tmp_path / "l.jsonl"
    with Ledger(path, secrets) as led:
        runner = Runner(led, policy=RetryPolicy(max_attempts=1))
        with pytest.raises(CallFailed):
            runner.call(
                CallSpec("k", "g"),
                lambda: (_ for _ in ()).throw(FatalCallError("auth", f"invalid key {key}", status=401)),
            )
    text = path.read_text()
    assert key not in text and "[REDACTED]" in text
    assert json.loads(text.splitlines()[0])["error"]["kind"] == "auth"


def test_a_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(KeyError, match="NO_SUCH_KEY_VAR"):
        SecretRegistry().from_env("NO_SUCH_KEY_VAR")


def test_progress_shows_done_failed_and_retrying(tmp_path):
    import io

    from rater1001.runs.runner import Progress

    sink = io.StringIO()
    progress = Progress(total=3, enabled=True, file=sink)
    seen_retrying = []

    def work(unit, runner):
        errors = [RetryableCallError("rate_limit", "429", status=429)] if unit == "b" else []

        def call():
            if unit == "c":
                raise FatalCallError("bad_request", "400", status=400)
            if errors:
                raise errors.pop(0)
            return {"u": unit}

        return runner.call(CallSpec(call_key({"u": unit}), "g"), call)

    with Ledger(tmp_path / "l.jsonl") as led:
        runner = Runner(
            led,
            {"g": 1},
            RetryPolicy(initial_backoff_s=0.001, max_backoff_s=0.001),
            progress=progress,
            sleep=lambda s: seen_retrying.append(progress.retrying_now),
        )
        runner.run_units(["a", "b", "c"], work)
    progress.close()
    assert seen_retrying == [1]  # shown as retrying while backing off
    assert progress.retrying_now == 0 and (progress.done, progress.failed) == (2, 1)
    final = sink.getvalue().split("\r")[-1]
    assert "3/3" in final and "done=2" in final and "failed=1" in final and "unit/s" in final


def test_ctrl_c_starts_no_call_waits_for_calls_in_flight_and_skips_backoffs(tmp_path):
    """Two calls in flight, a third sleeping in a 60 s backoff, more units and steps waiting: after
    SIGINT the two in flight are recorded, the backoff is stopped, nothing new starts."""
    import os
    import signal
    import time

    from rater1001.runs.runner import Interrupted, RetryableCallError

    started: list[tuple[int, int]] = []
    lock = threading.Lock()
    draining = threading.Event()  # the calls in flight answer only once the run waits for them

    def work(unit, runner):
        for step in range(3):

            def fn(step=step):
                with lock:
                    started.append((unit, step))
                if unit == 2:
                    raise RetryableCallError("server", "busy", retry_after=60)  # sleeps in a backoff
                assert draining.wait(60)
                return {"text": f"{unit}/{step}"}

            runner.call(CallSpec(call_key({"u": unit, "s": step}), "g", {"u": unit}), fn)

    def interrupt_when_busy(runner):
        while not (runner._in_flight == 3 and len(started) == 3 and runner.stats.retries == 1):
            time.sleep(0.005)
        os.kill(os.getpid(), signal.SIGINT)

    with Ledger(tmp_path / "ledger.jsonl") as led:
        # drain_s is far longer than the test: a backoff that were waited out would be in flight
        # (abandoned) at the end of the wait, not stopped
        runner = Runner(
            led,
            {"g": 3},
            RetryPolicy(max_attempts=5, max_retry_time_s=600),
            drain_s=120,
            on_drain=lambda n, s: draining.set(),
        )
        threading.Thread(target=interrupt_when_busy, args=(runner,), daemon=True).start()
        with pytest.raises(Interrupted) as info:
            runner.run_units(range(6), work)
    i = info.value
    assert (i.in_flight, i.recorded, i.abandoned, i.stopped) == (3, 2, 0, 1)
    assert sorted(started) == [(0, 0), (1, 0), (2, 0)]  # no second step, no fourth unit
    oks = [r["meta"]["u"] for r in Ledger(tmp_path / "ledger.jsonl").records() if r["status"] == "ok"]
    assert sorted(oks) == [0, 1]


def test_a_retry_line_that_cannot_be_written_stops_the_call_before_its_next_attempt(tmp_path, monkeypatch):
    """The retry line is written before the backoff: when the disk is full by then, the call ends
    with the ledger's error instead of paying for attempts that could not be recorded."""
    import errno

    from rater1001.runs.runner import ledger as ledger_module
    from rater1001.runs.runner.ledger import LedgerWriteError

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    attempts = []

    def call():
        attempts.append(1)
        raise RetryableCallError("server", "busy", status=503)

    with Ledger(tmp_path / "l.jsonl") as led:
        monkeypatch.setattr(ledger_module.os, "fsync", full)
        with pytest.raises(LedgerWriteError, match="cannot append to the ledger"):
            Runner(led, sleep=lambda s: None).call(CallSpec("k", "g"), call)
    assert attempts == [1]
