"""`rater1001 judge` through the real openai SDK against a fake OpenAI-compatible judge on
127.0.0.1: text-only requests in both orders, verdicts parsed and landed, resume from the ledger,
rate limits retried, a refused call recorded and redone on the next run, the key never on disk."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pandas as pd
import pytest
from fakes.judge import judge_server, responses_of
from fakes.models import openai_error
from rater1001 import cli
from rater1001.contract import CANDIDATES, DIALOGUES
from rater1001.landing import ManifestEntry, record_landing, to_arrow, write_parquet_atomic
from rater1001.paths import project
from rater1001.runs.judge.run import JudgeOptions, dry_run, ledger_path, run_judge
from rater1001.runs.runner import Ledger, RetryPolicy

KEY = "sk-judge-test-0123456789-abcdefghij"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    paths = project(tmp_path)
    turns = json.dumps([{"speaker": "A", "text": "나 시험 붙었어!"}], ensure_ascii=False)
    dialogues = pd.DataFrame(
        {
            "sample_id": ["s1", "s2", "s3"],
            "category": ["기쁨"] * 3,
            "situation": ["친구가 시험에 붙었다."] * 3,
            "turns": [turns] * 3,
            "next_speaker": ["B"] * 3,
            "source": ["test"] * 3,
        }
    )
    rows = []
    for s in ("s1", "s2", "s3"):
        rows.append((s, "P", "text", f"{s} 정말 좋은 소식이다 축하해!", "ok", None))
        rows.append((s, "K", "text", f"{s} 그렇군요.", "ok", None))
        bad = s == "s3"
        rows.append(
            (
                s,
                "Q",
                "text",
                None if bad else f"{s} 와 좋은 일이네!",
                "error" if bad else "ok",
                "CUDA OOM" if bad else None,
            )
        )
    cands = pd.DataFrame(rows, columns=["sample_id", "candidate_id", "variant", "response_text", "status", "error"])
    for spec, frame in ((DIALOGUES, dialogues), (CANDIDATES, cands)):
        write_parquet_atomic(to_arrow(frame, spec), paths.raw_table(spec.name))
        record_landing(paths, ManifestEntry(spec.name, "test", None, len(frame), 0, False))
    return paths


def opts(server, **kw):
    return JudgeOptions(
        model_id="judge-x",
        backend="openai-compatible",
        base_url=server.url + "/v1",
        api_key_env="OPENAI_API_KEY",
        temperature=0.0,
        concurrency=kw.pop("concurrency", 1),
        retry=kw.pop("retry", FAST),
        progress=False,
        **kw,
    )


def test_every_pair_in_both_orders_text_only_and_landed(proj):
    with judge_server() as srv:
        result = run_judge(proj, opts(srv))
    # K-P in 3 samples, Q-P in 2 (s3 errored): 5 pairs x 2 orders
    assert len(srv.requests) == 10 and result.n_calls_planned == 10
    assert int(result.excluded["n_cells"].sum()) == 1
    for req in srv.requests:
        assert req.body["model"] == "judge-x" and req.body["temperature"] == 0
        assert req.headers["authorization"] == f"Bearer {KEY}"
        content = req.body["messages"][0]["content"]
        assert isinstance(content, str) and content.startswith("다음은 한국어 대화입니다.")
    firsts = {responses_of(r.body["messages"][0]["content"])[0] for r in srv.requests}
    assert "s1 정말 좋은 소식이다 축하해!" in firsts and "s1 그렇군요." in firsts  # P shown first and second

    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    assert len(landed) == 10 and set(landed["parse_status"]) == {"ok"}
    kp = landed[(landed["candidate_a"] == "K") & (landed["sample_id"] == "s1")].set_index("order")
    # P has the marker, K does not: P is position 2 in AB and position 1 in BA
    assert kp.loc["AB", "verdict_overall"] == "2" and kp.loc["BA", "verdict_overall"] == "1"
    assert kp.loc["AB", "verdict_naturalness"] == "tie" and "표지 단어" in kp.loc["AB", "reason"]
    qp = landed[(landed["candidate_a"] == "Q")]
    assert set(qp["verdict_overall"]) == {"tie"}  # both have the marker
    assert (landed["input_tokens"] == 800).all() and landed["prompt_version"].str.startswith(
        "judge_pairwise_ko.v2.txt@"
    ).all()
    for path in (proj.raw_table("judge_verdicts"), ledger_path(proj, opts(srv))):
        assert KEY.encode() not in path.read_bytes()


def test_resume_makes_no_new_calls_and_dry_run_calls_nothing(proj):
    with judge_server() as srv:
        run_judge(proj, opts(srv))
        before = len(srv.requests)
        est = dry_run(proj, opts(srv))
        again = run_judge(proj, opts(srv))
    assert before == 10 and len(srv.requests) == 10
    assert est["calls_planned"] == 10 and est["calls_todo"] == 0
    assert again.calls_made == 0 and again.calls_cached == 10
    assert len(pd.read_parquet(proj.raw_table("judge_verdicts"))) == 10


def test_rate_limits_are_retried_and_a_refused_call_is_redone_next_run(proj):
    with judge_server() as srv:
        srv.queue(
            openai_error(429, "slow down", {"retry-after": "0"}),
            openai_error(503, "busy"),
            openai_error(400, "bad request"),
        )
        first = run_judge(proj, opts(srv))
        landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
        assert first.retries == 2 and first.calls_failed == 1
        assert (landed["parse_status"] == "call_failed").sum() == 1
        n = len(srv.requests)
        lines = list(Ledger(ledger_path(proj, opts(srv))).records())
        sent = {hashlib.sha256(r.body["messages"][0]["content"].encode("utf-8")).hexdigest() for r in srv.requests}
        second = run_judge(proj, opts(srv))
    assert len(srv.requests) == n + 1 and second.calls_made == 1
    # The two retries are events of their own; the call's final line keeps what its prompt was made of.
    retries = [r for r in lines if r["status"] == "retry"]
    assert [(r["error"]["kind"], r["error"]["status"], r["attempt"]) for r in retries] == [
        ("rate_limit", 429, 1),
        ("server", 503, 1),
    ] or [(r["error"]["status"], r["attempt"]) for r in retries] == [(429, 1), (503, 2)]
    final = [r for r in lines if r["status"] in ("ok", "failed")]
    assert len(final) == 10 and {r["inputs"]["prompt_sha256"] for r in final} <= sent
    for r in final:
        m, i = r["meta"], r["inputs"]
        shown = (m["candidate_a"], m["candidate_b"]) if m["order"] == "AB" else (m["candidate_b"], m["candidate_a"])
        assert (i["stimulus_id"], i["variables"]["response_1"], i["variables"]["response_2"]) == (
            m["sample_id"],
            *shown,
        )
    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    assert len(landed) == 10 and set(landed["parse_status"]) == {"ok"}


def test_cli_judge_keeps_other_judges_rows(proj):
    with judge_server() as srv:
        base = [
            "--home",
            str(proj.root),
            "judge",
            "--backend",
            "openai-compatible",
            "--base-url",
            srv.url + "/v1",
            "--api-key-env",
            "OPENAI_API_KEY",
            "--no-progress",
            "--concurrency",
            "2",
        ]
        assert cli.main(base + ["--model", "judge-x", "--candidates", "K"]) == cli.EXIT_OK
        assert cli.main(base + ["--model", "judge-y", "--judge-id", "second"]) == cli.EXIT_OK
    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    assert landed.groupby("judge_id").size().to_dict() == {"judge-x": 6, "second": 10}


def test_gemini_judge_sends_text_only_and_lands_the_same_verdicts(proj, monkeypatch):
    from fakes.judge import gemini_judge_server

    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with gemini_judge_server() as srv:
        result = run_judge(
            proj,
            JudgeOptions(
                model_id="gemini-2.5-flash",
                backend="gemini",
                base_url=srv.url,
                api_key_env="GEMINI_API_KEY",
                temperature=0.0,
                concurrency=1,
                retry=FAST,
                progress=False,
            ),
        )
    assert len(srv.requests) == 10 and result.n_calls_planned == 10
    assert all(len(r.body["contents"][0]["parts"]) == 1 for r in srv.requests)  # the prompt alone, no image
    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    kp = landed[(landed["candidate_a"] == "K") & (landed["sample_id"] == "s1")].set_index("order")
    assert kp.loc["AB", "verdict_overall"] == "2" and kp.loc["BA", "verdict_overall"] == "1"
    assert KEY.encode() not in proj.raw_table("judge_verdicts").read_bytes()


def test_claude_judge_through_the_anthropic_sdk_with_retries_cost_and_resume(proj, monkeypatch):
    """The log's second judge (Claude Sonnet 4.6) on the anthropic SDK: text-only Messages requests,
    429 and 529 (overloaded) retried, the verdicts landed beside the first judge's, cost from the
    price seed ($3 / $15 per million), a rerun served from the ledger."""
    from fakes.judge import anthropic_judge_server
    from fakes.models import anthropic_error

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with judge_server() as first:
        run_judge(proj, opts(first))
    claude = JudgeOptions(model_id="claude-sonnet-4-6", backend="anthropic", concurrency=1, retry=FAST, progress=False)
    with anthropic_judge_server() as srv:
        srv.queue(
            anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "0"}),
            anthropic_error(529, "overloaded_error", "Overloaded"),
        )
        est = dry_run(proj, replace(claude, base_url=srv.url))  # priced from the seed's Claude row
        result = run_judge(proj, replace(claude, base_url=srv.url))
        again = run_judge(proj, replace(claude, base_url=srv.url))
    assert est["calls_todo"] == 10 and est["note"] == ""
    assert est["est_cost_usd"] == pytest.approx(
        round((est["est_input_tokens"] * 3.0 + 10 * 200 * 15.0) / 1e6, 4), abs=1e-4
    )
    assert len(srv.requests) == 12 and result.retries == 2 and result.calls_failed == 0
    assert again.calls_made == 0 and again.calls_cached == 10
    for req in srv.requests:
        content = req.body["messages"][0]["content"]
        assert [b["type"] for b in content] == ["text"] and content[0]["text"].startswith("다음은 한국어 대화입니다.")
        assert req.body["model"] == "claude-sonnet-4-6" and req.body["max_tokens"] > 0
    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    assert landed.groupby("judge_id").size().to_dict() == {"judge-x": 10, "claude-sonnet-4-6": 10}
    c = landed[landed["judge_id"] == "claude-sonnet-4-6"]
    kp = c[(c["candidate_a"] == "K") & (c["sample_id"] == "s1")].set_index("order")
    assert kp.loc["AB", "verdict_overall"] == "2" and kp.loc["BA", "verdict_overall"] == "1"
    assert c["cost_usd"].to_numpy() == pytest.approx((900 * 3.0 + 150 * 15.0) / 1e6)
    assert result.cost_usd == pytest.approx(10 * (900 * 3.0 + 150 * 15.0) / 1e6)
    for path in (proj.raw_table("judge_verdicts"), ledger_path(proj, claude)):
        assert KEY.encode() not in path.read_bytes()


def test_odd_responses_fail_their_calls_only_and_successes_are_never_marked_failed(proj, capsys, monkeypatch):
    """A 200 that is not a completion, for every call about one sample, while the other calls are
    in flight: the run goes on, those calls are call_failed, every call that succeeded lands."""
    from fakes.judge import verdict_text
    from fakes.models import openai_reply
    from fakes.server import FakeServer, Reply, quick_default_backoff

    quick_default_backoff(monkeypatch)
    odd = [
        Reply(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{}]}),
        Reply(200, b"<html>502 Bad Gateway</html>", {"Content-Type": "text/html"}),
        Reply(429, {"error": {"message": "slow"}}, {"Retry-After": "soon"}),
    ]

    def respond(req):
        prompt = req.body["messages"][0]["content"]
        if "s2 " in responses_of(prompt)[0]:
            return odd[len(req.body["messages"][0]["content"]) % len(odd)]
        return openai_reply(verdict_text(prompt))

    with FakeServer(respond, latency_s=0.2) as srv:
        rc = cli.main(
            [
                "--home",
                str(proj.root),
                "judge",
                "--model",
                "judge-x",
                "--backend",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--api-key-env",
                "OPENAI_API_KEY",
                "--no-progress",
                "--concurrency",
                "4",
                "--max-attempts",
                "2",
            ]
        )
    out, err = capsys.readouterr()
    assert rc == cli.EXIT_PARTIAL and "Traceback" not in err
    landed = pd.read_parquet(proj.raw_table("judge_verdicts"))
    from rater1001.runs.runner import Ledger

    ok = [r for r in Ledger(ledger_path(proj, opts(srv))).records() if r["status"] == "ok"]
    failed_rows = landed[landed["parse_status"] == "call_failed"]
    assert len(landed) == 10 and len(ok) == 10 - len(failed_rows)
    assert set(failed_rows["sample_id"]) == {"s2"} and len(failed_rows) == 4  # K-P and Q-P, both orders
    assert (landed.loc[landed["sample_id"] != "s2", "parse_status"] == "ok").all()
    # a fresh run: every call made now, none from the ledger
    assert "6 made, 0 from the ledger, 4 failed" in out


def test_the_summary_counts_ledger_hits_of_this_run_only(proj):
    with judge_server() as srv:
        first = run_judge(proj, opts(srv, limit=2))
        second = run_judge(proj, opts(srv))
    assert (first.calls_made, first.calls_cached) == (4, 0) and "4 made, 0 from the ledger" in first.summary()
    assert (second.calls_made, second.calls_cached) == (6, 4)
