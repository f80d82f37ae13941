"""The real `anthropic` SDK against a fake Messages API on 127.0.0.1: image requests as the SDK
sends them, an extended-thinking budget on the wire (temperature and seed are not parameters of
this SDK's messages.create, so they are not sent), thinking blocks kept out of the
answer, usage and cost, retries (429 with retry-after, 529 overloaded, a hang past the timeout, a
truncated body), a refusal kept as an answer, a 400 recorded and redone, the key never written."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.models import anthropic_error, anthropic_parts, anthropic_reply, anthropic_server, image_id_of
from fakes.project import make_infer_project, truth
from fakes.server import FakeServer, Reply
from rater1001 import cli
from rater1001.runs.infer.run import InferOptions, ledger_path, run_infer
from rater1001.runs.runner import FatalCallError, RetryPolicy, SecretRegistry

KEY = "sk-ant-test-0123456789-abcdefghijklmnop"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)
CONDITIONS = """conditions:
  - condition_id: claude-sonnet-4-6
    display_name: Claude Sonnet 4.6
    kind: vlm
    backend: anthropic
    model_id: claude-sonnet-4-6
    thinking: false
    strategy: json-single
    temperature: 0
    seed: 42
  - condition_id: claude-sonnet-4-6-think
    extends: claude-sonnet-4-6
    display_name: Claude Sonnet 4.6 (thinking)
    thinking: true
    thinking_budget: 2048
    temperature: 1
"""


def answer(image_id, step, prompt):
    return json.dumps({"emotion": truth(image_id), "valence": 3, "arousal": 7})


def thinks_when_asked(body: dict):
    return ("The brows are lowered.", 300) if (body.get("thinking") or {}).get("type") == "enabled" else (None, None)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    paths, images = make_infer_project(tmp_path, n_images=3)
    yml = tmp_path / "conditions.yml"
    yml.write_text(CONDITIONS)
    return paths, images, yml


def opts(proj, server, conditions=("claude-sonnet-4-6",), **kw):
    paths, images, yml = proj
    return InferOptions(
        list(conditions),
        images,
        conditions_file=yml,
        base_url=server.url,
        progress=False,
        retry=kw.pop("retry", FAST),
        **kw,
    )


def test_image_requests_settings_thinking_usage_and_cost(proj):
    paths = proj[0]
    with anthropic_server(answer, thinking=thinks_when_asked) as srv:
        result = run_infer(paths, opts(proj, srv, ("claude-sonnet-4-6", "claude-sonnet-4-6-think"), limit=2))
    assert len(srv.requests) == 4
    plain = [r for r in srv.requests if "thinking" not in r.body]
    think = [r for r in srv.requests if "thinking" in r.body]
    assert len(plain) == len(think) == 2
    for req in srv.requests:
        assert req.path == "/v1/messages" and sent_key(req) == KEY and "anthropic-version" in req.headers
        assert req.body["model"] == "claude-sonnet-4-6" and "seed" not in req.body and "temperature" not in req.body
        prompt, image_id, source = anthropic_parts(req.body)
        assert prompt.startswith("Analyze the facial expression") and source["media_type"] == "image/png"
        assert image_id_of(base64.b64decode(source["data"])) == image_id
    assert {r.body["max_tokens"] for r in plain} == {1024}
    assert {json.dumps(r.body["thinking"]) for r in think} == {json.dumps({"type": "enabled", "budget_tokens": 2048})}
    assert {r.body["max_tokens"] for r in think} == {2048 + 1024}  # the budget counts inside max_tokens

    rows = result.rows.set_index(["condition_id", "image_id"])
    p, t = rows.loc[("claude-sonnet-4-6", "img0001")], rows.loc[("claude-sonnet-4-6-think", "img0001")]
    assert (p["emotion"], p["valence"], p["arousal"]) == (truth("img0001"), 3.0, 7.0) and p["parse_path"] == "json"
    assert pd_isna(p["thinking_text"]) and t["thinking_text"] == "[all] The brows are lowered."
    assert t["emotion"] == truth("img0001") and t["thinking_tokens"] == 300 and t["output_tokens"] == 311
    s = result.summary.set_index("condition_id")
    # seeds/api_prices.csv: $3 in / $15 out per million; thinking tokens are inside output_tokens
    assert s.loc["claude-sonnet-4-6", "cost_usd"] == pytest.approx(round((2 * 410 * 3 + 2 * 11 * 15) / 1e6, 4))
    assert s.loc["claude-sonnet-4-6-think", "cost_usd"] == pytest.approx(round((2 * 410 * 3 + 2 * 311 * 15) / 1e6, 4))
    conds = pq.read_table(paths.raw_table("model_conditions")).to_pandas().set_index("condition_id")
    assert conds.loc["claude-sonnet-4-6-think", "backend"] == "anthropic"


def sent_key(req) -> str | None:
    """The key as the SDK sends it (x-api-key, or a bearer token in the SDK in the lock)."""
    return req.headers.get("x-api-key") or req.headers.get("authorization", "").removeprefix("Bearer ") or None


def pd_isna(v) -> bool:
    return v is None or v != v


def test_rate_limit_overload_timeout_and_truncated_bodies_are_retried(proj):
    paths = proj[0]
    with anthropic_server(answer) as srv:
        srv.queue(
            anthropic_error(429, "rate_limit_error", "rate limited", {"retry-after": "0.4"}),
            anthropic_error(529, "overloaded_error", "Overloaded"),
            Reply(200, anthropic_reply("{}").body, hang=True),  # never answers: the 1 s timeout ends it
            Reply(200, anthropic_reply('{"emotion": "sad"}').body, truncate=True),
            Reply(
                200,
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "stop_reason": "end_turn",
                    "model": "claude-sonnet-4-6",
                    "usage": {"input_tokens": 1, "output_tokens": 0},
                },
            ),  # no text
        )
        result = run_infer(paths, opts(proj, srv, limit=1, timeout_s=1.0))
    times = [r.at for r in srv.requests]
    assert len(times) == 6 and result.retries == 5 and not result.incomplete
    assert times[1] - times[0] >= 0.4  # retry-after honoured
    assert result.rows.iloc[0]["emotion"] == truth("img0000")


def test_a_refusal_is_an_answer_and_a_bad_request_is_redone_next_run(proj):
    paths = proj[0]
    with anthropic_server(answer) as srv:
        srv.queue(
            Reply(200, anthropic_reply(None, stop_reason="refusal", output_tokens=0).body),
            anthropic_error(400, "invalid_request_error", "Image could not be processed"),
        )
        first = run_infer(paths, opts(proj, srv, limit=2, concurrency={"anthropic": 1}))  # faults in image order
        assert len(srv.requests) == 2  # neither is retried
        refused = first.rows.set_index("image_id").loc["img0000"]
        assert refused["parse_path"] == "failed" and json.loads(refused["raw_responses"]) == [None]
        assert len(first.incomplete) == 1 and "bad_request" in first.incomplete[0][2]
        second = run_infer(paths, opts(proj, srv, limit=2))
    assert len(srv.requests) == 3 and second.calls_made == 1 and not second.incomplete
    assert len(pq.read_table(paths.raw_table("model_predictions"))) == 2


def test_the_key_never_reaches_ledger_outputs_or_messages(proj, capsys):
    paths, images, yml = proj

    def leaky(req):  # a proxy that echoes the key header in its error
        return anthropic_error(401, "authentication_error", f"invalid key: {sent_key(req)}")

    leaks = FakeServer(leaky).start()
    try:
        from rater1001.runs.infer.backends.anthropic_backend import AnthropicBackend
        from rater1001.runs.infer.backends.base import GenRequest

        backend = AnthropicBackend(base_url=leaks.url, api_key_env=None, secrets=SecretRegistry())
        with pytest.raises(FatalCallError) as info:
            backend.generate(GenRequest("hi", None, None, "claude-sonnet-4-6"))
        assert info.value.kind == "auth" and KEY not in str(info.value) and "[REDACTED]" in str(info.value)
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "claude-sonnet-4-6",
                "--conditions-file",
                str(yml),
                "--images",
                str(images),
                "--base-url",
                leaks.url,
                "--limit",
                "1",
                "--no-progress",
            ]
        )
    finally:
        leaks.stop()
    out = capsys.readouterr()
    assert rc == cli.EXIT_PARTIAL
    assert "[REDACTED]" in Path(ledger_path(paths, InferOptions([], images))).read_text()
    for p in [p for p in Path(paths.root).rglob("*") if p.is_file()]:
        assert KEY.encode() not in p.read_bytes(), p
    assert KEY not in out.out and KEY not in out.err
