"""models/marts/difficulty: section 5.3's human response time against model accuracy per category
(docs/marts_paper_extras.md). The correlation is rater1001.stats.ablations.spearman_small_n."""

from __future__ import annotations

import pandas as pd

from ..stats import ablations
from ._shared import ALL, as_frame, declared, finish, in_pool

POOL = "rt_accuracy"  # the conditions whose accuracy is averaged (seeds/condition_pools.csv)


def _paper(paper: pd.DataFrame, statistic: str, name: str, keys: list[str]) -> pd.DataFrame:
    """The paper's printed values of one statistic (seeds/paper_reported_values.csv), keyed for a merge."""
    part = paper[(paper["analysis"] == "difficulty") & (paper["statistic"] == statistic)]
    part = part.rename(columns={"dimension": "rt_dimension", "value": name})
    return part[keys + [name]]


def rt_accuracy(
    human_rt: pd.DataFrame, by_category: pd.DataFrame, paper: pd.DataFrame, provenance: pd.DataFrame
) -> pd.DataFrame:
    """Per RT dimension: the human median response time and the pool's mean classification
    accuracy (recall) of each category, and on the category 'all' row the Spearman rho between the
    response time and the mean error rate (1 - accuracy) over the categories.
    `human_rt`: category, dimension, median_rt_ms; `by_category`: condition_id, category, recall
    (the pool's conditions only); `paper`: seeds/paper_reported_values.csv."""
    acc = (
        by_category.dropna(subset=["recall"])
        .groupby("category", sort=True)
        .agg(
            mean_accuracy=("recall", "mean"),
            n_conditions=("condition_id", "nunique"),
            conditions=("condition_id", lambda c: ",".join(sorted(set(c)))),
        )
        .reset_index()
    )
    acc["mean_error_rate"] = 1 - acc["mean_accuracy"]
    rows = []
    for dim, rt in human_rt[human_rt["category"] != ALL].groupby("dimension", sort=True):
        merged = rt[["category", "median_rt_ms"]].merge(acc, on="category", how="left")
        for rec in merged.to_dict("records"):
            rows.append({"rt_dimension": dim, **rec})
        s = ablations.spearman_small_n(merged["median_rt_ms"], merged["mean_error_rate"])
        rows.append(
            {
                "rt_dimension": dim,
                "category": ALL,
                "n_conditions": acc["n_conditions"].max() if len(acc) else 0,
                "spearman_rho": s.rho,
                "p_value": s.p_value,
                "p_method": s.method,
                "n_categories": s.n,
                "small_n_caveat": s.caveat,
                "null_reason": s.reason,
            }
        )
    frame = pd.DataFrame(rows, columns=list(declared("difficulty_rt_accuracy"))[:-3])
    frame = (
        frame.merge(
            _paper(paper, "median_rt_ms", "paper_median_rt_ms", ["rt_dimension", "category"]),
            how="left",
            on=["rt_dimension", "category"],
        )
        .merge(_paper(paper, "mean_accuracy", "paper_mean_accuracy", ["category"]), how="left", on="category")
        .merge(
            _paper(paper, "spearman_rho", "paper_spearman_rho", ["rt_dimension", "category"]),
            how="left",
            on=["rt_dimension", "category"],
        )
    )
    frame["n_conditions"] = frame["n_conditions"].astype("Int64")
    frame["n_categories"] = frame["n_categories"].astype("Int64")
    return finish(frame, "difficulty_rt_accuracy", provenance)


# --- the dbt Python model (models/marts/difficulty/difficulty_rt_accuracy.py) -----------------------


def difficulty_rt_accuracy(human_rt, by_category, pools, paper, provenance) -> pd.DataFrame:
    return rt_accuracy(as_frame(human_rt), in_pool(as_frame(by_category), pools, POOL), as_frame(paper), provenance)
