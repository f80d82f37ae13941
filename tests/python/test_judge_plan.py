"""Pair plans: the log's call count (4 pairs x 2 orders x 56 samples x 4 variants - Qwen's 84
skipped calls = 1708), errored cells excluded and counted, round-robin pairs, and that each order
puts the right response in position 1."""

from __future__ import annotations

from itertools import product

import pandas as pd
import pytest
from rater1001.paths import REPO_ROOT
from rater1001.runs.judge.catalog import load_candidates
from rater1001.runs.judge.plan import PlanError, build_plan

CATALOG = load_candidates(REPO_ROOT / "seeds")
VARIANTS = ["text", "image", "audio_neutral", "audio_emotion"]


def candidates(n_samples=56, q_errors=42):
    rows = []
    samples = [f"s{k:02d}" for k in range(n_samples)]
    errored = set(list(product(samples, VARIANTS))[:q_errors])
    for s in samples:
        rows.append((s, "P", "text", f"{s}-P", "ok"))  # the human reference, landed once
        for c, v in product("KHQM", VARIANTS):
            bad = c == "Q" and (s, v) in errored
            rows.append((s, c, v, None if bad else f"{s}-{c}-{v}", "error" if bad else "ok"))
    return pd.DataFrame(rows, columns=["sample_id", "candidate_id", "variant", "response_text", "status"])


def test_anchor_plan_reproduces_the_logs_call_count():
    plan = build_plan(candidates(), CATALOG, plan="anchor")
    assert len(plan.calls) == 1708
    ex = plan.excluded.set_index(["candidate_id", "status"])
    assert int(ex.loc[("Q", "error"), "n_cells"].sum()) == 42
    assert int(plan.excluded["n_calls_skipped"].sum()) == 84
    assert {(c.candidate_a, c.candidate_b) for c in plan.calls} == {("K", "P"), ("H", "P"), ("Q", "P"), ("M", "P")}
    # every pair in both orders, and P's single text response is used in every variant
    per_pair = pd.Series([(c.sample_id, c.variant, c.candidate_a) for c in plan.calls]).value_counts()
    assert (per_pair == 2).all()
    assert {c.response_b for c in plan.calls if c.sample_id == "s05"} == {"s05-P"}


def test_orders_swap_positions():
    plan = build_plan(candidates(2, 0), CATALOG, plan="anchor", candidate_ids=["K"], variants=["image"])
    ab, ba = sorted((c for c in plan.calls if c.sample_id == "s00"), key=lambda c: c.order)
    assert (ab.order, ab.response_1, ab.response_2) == ("AB", "s00-K-image", "s00-P")
    assert (ba.order, ba.response_1, ba.response_2) == ("BA", "s00-P", "s00-K-image")


def test_round_robin_plan():
    plan = build_plan(candidates(3, 0), CATALOG, plan="round-robin")
    # 5 candidates -> 10 unordered pairs per (sample, variant), 2 orders each
    assert len(plan.calls) == 3 * 4 * 10 * 2
    pairs = {(c.candidate_a, c.candidate_b) for c in plan.calls}
    assert ("K", "H") in pairs and ("K", "P") in pairs and ("P", "K") not in pairs


def test_unknown_candidate_is_an_error():
    bad = candidates(1, 0)
    bad.loc[0, "candidate_id"] = "X"
    with pytest.raises(PlanError, match=r"\['X'\] not in seeds/judge_candidate_catalog.csv"):
        build_plan(bad, CATALOG)


def test_cells_without_an_anchor_response_are_counted():
    cands = candidates(3, 0)
    cands = cands[~((cands["sample_id"] == "s01") & (cands["candidate_id"] == "P"))]
    plan = build_plan(cands, CATALOG, plan="anchor")
    assert len(plan.calls) == 2 * 4 * 4 * 2
    ex = plan.excluded[plan.excluded["status"] == "no P response"]
    assert int(ex["n_cells"].sum()) == 16 and int(ex["n_calls_skipped"].sum()) == 32
