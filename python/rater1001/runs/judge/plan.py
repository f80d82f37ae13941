"""Pair plans: which pairs of candidate responses a judge compares, each in both orders.

anchor-only (the log's design): in every (sample, variant), every candidate against the anchor P;
the pair is (candidate, anchor). round-robin: every unordered pair of the candidates present in a
(sample, variant), anchor included; the pair is ordered by the catalog with the anchor last.
The anchor's response is variant-invariant (the dataset's human turn): it is landed once per
sample (any variant, `text` preferred) and used in every variant's pairs.
A candidate response that errored or is missing is excluded and counted, never judged; the log
skips Qwen's 42 errored cells this way (84 calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import pandas as pd

from .catalog import Candidate

ORDERS = ("AB", "BA")
PLANS = ("anchor", "round-robin")


class PlanError(ValueError):
    pass


@dataclass(frozen=True)
class JudgeCall:
    sample_id: str
    variant: str
    candidate_a: str
    candidate_b: str
    order: str  # AB: candidate_a shown as 응답 1
    response_a: str
    response_b: str

    @property
    def response_1(self) -> str:
        return self.response_a if self.order == "AB" else self.response_b

    @property
    def response_2(self) -> str:
        return self.response_b if self.order == "AB" else self.response_a


@dataclass(frozen=True)
class PairPlan:
    calls: list[JudgeCall]
    excluded: pd.DataFrame  # candidate_id, variant, status, n_cells, n_calls_skipped


def _anchor_responses(cands: pd.DataFrame, anchor: str, invariant: bool) -> dict:
    rows = cands[(cands["candidate_id"] == anchor) & (cands["status"] == "ok")]
    if not invariant:
        return {(s, v): t for s, v, t in zip(rows["sample_id"], rows["variant"], rows["response_text"])}
    by_sample: dict = {}
    for s, _v, t in sorted(
        zip(rows["sample_id"], rows["variant"], rows["response_text"]), key=lambda r: (r[0], r[1] != "text", r[1])
    ):
        by_sample.setdefault(s, t)
    return by_sample


def build_plan(
    candidates: pd.DataFrame,
    catalog: dict[str, Candidate],
    *,
    plan: str = "anchor",
    anchor: str | None = None,
    candidate_ids: list[str] | None = None,
    variants: list[str] | None = None,
    sample_ids: list[str] | None = None,
) -> PairPlan:
    if plan not in PLANS:
        raise PlanError(f"unknown plan {plan!r}; expected one of {', '.join(PLANS)}")
    anchors = [c.candidate_id for c in catalog.values() if c.is_anchor]
    anchor = anchor or (anchors[0] if anchors else None)
    if anchor is None:
        raise PlanError("no anchor: mark one candidate is_anchor in seeds/judge_candidate_catalog.csv or pass --anchor")
    unknown = sorted(set(candidates["candidate_id"]) - set(catalog))
    if unknown:
        raise PlanError(f"candidates: candidate_id {unknown} not in seeds/judge_candidate_catalog.csv")
    cands = candidates
    if sample_ids:
        cands = cands[cands["sample_id"].isin(sample_ids)]
    invariant = catalog[anchor].variant_invariant if anchor in catalog else False
    anchor_text = _anchor_responses(cands, anchor, invariant)
    models = cands[cands["candidate_id"] != anchor]
    if candidate_ids:
        models = models[models["candidate_id"].isin(candidate_ids)]
    if variants:
        models = models[models["variant"].isin(variants)]
    order_of = {cid: c.display_order for cid, c in catalog.items()}

    bad = models[models["status"] != "ok"]
    excluded = (
        bad.groupby(["candidate_id", "variant", "status"]).size().rename("n_cells").reset_index()
        if len(bad)
        else pd.DataFrame(columns=["candidate_id", "variant", "status", "n_cells"])
    )
    ok = models[models["status"] == "ok"]

    def anchor_for(sample_id, variant):
        return anchor_text.get(sample_id) if invariant else anchor_text.get((sample_id, variant))

    pairs: list[tuple[str, str, str, str, str, str]] = []
    for (sample_id, variant), cell in ok.groupby(["sample_id", "variant"], sort=True):
        present = {c: t for c, t in zip(cell["candidate_id"], cell["response_text"])}
        a_text = anchor_for(sample_id, variant)
        if a_text is not None:
            present[anchor] = a_text
        ids = sorted(present, key=lambda c: (c == anchor, order_of.get(c, 1e9), c))
        if plan == "anchor":
            chosen = [(c, anchor) for c in ids if c != anchor and anchor in present]
        else:
            chosen = list(combinations(ids, 2))
        for a, b in chosen:
            pairs.append((sample_id, variant, a, b, present[a], present[b]))
    if plan == "anchor":
        # Candidate cells whose sample has no usable anchor response cannot be paired: counted too.
        orphan = ok[[anchor_for(s, v) is None for s, v in zip(ok["sample_id"], ok["variant"])]]
        if len(orphan):
            extra = (
                orphan.assign(status=f"no {anchor} response")
                .groupby(["candidate_id", "variant", "status"])
                .size()
                .rename("n_cells")
                .reset_index()
            )
            excluded = pd.concat([excluded, extra], ignore_index=True) if len(excluded) else extra
    calls = [JudgeCall(s, v, a, b, o, ta, tb) for s, v, a, b, ta, tb in pairs for o in ORDERS]
    # Anchor-only: each excluded cell is one pair, two calls. Round-robin: depends on who else is present.
    excluded = excluded.assign(n_calls_skipped=lambda d: d["n_cells"] * 2 if plan == "anchor" else pd.NA)
    return PairPlan(calls, excluded.reset_index(drop=True))
