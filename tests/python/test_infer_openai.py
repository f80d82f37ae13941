"""The real `openai` SDK against a fake OpenAI server on 127.0.0.1: the paper's settings reach the
wire, context is carried, faults are retried or recorded, and the key never lands anywhere."""

from __future__ import annotations

import base64
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.models import openai_error, openai_parts, openai_reply, openai_server, step_of
from fakes.project import make_infer_project, truth
from fakes.server import FakeServer, Reply
from rater1001 import cli
from rater1001.runs.infer.run import InferOptions, ledger_path, run_infer
from rater1001.runs.runner import Ledger, RetryPolicy

KEY = "sk-test-0123456789-abcdefghijklmnop"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)


def answer(image_id, step, prompt):
    e = truth(image_id)
    return {
        "emotion": json.dumps({"emotion": e}),
        "valence": '{"valence": 4}',
        "arousal": '{"arousal": 6}',
        "all": json.dumps({"emotion": e, "valence": 4, "arousal": 6}),
    }[step]


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return make_infer_project(tmp_path, n_images=4)


def opts(images, server, **kw):
    return InferOptions(
        kw.pop("conditions", ["gpt-4o-mini"]),
        images,
        base_url=server.url + "/v1",
        progress=False,
        retry=kw.pop("retry", FAST),
        **kw,
    )


def test_paper_settings_reach_the_wire_and_answers_are_carried(proj):
    paths, images = proj
    with openai_server(answer) as srv:
        result = run_infer(paths, opts(images, srv, limit=2))
    assert len(srv.requests) == 6  # 2 images x 3 steps
    for req in srv.requests:
        prompt, image_id, image = openai_parts(req.body)
        assert req.body["model"] == "gpt-4o-mini"
        assert req.body["temperature"] == 0 and req.body["seed"] == 42 and image["detail"] == "high"
        assert req.headers["authorization"] == f"Bearer {KEY}"
        if step_of(prompt) == "valence":
            assert f"You identified this face as {truth(image_id)}." in prompt
        if step_of(prompt) == "arousal":
            assert f"as {truth(image_id)} with pleasantness 4 out of 9." in prompt
    table = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert sorted(table["image_id"]) == ["img0000", "img0001"]
    assert list(table["emotion"]) == [truth(i) for i in table["image_id"]]
    assert set(table["parse_path"]) == {"json"} and (table["input_tokens"] == 360).all()
    assert result.summary.loc[0, "share_json"] == 1.0


def test_rate_limit_server_error_timeout_truncated_and_garbled_bodies_are_retried(proj):
    paths, images = proj
    with openai_server(answer) as srv:
        srv.queue(
            openai_error(429, "rate limited", {"Retry-After": "0.4"}),
            openai_error(500, "internal"),
            Reply(200, openai_reply("{}").body, hang=True),  # never answers: the 1 s timeout ends it
            Reply(200, openai_reply('{"emotion": "sad"}').body, truncate=True),  # connection cut mid-body
            Reply(200, b'{"id": "chatcmpl-x", "choices": [{"mess'),  # complete but garbled body
        )
        result = run_infer(paths, opts(images, srv, limit=1, strategy="json-single", timeout_s=1.0))
    times = [r.at for r in srv.requests]
    assert len(times) == 6 and result.retries == 5 and not result.incomplete
    assert times[1] - times[0] >= 0.4  # Retry-After honoured
    row = result.rows.iloc[0]
    assert (row["emotion"], row["valence"], row["arousal"]) == (truth("img0000"), 4.0, 6.0)
    lines = [r for r in Ledger(ledger_path(paths, opts(images, srv))).records() if r["status"] != "run"]
    # Each failed attempt is its own event before the call's final line, as the server answered it.
    assert [(r["status"], r.get("attempt")) for r in lines] == [("retry", n) for n in range(1, 6)] + [("ok", None)]
    assert [(r["error"]["kind"], r["error"]["status"]) for r in lines[:2]] == [("rate_limit", 429), ("server", 500)]
    assert lines[0]["wait_s"] >= 0.4 and lines[-1]["attempts"] == 6
    # The final line keeps what the prompt was made of (the image by its digest, never its bytes).
    inputs = lines[-1]["inputs"]
    assert inputs["stimulus_id"] == "img0000" and inputs["template"].startswith("s2_json_single.v1.txt@")
    assert inputs["image_sha256"] == hashlib.sha256((images / "img0000.png").read_bytes()).hexdigest()
    assert inputs["variables"]["scale_min"] == "1" and "happy" in inputs["variables"]["labels"]
    assert base64.b64encode((images / "img0000.png").read_bytes())[:40].decode() not in json.dumps(lines)


def test_a_bad_request_is_recorded_as_failed_and_retried_on_the_next_run(proj):
    paths, images = proj
    with openai_server(answer) as srv:
        srv.queue(openai_error(400, "Invalid image"))
        first = run_infer(paths, opts(images, srv, limit=2, strategy="json-single"))
        assert len(srv.requests) == 2  # no retry of the 400
        assert len(first.rows) == 1 and len(first.incomplete) == 1 and "bad_request" in first.incomplete[0][2]
        assert len(pq.read_table(paths.raw_table("model_predictions"))) == 1  # never a made-up row
        second = run_infer(paths, opts(images, srv, limit=2, strategy="json-single"))
    assert len(srv.requests) == 3  # only the failed call was redone
    assert second.calls_made == 1 and second.calls_cached == 1 and not second.incomplete
    assert len(pq.read_table(paths.raw_table("model_predictions"))) == 2


def test_openai_compatible_server_from_a_conditions_file(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    paths, images = make_infer_project(tmp_path, n_images=2)

    def think_then_answer(image_id, step, prompt):
        return "<think>The mouth corners are up.</think>\n" + answer(image_id, step, prompt)

    with openai_server(think_then_answer) as srv:
        yml = tmp_path / "conditions.yml"
        yml.write_text(
            f"conditions:\n  - condition_id: qwen3-vl-ollama\n    extends: qwen3-vl-4b-thinking\n"
            f"    backend: openai-compatible\n    base_url: {srv.url}/v1\n    model_id: qwen3-vl:4b\n"
        )
        result = run_infer(paths, InferOptions(["qwen3-vl-ollama"], images, conditions_file=yml, progress=False))
    body = srv.requests[0].body
    assert body["model"] == "qwen3-vl:4b" and body["repetition_penalty"] == 1.5
    assert srv.requests[0].headers["authorization"] == "Bearer EMPTY"
    row = result.rows.iloc[0]
    assert row["strategy"] == "json-single" and row["emotion"] == truth(row["image_id"])
    assert row["thinking_text"] == "[all] The mouth corners are up."
    conds = pq.read_table(paths.raw_table("model_conditions")).to_pandas()
    assert list(conds["condition_id"]) == ["qwen3-vl-ollama"] and conds.loc[0, "backend"] == "openai-compatible"


def test_the_key_never_reaches_ledger_outputs_or_messages(proj, capsys):
    paths, images = proj

    def leaky(req):  # a badly behaved proxy that echoes the Authorization header in its error
        return openai_error(401, f"invalid credentials: {req.headers.get('authorization')}")

    leaks = FakeServer(leaky).start()
    try:
        from rater1001.runs.infer.backends.base import GenRequest
        from rater1001.runs.infer.backends.openai_backend import OpenAIBackend
        from rater1001.runs.runner import FatalCallError, SecretRegistry

        backend = OpenAIBackend(base_url=leaks.url + "/v1", api_key_env=None, secrets=SecretRegistry())
        with pytest.raises(FatalCallError) as info:
            backend.generate(GenRequest("hi", b"IMG:x", "image/png", "gpt-4o-mini"))
        assert info.value.kind == "auth" and KEY not in str(info.value) and "[REDACTED]" in str(info.value)
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-4o-mini",
                "--images",
                str(images),
                "--base-url",
                leaks.url + "/v1",
                "--limit",
                "1",
                "--no-progress",
            ]
        )
    finally:
        leaks.stop()
    with openai_server(answer) as srv:
        rc2 = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-4o-mini",
                "--images",
                str(images),
                "--base-url",
                srv.url + "/v1",
                "--limit",
                "2",
            ]
        )
    out = capsys.readouterr()
    assert rc == cli.EXIT_PARTIAL and rc2 == cli.EXIT_OK
    assert "[REDACTED]" in Path(ledger_path(paths, opts(images, srv))).read_text()
    written = [p for p in Path(paths.root).rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in written) and any(p.suffix == ".jsonl" for p in written)
    for p in written:
        assert KEY.encode() not in p.read_bytes(), p
    assert KEY not in out.out and KEY not in out.err


def test_calls_in_flight_are_bounded_per_provider(proj, tmp_path):
    paths, images = make_infer_project(tmp_path / "more", n_images=10)
    with openai_server(answer) as srv, ThreadPoolExecutor(1) as pool:
        srv.hold()  # every call waits until three are in flight at once, then all are answered
        running = pool.submit(run_infer, paths, opts(images, srv, strategy="json-single", concurrency={"openai": 3}))
        srv.wait_until(lambda s: s.held >= 3 or running.done())
        srv.release()
        result = running.result()
    assert len(result.rows) == 10 and srv.peak_in_flight == 3
