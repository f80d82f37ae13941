"""The judges' reason texts (the log's 이유 line), read two ways: the most distinctive terms per
verdict and axis (weighted log-odds with an informative Dirichlet prior, rater1001.stats.terms),
and a few reasons per cell of the win-rate table, so a reader sees what a number is made of.

Both read anchor pairs only (every candidate against the anchor), from the candidate's side, like
judge_win_rates; a round-robin's model-vs-model pairs have no "preferred the anchor" reading.
"""
from __future__ import annotations

import hashlib
from collections import Counter

import pandas as pd

from ..stats.judge import winner_of
from ..stats.terms import DEFAULT_PRIOR_TOTAL, log_odds_dirichlet, tokenize
from .analysis import anchor_outcomes, typed

VERDICT_CLASSES = {"win": "candidate_preferred", "loss": "anchor_preferred", "tie": "tie"}

TERMS_SCHEMA = {
    "judge_id": "string", "axis": "string", "verdict": "string", "rank": "int", "term": "string",
    "n_in_verdict": "int", "n_in_other_verdicts": "int", "log_odds": "float", "se": "float", "z": "float",
    "n_reasons": "int", "prior_total": "float",
}
SAMPLES_SCHEMA = {
    "judge_id": "string", "candidate_id": "string", "anchor_id": "string", "axis": "string", "outcome": "string",
    "n_pairs_with_outcome": "int", "sample_rank": "int", "sample_id": "string", "variant": "string",
    "category": "string", "reason": "string",
}


def axes_of(calls: pd.DataFrame) -> list[str]:
    return [c.removeprefix("verdict_") for c in calls.columns if c.startswith("verdict_")]


def call_outcomes(calls: pd.DataFrame, anchor: str) -> pd.DataFrame:
    """LLM calls with a reason on anchor pairs, one row per call and axis: the call's own verdict
    (one order) from the candidate's side, win / tie / loss (NULL when the axis was not parsed)."""
    c = calls[(calls["judge_kind"] == "llm") & calls["reason"].notna()
              & ((calls["candidate_a"] == anchor) ^ (calls["candidate_b"] == anchor))]
    rows = []
    for axis in axes_of(calls):
        for r in c.itertuples(index=False):
            winner = winner_of(getattr(r, f"verdict_{axis}"), r.presentation_order)
            side = "a" if r.candidate_b == anchor else "b"
            outcome = None if winner is None else "tie" if winner == "tie" else "win" if winner == side else "loss"
            rows.append({"judge_id": r.judge_id, "axis": axis, "outcome": outcome, "reason": r.reason})
    return pd.DataFrame(rows, columns=["judge_id", "axis", "outcome", "reason"])


def reason_terms(calls: pd.DataFrame, anchor: str, *, top: int = 15,
                 prior_total: float = DEFAULT_PRIOR_TOTAL) -> pd.DataFrame:
    """Per (judge, axis, verdict class) the `top` terms most distinctive of that class's reasons
    against the judge's other reasons on the axis; the prior is all of the judge's reasons on it."""
    o = call_outcomes(calls, anchor).dropna(subset=["outcome"])
    rows = []
    for (judge_id, axis), g in o.groupby(["judge_id", "axis"]):
        bags = {k: Counter() for k in VERDICT_CLASSES}
        sizes = Counter(g["outcome"])
        for outcome, reason in zip(g["outcome"], g["reason"]):
            bags[outcome].update(tokenize(reason))
        everything = sum(bags.values(), Counter())
        for outcome, verdict in VERDICT_CLASSES.items():
            if not sizes[outcome]:
                continue
            rest = everything - bags[outcome]
            table = log_odds_dirichlet(bags[outcome], rest, everything, prior_total).head(top)
            for rank, t in enumerate(table.itertuples(index=False), start=1):
                rows.append({"judge_id": judge_id, "axis": axis, "verdict": verdict, "rank": rank, "term": t.term,
                             "n_in_verdict": t.n_group, "n_in_other_verdicts": t.n_rest, "log_odds": t.log_odds,
                             "se": t.se, "z": t.z, "n_reasons": sizes[outcome], "prior_total": prior_total})
    return typed(rows, TERMS_SCHEMA)


def _stable_order(*parts: str) -> str:
    """A reproducible pseudo-random order (no RNG state): the hash of the pair's identity."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def reason_samples(pairs: pd.DataFrame, calls: pd.DataFrame, anchor: str, *, per_cell: int = 2) -> pd.DataFrame:
    """Up to `per_cell` reasons per (judge, candidate, axis, outcome) of the win-rate table (variants
    pooled, the consolidated pair verdict as counted there); each is the reason the judge gave in
    the AB order (BA when AB has none). Chosen by a hash of the pair, so a rebuild shows the same."""
    o = anchor_outcomes(pairs[pairs["judge_kind"] == "llm"], anchor).dropna(subset=["outcome"])
    if o.empty:
        return typed([], SAMPLES_SCHEMA)
    key = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b"]
    why = calls[calls["reason"].notna()].sort_values("presentation_order").drop_duplicates(key)[key + ["reason"]]
    o = o.merge(why, on=key, how="inner")
    rows = []
    for (judge_id, cid, axis, outcome), g in o.groupby(["judge_id", "candidate_id", "axis", "outcome"]):
        g = g.assign(_order=[_stable_order(s, v, axis) for s, v in zip(g["sample_id"], g["variant"])])
        for rank, r in enumerate(g.sort_values("_order").head(per_cell).itertuples(index=False), start=1):
            rows.append({"judge_id": judge_id, "candidate_id": cid, "anchor_id": anchor, "axis": axis,
                         "outcome": outcome, "n_pairs_with_outcome": len(g), "sample_rank": rank,
                         "sample_id": r.sample_id, "variant": r.variant, "category": r.category, "reason": r.reason})
    return typed(rows, SAMPLES_SCHEMA)
