"""The log's per-category review item: Korean-specific emotions (정, 한, 공명) against general
emotions, per judge. Which categories are Korean-specific is data (seeds/judge_category_groups.csv);
every other category is general.

Two readings: the win rate against the anchor in each group and their difference (does a candidate
do worse on Korean-specific emotions, as a judge sees it), and the agreement between judges in each
group (a judge that cannot read 한 agrees less with the others there: the log's Bias 4 check with a
second judge).
"""
from __future__ import annotations

import pandas as pd

from ..stats import judge as js
from .analysis import AGREEMENT_SCHEMA, ALL, agreement, anchor_outcomes, typed

KOREAN, GENERAL = "korean_specific", "general"

GROUP_SCHEMA = {
    "judge_id": "string", "judge_kind": "string", "candidate_id": "string", "anchor_id": "string",
    "variant": "string", "axis": "string",
    "korean_categories": "string", "korean_n_pairs": "int", "korean_win_rate": "float",
    "korean_ci_low": "float", "korean_ci_high": "float",
    "general_n_pairs": "int", "general_win_rate": "float", "general_ci_low": "float", "general_ci_high": "float",
    "difference": "float", "difference_ci_low": "float", "difference_ci_high": "float", "p_value": "float",
}
GROUP_AGREEMENT_SCHEMA = {"category_group": "string", **AGREEMENT_SCHEMA}

SCORES = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def group_of(categories: pd.Series, groups: pd.DataFrame) -> pd.Series:
    declared = dict(zip(groups["category"], groups["category_group"]))
    return categories.map(lambda c: declared.get(c, GENERAL)).astype("object")


def category_group_win_rates(pairs: pd.DataFrame, anchor: str, groups: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, candidate, variant incl. 'all', axis): the win rate against the anchor on the
    Korean-specific categories and on the general ones, and Korean minus general (Welch interval
    on the pair scores). A pair without a verdict scores 0, as in judge_win_rates."""
    o = anchor_outcomes(pairs, anchor)
    rows = []
    if len(o):
        o = o.assign(category_group=group_of(o["category"], groups))
        o = pd.concat([o, o.assign(variant=ALL)], ignore_index=True)
        for (judge_id, kind, cid, variant, axis), g in o.groupby(
                ["judge_id", "judge_kind", "candidate_id", "variant", "axis"], dropna=False):
            k, gen = g[g["category_group"] == KOREAN], g[g["category_group"] == GENERAL]
            ks, gs = js.win_rate_summary(k["outcome"]), js.win_rate_summary(gen["outcome"])
            diff = js.score_difference(k["outcome"].map(SCORES).fillna(0.0), gen["outcome"].map(SCORES).fillna(0.0))
            rows.append({"judge_id": judge_id, "judge_kind": kind, "candidate_id": cid, "anchor_id": anchor,
                         "variant": variant, "axis": axis,
                         "korean_categories": ", ".join(sorted(k["category"].dropna().unique())) or None,
                         "korean_n_pairs": ks["n_pairs"], "korean_win_rate": ks["win_rate"],
                         "korean_ci_low": ks["win_rate_ci_low"], "korean_ci_high": ks["win_rate_ci_high"],
                         "general_n_pairs": gs["n_pairs"], "general_win_rate": gs["win_rate"],
                         "general_ci_low": gs["win_rate_ci_low"], "general_ci_high": gs["win_rate_ci_high"],
                         "difference": diff["difference"], "difference_ci_low": diff["ci_low"],
                         "difference_ci_high": diff["ci_high"], "p_value": diff["p_value"]})
    return typed(rows, GROUP_SCHEMA)


def category_group_agreement(pairs: pd.DataFrame, groups: pd.DataFrame) -> pd.DataFrame:
    """judge_agreement (Cohen's kappa between every two judges, and each judge against the human
    majority) within each category group."""
    frames = []
    if len(pairs):
        grouped = pairs.assign(category_group=group_of(pairs["category"], groups))
        for name in (KOREAN, GENERAL):
            a = agreement(grouped[grouped["category_group"] == name].drop(columns="category_group"))
            frames.append(a.assign(category_group=name))
    rows = pd.concat(frames, ignore_index=True) if frames else []
    return typed(rows, GROUP_AGREEMENT_SCHEMA)
