"""A run killed with SIGKILL part-way resumes: finished calls are never repeated, at most the calls
in flight are redone, and the result has exactly one prediction per key.

No clock decides where the run is caught: the fake server answers a fixed number of calls and holds
the rest, so the signal always arrives while the run is blocked on its calls in flight."""

from __future__ import annotations

import json
import os
import signal

import pyarrow.parquet as pq
import pytest
from fakes.forked_cli import ForkedCli
from fakes.models import openai_parts, openai_server, step_of
from fakes.project import make_infer_project, truth

KEY = "sk-test-resume-0123456789abcdef"
N_IMAGES, STEPS, CONCURRENCY = 16, 3, 4


@pytest.fixture(scope="module")
def forked():
    """Each run is a process of its own, forked from one helper that has imported the CLI and the
    OpenAI backend (an interpreter each would spend most of these tests importing)."""
    with ForkedCli(
        env={"OPENAI_API_KEY": KEY},
        preload=("rater1001.runs.infer.run", "rater1001.runs.infer.backends.openai_backend"),
    ) as helper:
        yield helper


def answer(image_id, step, prompt):
    return {"emotion": f'{{"emotion": "{truth(image_id)}"}}', "valence": '{"valence": 5}', "arousal": '{"arousal": 5}'}[
        step
    ]


def ledger_ok(path) -> list[tuple[str, str]]:
    out = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # the torn line of a write in progress
            continue
        if rec["status"] == "ok":
            out.append((rec["meta"]["image_id"], rec["meta"]["step"]))
    return out


def requested(server) -> list[tuple[str, str]]:
    out = []
    for r in list(server.requests):
        prompt, image_id, _ = openai_parts(r.body)
        out.append((image_id, step_of(prompt)))
    return out


def blocked_on_held_calls(srv, proc, n: int) -> None:
    """Wait until all n workers of the run wait on held calls; each worker appends a finished call
    to the ledger before it asks the next one, so the ledger is complete up to the held calls."""
    srv.wait_until(lambda s: s.held == n or proc.poll() is not None)
    assert proc.poll() is None, proc.communicate()[1]


def wait_for_line(proc, text: str) -> str:
    """stderr of a running process up to the line containing `text` (a blocking read, no clock)."""
    lines: list[str] = []
    while not lines or text not in lines[-1]:
        line = proc.stderr.readline()
        assert line, f"the run ended without saying {text!r}: " + "".join(lines)
        lines.append(line)
    return "".join(lines)


def test_sigkill_mid_run_then_resume(tmp_path, forked):
    paths, images = make_infer_project(tmp_path, N_IMAGES)
    ledger = paths.root / "data" / "ledger" / "infer.jsonl"
    with openai_server(answer) as srv:
        srv.hold(after=12)
        cmd = [
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--concurrency",
            f"openai={CONCURRENCY}",
            "--no-progress",
        ]
        proc = forked.start(paths, *cmd)
        blocked_on_held_calls(srv, proc, CONCURRENCY)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
        done_before = ledger_ok(ledger)
        asked_before = requested(srv)
        assert len(done_before) == 12 < N_IMAGES * STEPS
        assert not paths.raw_table("model_predictions").exists()  # killed before compaction

        with srv._lock:
            srv.requests.clear()
        srv.release()  # the held calls are answered into the dead connections
        resumed = forked.run(paths, *cmd)
        asked_after = requested(srv)

    assert resumed.returncode == 0, resumed.stderr
    # no finished call is ever repeated
    assert not set(asked_after) & set(done_before)
    # the only calls asked twice are the ones in flight at the kill
    in_flight = set(asked_before) - set(done_before)
    redone = set(asked_after) & set(asked_before)
    assert redone <= in_flight and len(redone) <= CONCURRENCY
    # every call finished exactly once
    all_ok = ledger_ok(ledger)
    assert len(all_ok) == len(set(all_ok)) == N_IMAGES * STEPS
    table = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert len(table) == N_IMAGES and not table.duplicated(["condition_id", "image_id", "run_id"]).any()
    assert (table["emotion"] == table["image_id"].map(truth)).all() and (table["parse_path"] == "json").all()
    assert f"reused from the ledger {len(done_before)}" in resumed.stdout


def test_ctrl_c_lands_what_finished_and_says_how_to_resume(tmp_path, forked):
    paths, images = make_infer_project(tmp_path, 12)
    ledger = paths.root / "data" / "ledger" / "infer.jsonl"
    with openai_server(answer) as srv:
        srv.hold(after=8)  # 8 calls by 2 workers of 3-call units: at least one unit is complete
        cmd = [
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--concurrency",
            "openai=2",
            "--no-progress",
        ]
        proc = forked.start(paths, *cmd, stream_stderr=True)
        blocked_on_held_calls(srv, proc, 2)
        assert len(ledger_ok(ledger)) == 8
        proc.send_signal(signal.SIGINT)
        # The interrupted run says it waits for its two calls in flight; answer them then.
        err = wait_for_line(proc, "waiting up to 30 s for 2 call(s) in flight")
        srv.release()
        out, rest = proc.communicate()
        err += rest
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err
    done = ledger_ok(ledger)
    complete_units = {i for i, _ in done if sum(1 for j, _ in done if j == i) == STEPS}
    table = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    # the calls in flight at Ctrl-C were waited for and recorded, no new call was started, and
    # every complete unit was landed
    assert len(done) == 10 and "2 call(s) in flight: 2 finished and were recorded in the ledger" in err
    landed = set(table["image_id"])
    assert landed == complete_units and len(landed) >= 1


def test_ctrl_c_with_8_calls_in_flight_records_all_8(tmp_path, forked):
    """The calls a provider finishes (and bills) after Ctrl-C reach the ledger and the landing.
    Before the run waited for them, the ledger held none of the 8 (they came back after it closed)."""
    paths, images = make_infer_project(tmp_path, 8)
    ledger = paths.root / "data" / "ledger" / "infer.jsonl"

    def all_at_once(image_id, step, prompt):
        return json.dumps({"emotion": truth(image_id), "valence": 5, "arousal": 5})

    with openai_server(all_at_once) as srv:
        srv.hold(after=0)  # every call waits until the run has been interrupted
        cmd = [
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--concurrency",
            "openai=8",
            "--strategy",
            "json-single",
            "--no-progress",
        ]
        proc = forked.start(paths, *cmd, stream_stderr=True)
        blocked_on_held_calls(srv, proc, 8)
        proc.send_signal(signal.SIGINT)
        # the run says it waits for its calls in flight; only then does the provider answer them
        err = wait_for_line(proc, "waiting up to 30 s for 8 call(s) in flight")
        srv.release()
        out, rest = proc.communicate()
        served = len(srv.requests)
    err += rest
    assert proc.returncode == 130, err
    assert served == 8  # no call was started after Ctrl-C
    ok = {(r["meta"]["image_id"]) for r in map(json.loads, ledger.read_text().splitlines()) if r["status"] == "ok"}
    assert len(ok) == 8
    assert "8 call(s) in flight: 8 finished and were recorded in the ledger, 0 abandoned" in err
    table = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert sorted(table["image_id"]) == sorted(ok)
