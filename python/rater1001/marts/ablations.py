"""models/marts/ablations: the paper's section 4A tables (docs/ablations.md): thinking on/off
pairs (4A-1), size series (4A-2) and thinking traces (4A-3). They take the per-image frames the
models read from the warehouse, group them and call rater1001.stats; no statistic is defined here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import ablations, agreement, demographics
from ._shared import ALL, as_frame, declared, finish, model_dimensions, scopes

# --- 4A-1 thinking pairs


def thinking_pairs(conditions: pd.DataFrame) -> pd.DataFrame:
    """Pairs of catalog conditions with the same model_id and a different thinking setting
    (thinking flag or thinking budget): condition_a is the one with more thinking (thinking on,
    else the larger budget; -1 = dynamic counts as the largest)."""
    c = conditions.dropna(subset=["model_id"]).copy()
    budget = pd.to_numeric(c["thinking_budget"], errors="coerce")
    c["_rank"] = c["thinking"].fillna(False).astype(int) * 1e9 + budget.where(budget >= 0, 1e8).fillna(0)
    pairs = []
    for model_id, part in c.groupby("model_id", sort=True):
        part = part.sort_values(["_rank", "condition_id"], ascending=[False, True])
        rows = part.to_dict("records")
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                a, b = rows[i], rows[j]
                if a["_rank"] != b["_rank"]:
                    pairs.append(
                        {"model_id": model_id, "condition_a": a["condition_id"], "condition_b": b["condition_id"]}
                    )
    return pd.DataFrame(pairs, columns=["model_id", "condition_a", "condition_b"])


def thinking_comparison(predictions: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """Table 4A-1 for every thinking pair, overall and per category. `predictions`: one row per
    (condition, image) with true_category, correct, thinking_tokens, n_steps."""
    out = []
    for pair in thinking_pairs(conditions).itertuples(index=False):
        a = predictions[predictions.condition_id == pair.condition_a].set_index("image_id")
        b = predictions[predictions.condition_id == pair.condition_b].set_index("image_id")
        images = a.index.intersection(b.index)
        if len(images) == 0:
            continue  # nothing paired (e.g. one side has no predictions): no row rather than an empty test
        both = pd.DataFrame(
            {"category": a.loc[images, "true_category"], "ca": a.loc[images, "correct"], "cb": b.loc[images, "correct"]}
        )
        steps = {}
        for name, frame in (("a", a), ("b", b)):
            per_step = frame["thinking_tokens"] / frame["n_steps"].where(frame["n_steps"] > 0)
            steps[name] = float(per_step.mean()) if per_step.notna().any() else np.nan
        for category, part in scopes(both, "category"):
            t = ablations.mcnemar_paired(part["ca"], part["cb"])
            acc_a = part["ca"].astype(float).mean()
            acc_b = part["cb"].astype(float).mean()
            out.append(
                {
                    "model_id": pair.model_id,
                    "condition_a": pair.condition_a,
                    "condition_b": pair.condition_b,
                    "category": category,
                    "n_images": t.n_pairs,
                    "accuracy_a": acc_a,
                    "accuracy_b": acc_b,
                    "accuracy_diff_pp": 100 * (acc_a - acc_b),
                    "thinking_tokens_per_step_a": steps["a"],
                    "thinking_tokens_per_step_b": steps["b"],
                    "both_correct": t.both_correct,
                    "only_a_correct": t.only_a_correct,
                    "only_b_correct": t.only_b_correct,
                    "both_wrong": t.both_wrong,
                    "mcnemar_statistic": t.statistic,
                    "mcnemar_p": t.p_value,
                    "mcnemar_method": t.method,
                    "mcnemar_null_reason": t.reason,
                }
            )
    return pd.DataFrame(out)


# --- 4A-2 scaling series


def scaling_conditions(conditions: pd.DataFrame) -> pd.DataFrame:
    """Catalog rows of families with at least two distinct sizes (size_b) among non-thinking
    conditions (so a size step is not confounded with a thinking switch)."""
    c = conditions.dropna(subset=["family", "size_b"])
    c = c[~c["thinking"].fillna(False).astype(bool)]
    n_sizes = c.groupby("family")["size_b"].transform("nunique")
    return c[n_sizes >= 2][["family", "condition_id", "size_b"]]


def scaling_accuracy(predictions: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """Per family, size and category ('all' too): accuracy and the delta to the next smaller size."""
    series = scaling_conditions(conditions)
    rows = []
    for s in series.itertuples(index=False):
        p = predictions[predictions.condition_id == s.condition_id]
        if p.empty:
            continue
        for category, part in scopes(p, "true_category"):
            rows.append(
                {
                    "family": s.family,
                    "condition_id": s.condition_id,
                    "size_b": s.size_b,
                    "category": category,
                    "n_images": len(part),
                    "accuracy": part["correct"].fillna(False).astype(float).mean() if len(part) else np.nan,
                }
            )
    if not rows:
        return pd.DataFrame(columns=list(declared("ablation_scaling_accuracy")))
    return ablations.size_deltas(pd.DataFrame(rows), ["family", "category"], "size_b", ["accuracy"])


def scaling_metrics(predictions: pd.DataFrame, conditions: pd.DataFrame, dimensions) -> pd.DataFrame:
    """Per family and size, long: <dim>_r, <dim>_mae, <dim>_bias and the largest audit_1 gap (accuracy
    and macro-F1, percentage points), each with the delta to the next smaller size."""
    series = scaling_conditions(conditions)
    rows = []
    for s in series.itertuples(index=False):
        p = predictions[predictions.condition_id == s.condition_id]
        if p.empty:
            continue
        base = {"family": s.family, "condition_id": s.condition_id, "size_b": s.size_b}
        for dim in dimensions:
            r = agreement.pearson(p[f"human_mean_{dim}"], p[f"model_{dim}"])
            ba = agreement.bland_altman(p[f"human_mean_{dim}"], p[f"model_{dim}"])
            rows += [
                {**base, "metric": f"{dim}_r", "value": r.r, "reason": r.reason},
                {**base, "metric": f"{dim}_mae", "value": ba.mae, "reason": None},
                {**base, "metric": f"{dim}_bias", "value": ba.bias, "reason": None},
            ]
        # the first audit factor's slices over the stimuli with a level of it (none without one)
        first = p[p["audit_1"].notna() & p["true_category"].notna()].rename(columns={"true_category": "category"})
        slices = demographics.slice_metrics(first, factors=("audit_1",)) if len(first) else pd.DataFrame()
        gaps = demographics.slice_gaps(slices) if len(slices) else pd.DataFrame(columns=["slice_type"])
        audit_1 = gaps[gaps.slice_type == "audit_1"]
        for name in ("accuracy", "f1"):
            value = (
                float(audit_1[f"{name}_gap_pp"].iloc[0])
                if len(audit_1) and pd.notna(audit_1[f"{name}_gap_pp"].iloc[0])
                else np.nan
            )
            rows.append(
                {
                    **base,
                    "metric": f"audit_1_gap_{name}_pp",
                    "value": value,
                    "reason": None if not np.isnan(value) else "fewer than two levels of the first audit factor",
                }
            )
    if not rows:
        return pd.DataFrame(columns=list(declared("ablation_scaling_metrics")))
    return ablations.size_deltas(pd.DataFrame(rows), ["family", "metric"], "size_b", ["value"])


# --- 4A-3 thinking traces

MEASURES = {"chars": "thinking_chars", "tokens": "thinking_tokens"}


def thinking_traces(predictions: pd.DataFrame, thinking_conditions) -> pd.DataFrame:
    """Per thinking condition, category ('all' too) and length measure (characters of the trace,
    reported thinking tokens): mean length, correct vs wrong means and the Mann-Whitney U test."""
    rows = []
    for cond in sorted(thinking_conditions):
        p = predictions[predictions.condition_id == cond]
        for measure, col in MEASURES.items():
            if p.empty or p[col].notna().sum() == 0:
                continue
            for category, part in scopes(p, "true_category"):
                ok = part["correct"].fillna(False).astype(bool)
                x, y = part.loc[~ok, col], part.loc[ok, col]
                t = ablations.mann_whitney(x, y)
                rows.append(
                    {
                        "condition_id": cond,
                        "category": category,
                        "measure": measure,
                        "n_traces": int(part[col].notna().sum()),
                        "mean_length": part[col].mean(),
                        "mean_length_wrong": x.mean(),
                        "mean_length_correct": y.mean(),
                        "n_wrong": t.n_x,
                        "n_correct": t.n_y,
                        "mann_whitney_u": t.u,
                        "mann_whitney_p": t.p_value,
                        "rank_biserial_wrong_vs_correct": t.rank_biserial,
                        "null_reason": t.reason,
                    }
                )
    return pd.DataFrame(rows, columns=list(declared("ablation_thinking_traces")))


def thinking_rt_correlation(traces: pd.DataFrame, human_rt: pd.DataFrame) -> pd.DataFrame:
    """Spearman between per-category mean thinking length and the human median response time of the
    same category, per (condition, measure, rt_dimension). `human_rt`: category, dimension, median_rt_ms."""
    per_category = traces[traces.category != ALL]
    rows = []
    for (cond, measure), part in per_category.groupby(["condition_id", "measure"], sort=True):
        for dim, rt in human_rt.groupby("dimension", sort=True):
            m = part.merge(rt, on="category")
            s = ablations.spearman_small_n(m["mean_length"], m["median_rt_ms"])
            rows.append(
                {
                    "condition_id": cond,
                    "measure": measure,
                    "rt_dimension": dim,
                    "n_categories": s.n,
                    "spearman_rho": s.rho,
                    "p_value": s.p_value,
                    "p_method": s.method,
                    "small_n_caveat": s.caveat,
                    "null_reason": s.reason,
                }
            )
    return pd.DataFrame(rows, columns=list(declared("ablation_thinking_rt")))


# --- the dbt Python models (models/marts/ablations/*.py) ---------------------------------------------


# what thinking_comparison reads of a prediction row: the others (every dimension's answer and
# human statistics, the traces' measures) would reach pandas for nothing
_THINKING_READ = ["condition_id", "image_id", "true_category", "correct", "thinking_tokens", "n_steps"]


def ablation_thinking_comparison(predictions, conditions, provenance) -> pd.DataFrame:
    rows = as_frame(predictions, _THINKING_READ)
    return finish(thinking_comparison(rows, as_frame(conditions)), "ablation_thinking_comparison", provenance)


def ablation_scaling_accuracy(predictions, conditions, provenance) -> pd.DataFrame:
    return finish(
        scaling_accuracy(as_frame(predictions), as_frame(conditions)), "ablation_scaling_accuracy", provenance
    )


def ablation_scaling_metrics(predictions, conditions, provenance) -> pd.DataFrame:
    rows = as_frame(predictions)
    return finish(
        scaling_metrics(rows, as_frame(conditions), model_dimensions(rows)), "ablation_scaling_metrics", provenance
    )


def ablation_thinking_traces(predictions, provenance) -> pd.DataFrame:
    rows = as_frame(predictions)
    thinking = sorted(rows.loc[rows["condition_thinking"].fillna(False).astype(bool), "condition_id"].unique())
    return finish(thinking_traces(rows, thinking), "ablation_thinking_traces", provenance)


def ablation_thinking_rt(traces, human_rt, provenance) -> pd.DataFrame:
    return finish(thinking_rt_correlation(as_frame(traces), as_frame(human_rt)), "ablation_thinking_rt", provenance)
