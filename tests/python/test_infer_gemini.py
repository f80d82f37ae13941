"""The real `google-genai` SDK against a fake Gemini server: thinking budget (-1 and 0), include
thoughts, thought text and thoughts_token_count, and the SDK's errors mapped to retry decisions."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from fakes.models import gemini_error, gemini_parts, gemini_server
from fakes.project import make_infer_project, truth
from rater1001.runs.infer.run import InferOptions, run_infer
from rater1001.runs.runner import RetryPolicy

KEY = "gm-test-0123456789-abcdefghijklmnop"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)


def answer(image_id, step, prompt):
    e = truth(image_id)
    return {
        "emotion": f'```json\n{{"emotion": "{e}"}}\n```',
        "valence": '{"valence": 3}',
        "arousal": '{"arousal": 5}',
        "all": json.dumps({"emotion": e, "valence": 3, "arousal": 5}),
    }[step]


def thinking_cfg(cfg: dict) -> tuple[int | None, bool | None]:
    tc = cfg.get("thinkingConfig") or {}
    budget = tc.get("thinkingBudget", tc.get("thinking_budget"))
    include = tc.get("includeThoughts", tc.get("include_thoughts"))
    return budget, include


def like_the_api(cfg: dict):
    """Gemini 2.5 Flash as the paper saw it (4A.1): a dynamic budget thinks ~500 tokens and returns
    the thought text when asked; budget 0 still reports ~199 internal thought tokens, no text."""
    budget, include = thinking_cfg(cfg)
    tokens = 199 if budget == 0 else 512
    return ("Lowered brows and a tight mouth." if include else None), tokens


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    return make_infer_project(tmp_path, n_images=3)


def test_thinking_and_nothink_conditions(proj):
    paths, images = proj
    with gemini_server(answer, thinking=like_the_api) as srv:
        result = run_infer(
            paths,
            InferOptions(
                ["gemini-2.5-flash", "gemini-2.5-flash-nothink"],
                images,
                base_url=srv.url,
                limit=2,
                progress=False,
                retry=FAST,
            ),
        )
    assert len(srv.requests) == 2 * 2 * 3
    seen = set()
    for req in srv.requests:
        assert req.headers["x-goog-api-key"] == KEY
        assert req.path.endswith("/models/gemini-2.5-flash:generateContent")
        cfg = req.body["generationConfig"]
        assert cfg["temperature"] == 0
        seen.add(thinking_cfg(cfg))
    assert seen == {(-1, True), (0, False)}
    rows = result.rows.set_index(["condition_id", "image_id"])
    think = rows.loc[("gemini-2.5-flash", "img0000")]
    nothink = rows.loc[("gemini-2.5-flash-nothink", "img0000")]
    assert think["thinking_tokens"] == 3 * 512 and nothink["thinking_tokens"] == 3 * 199
    assert think["thinking_text"].count("Lowered brows") == 3 and pd.isna(nothink["thinking_text"])
    # the thought part is not mistaken for the answer
    assert think["emotion"] == truth("img0000") and think["parse_path"] == "fenced"
    assert json.loads(think["raw_responses"])[1] == '{"valence": 3}'
    s = result.summary.set_index("condition_id")
    # cost: thoughts are billed as output (seeds/api_prices.csv: 0.30 in / 2.50 out per million)
    tin, tout, tthink = 2 * 3 * 300, 2 * 3 * 8, 2 * 3 * 512
    assert s.loc["gemini-2.5-flash", "cost_usd"] == pytest.approx(round((tin * 0.30 + (tout + tthink) * 2.50) / 1e6, 4))


def test_sdk_errors_are_retried_or_recorded(proj):
    paths, images = proj
    with gemini_server(answer) as srv:
        srv.queue(gemini_error(429, "RESOURCE_EXHAUSTED", {"Retry-After": "0.3"}), gemini_error(503, "UNAVAILABLE"))
        ok = run_infer(
            paths,
            InferOptions(
                ["gemini-2.5-flash"],
                images,
                base_url=srv.url,
                limit=1,
                strategy="json-single",
                progress=False,
                retry=FAST,
            ),
        )
        assert ok.retries == 2 and not ok.incomplete and srv.requests[1].at - srv.requests[0].at >= 0.3
        srv.queue(gemini_error(400, "INVALID_ARGUMENT"))
        bad = run_infer(
            paths,
            InferOptions(
                ["gemini-2.5-flash"],
                images,
                base_url=srv.url,
                limit=2,
                strategy="json-single",
                progress=False,
                retry=FAST,
            ),
        )
    assert len(srv.requests) == 4  # 3 for the first image, 1 (not retried) for the second
    assert [i[1] for i in bad.incomplete] == ["img0001"] and "bad_request" in bad.incomplete[0][2]


def test_a_hang_past_the_timeout_is_retried(proj):
    paths, images = proj
    from fakes.models import gemini_reply

    with gemini_server(answer) as srv:
        hang = gemini_reply("{}")
        hang.hang = True  # never answers: the client's timeout ends the call
        srv.queue(hang)
        result = run_infer(
            paths,
            InferOptions(
                ["gemini-2.5-flash-nothink"],
                images,
                base_url=srv.url,
                limit=1,
                strategy="json-single",
                timeout_s=1.0,
                progress=False,
                retry=FAST,
            ),
        )
    assert len(srv.requests) == 2 and result.retries == 1 and len(result.rows) == 1
    prompt, image_id = gemini_parts(srv.requests[1].body)
    assert image_id == "img0000" and prompt.startswith("Analyze the facial expression")
