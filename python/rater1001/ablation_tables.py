"""Table builders behind the dbt Python models of models/marts/{ablations,calibration,small_pools,
intervals,alt_test} (docs/ablations.md). They take the per-image / per-cell frames the
models read from the warehouse, group them and call rater1001.stats; no statistic is defined here.
"""
from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from .stats import ablations, agreement, calibration, demographics, intervals, small_pools
from .stats.alpha import delta_alpha
from .stats.verdicts import VerdictRules, condition_passes, dimension_verdict, scoped_delta_alpha
from .stats.zscores import zscore

ALL = "all"  # the emotion value of rows computed over every emotion


def finish(frame: pd.DataFrame, columns: list[str], provenance: pd.DataFrame) -> pd.DataFrame:
    """The mart's declared columns in order (an empty input gives an empty table with the same
    columns, never a failed build) plus data_origin from int_study_provenance."""
    out = frame.reindex(columns=columns) if len(frame.columns) else pd.DataFrame(columns=columns)
    origin = provenance["data_origin"].iloc[0] if len(provenance) else None
    return out.assign(data_origin=origin)


def model_dimensions(predictions: pd.DataFrame) -> list[str]:
    """The model dimensions present in an int_model_vs_human-shaped frame (model_<dim> columns with
    a human_mean_<dim> partner): var('model_dimensions') as the warehouse built it."""
    return [c[len("model_"):] for c in predictions.columns
            if c.startswith("model_") and f"human_mean_{c[len('model_'):]}" in predictions.columns]


def _with_all(frame: pd.DataFrame, emotion: str) -> list[tuple[str, pd.DataFrame]]:
    """[('all', frame), (e1, part), ...] in emotion order."""
    return [(ALL, frame)] + [(e, p) for e, p in frame.groupby(emotion, sort=True)]


# ------------------------------------------------------------------ 4A-1 thinking pairs

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
                    pairs.append({"model_id": model_id, "condition_a": a["condition_id"], "condition_b": b["condition_id"]})
    return pd.DataFrame(pairs, columns=["model_id", "condition_a", "condition_b"])


def thinking_comparison(predictions: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """Table 4A-1 for every thinking pair, overall and per emotion. `predictions`: one row per
    (condition, image) with true_emotion, correct, thinking_tokens, n_steps."""
    out = []
    for pair in thinking_pairs(conditions).itertuples(index=False):
        a = predictions[predictions.condition_id == pair.condition_a].set_index("image_id")
        b = predictions[predictions.condition_id == pair.condition_b].set_index("image_id")
        images = a.index.intersection(b.index)
        if len(images) == 0:
            continue  # nothing paired (e.g. one side has no predictions): no row rather than an empty test
        both = pd.DataFrame({"emotion": a.loc[images, "true_emotion"], "ca": a.loc[images, "correct"],
                             "cb": b.loc[images, "correct"]})
        steps = {}
        for name, frame in (("a", a), ("b", b)):
            per_step = frame["thinking_tokens"] / frame["n_steps"].where(frame["n_steps"] > 0)
            steps[name] = float(per_step.mean()) if per_step.notna().any() else np.nan
        for emotion, part in _with_all(both, "emotion"):
            t = ablations.mcnemar_paired(part["ca"], part["cb"])
            acc_a = part["ca"].astype(float).mean()
            acc_b = part["cb"].astype(float).mean()
            out.append({"model_id": pair.model_id, "condition_a": pair.condition_a, "condition_b": pair.condition_b,
                        "emotion": emotion, "n_images": t.n_pairs, "accuracy_a": acc_a, "accuracy_b": acc_b,
                        "accuracy_diff_pp": 100 * (acc_a - acc_b),
                        "thinking_tokens_per_step_a": steps["a"], "thinking_tokens_per_step_b": steps["b"],
                        "both_correct": t.both_correct, "only_a_correct": t.only_a_correct,
                        "only_b_correct": t.only_b_correct, "both_wrong": t.both_wrong,
                        "mcnemar_statistic": t.statistic, "mcnemar_p": t.p_value, "mcnemar_method": t.method,
                        "mcnemar_null_reason": t.reason})
    return pd.DataFrame(out)


# ------------------------------------------------------------------ 4A-2 scaling series

def scaling_conditions(conditions: pd.DataFrame) -> pd.DataFrame:
    """Catalog rows of families with at least two distinct sizes (size_b) among non-thinking
    conditions (so a size step is not confounded with a thinking switch)."""
    c = conditions.dropna(subset=["family", "size_b"])
    c = c[~c["thinking"].fillna(False).astype(bool)]
    n_sizes = c.groupby("family")["size_b"].transform("nunique")
    return c[n_sizes >= 2][["family", "condition_id", "size_b"]]


def scaling_accuracy(predictions: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """Per family, size and emotion ('all' too): accuracy and the delta to the next smaller size."""
    series = scaling_conditions(conditions)
    rows = []
    for s in series.itertuples(index=False):
        p = predictions[predictions.condition_id == s.condition_id]
        if p.empty:
            continue
        for emotion, part in _with_all(p, "true_emotion"):
            rows.append({"family": s.family, "condition_id": s.condition_id, "size_b": s.size_b,
                         "emotion": emotion, "n_images": len(part),
                         "accuracy": part["correct"].fillna(False).astype(float).mean() if len(part) else np.nan})
    if not rows:
        return pd.DataFrame(columns=["family", "condition_id", "size_b", "emotion", "n_images", "accuracy",
                                     "previous_size", "delta_accuracy"])
    return ablations.size_deltas(pd.DataFrame(rows), ["family", "emotion"], "size_b", ["accuracy"])


def scaling_metrics(predictions: pd.DataFrame, conditions: pd.DataFrame, dimensions) -> pd.DataFrame:
    """Per family and size, long: <dim>_r, <dim>_mae, <dim>_bias and the largest race gap (accuracy
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
            rows += [{**base, "metric": f"{dim}_r", "value": r.r, "reason": r.reason},
                     {**base, "metric": f"{dim}_mae", "value": ba.mae, "reason": None},
                     {**base, "metric": f"{dim}_bias", "value": ba.bias, "reason": None}]
        gaps = demographics.slice_gaps(demographics.slice_metrics(p.rename(columns={"true_emotion": "emotion"})))
        race = gaps[gaps.slice_type == "race"]
        for name in ("accuracy", "f1"):
            value = float(race[f"{name}_gap_pp"].iloc[0]) if len(race) and pd.notna(race[f"{name}_gap_pp"].iloc[0]) else np.nan
            rows.append({**base, "metric": f"race_gap_{name}_pp", "value": value,
                         "reason": None if not np.isnan(value) else "fewer than two races"})
    if not rows:
        return pd.DataFrame(columns=["family", "condition_id", "size_b", "metric", "value", "reason",
                                     "previous_size", "delta_value"])
    return ablations.size_deltas(pd.DataFrame(rows), ["family", "metric"], "size_b", ["value"])


# ------------------------------------------------------------------ 4A-3 thinking traces

MEASURES = {"chars": "thinking_chars", "tokens": "thinking_tokens"}


def thinking_traces(predictions: pd.DataFrame, thinking_conditions) -> pd.DataFrame:
    """Per thinking condition, emotion ('all' too) and length measure (characters of the trace,
    reported thinking tokens): mean length, correct vs wrong means and the Mann-Whitney U test."""
    rows = []
    for cond in sorted(thinking_conditions):
        p = predictions[predictions.condition_id == cond]
        for measure, col in MEASURES.items():
            if p.empty or p[col].notna().sum() == 0:
                continue
            for emotion, part in _with_all(p, "true_emotion"):
                ok = part["correct"].fillna(False).astype(bool)
                x, y = part.loc[~ok, col], part.loc[ok, col]
                t = ablations.mann_whitney(x, y)
                rows.append({"condition_id": cond, "emotion": emotion, "measure": measure,
                             "n_traces": int(part[col].notna().sum()), "mean_length": part[col].mean(),
                             "mean_length_wrong": x.mean(), "mean_length_correct": y.mean(),
                             "n_wrong": t.n_x, "n_correct": t.n_y, "mann_whitney_u": t.u,
                             "mann_whitney_p": t.p_value, "rank_biserial_wrong_vs_correct": t.rank_biserial,
                             "null_reason": t.reason})
    return pd.DataFrame(rows, columns=["condition_id", "emotion", "measure", "n_traces", "mean_length",
                                       "mean_length_wrong", "mean_length_correct", "n_wrong", "n_correct",
                                       "mann_whitney_u", "mann_whitney_p", "rank_biserial_wrong_vs_correct",
                                       "null_reason"])


def thinking_rt_correlation(traces: pd.DataFrame, human_rt: pd.DataFrame) -> pd.DataFrame:
    """Spearman between per-emotion mean thinking length and the human median response time of the
    same emotion, per (condition, measure, rt_dimension). `human_rt`: emotion, dimension, median_rt_ms."""
    per_emotion = traces[traces.emotion != ALL]
    rows = []
    for (cond, measure), part in per_emotion.groupby(["condition_id", "measure"], sort=True):
        for dim, rt in human_rt.groupby("dimension", sort=True):
            m = part.merge(rt, on="emotion")
            s = ablations.spearman_small_n(m["mean_length"], m["median_rt_ms"])
            rows.append({"condition_id": cond, "measure": measure, "rt_dimension": dim, "n_emotions": s.n,
                         "spearman_rho": s.rho, "p_value": s.p_value, "p_method": s.method,
                         "small_n_caveat": s.caveat, "null_reason": s.reason})
    return pd.DataFrame(rows, columns=["condition_id", "measure", "rt_dimension", "n_emotions", "spearman_rho",
                                       "p_value", "p_method", "small_n_caveat", "null_reason"])


# ------------------------------------------------------------------ calibration

def calibration_scores(predictions: pd.DataFrame, image_stats: pd.DataFrame, loo: pd.DataFrame, dimensions,
                       scale, rules: VerdictRules, n_folds: int = 5, seed: int = calibration.SEED) -> pd.DataFrame:
    """Per (condition, dimension, emotion, method in none/offset/affine): out-of-sample scores,
    delta alpha with the (calibrated) model added over the emotion's images and pooled over all
    images of the dimension, and whether the condition passes the Table 8 rule as `rules` declare
    it (stats.verdicts.condition_passes, the rule replaceability_verdicts applies).
    `image_stats`: image_id, dimension, n_ratings, rating_sum, rating_sumsq; `loo`: emotion,
    dimension, loo_w1sd."""
    rows = []
    for dim in dimensions:
        stats_dim = image_stats[image_stats.dimension == dim].set_index("image_id")

        def delta(ans):
            st = stats_dim.reindex(ans["image_id"].to_numpy())
            base, plus, d = delta_alpha(st["n_ratings"].fillna(0), st["rating_sum"].fillna(0),
                                        st["rating_sumsq"].fillna(0), ans["calibrated"].to_numpy())
            return base.alpha, plus.alpha, d

        for cond, p in predictions.groupby("condition_id", sort=True):
            img = pd.DataFrame({"image_id": p["image_id"], "identity_id": p["identity_id"],
                                "emotion": p["true_emotion"], "model": p[f"model_{dim}"],
                                "human_mean": p[f"human_mean_{dim}"], "human_sd": p[f"human_sd_{dim}"]})
            # unanswered images stay: a missing answer counts against the model (before and after calibration)
            img = img[img["human_mean"].notna()].reset_index(drop=True)
            if img["identity_id"].nunique() < n_folds:
                continue
            scores, answers = calibration.calibration_table(img, n_folds, seed, scale)
            pooled = {method: delta(a)[2] for method, a in answers.groupby("method")}
            for s in scores.to_dict("records"):
                ans = answers[(answers.emotion == s["emotion"]) & (answers.method == s["method"])]
                a_h, a_m, d = delta(ans)
                rows.append({"condition_id": cond, "dimension": dim, **s, "alpha_human": a_h,
                             "alpha_with_model": a_m, "delta_alpha": d, "delta_alpha_pooled": pooled[s["method"]]})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out = out.merge(loo, on=["emotion", "dimension"], how="left")
    out["passes"] = condition_passes(out["w1sd"], out["loo_w1sd"], scoped_delta_alpha(out, rules), rules)[1]
    before = out[out.method == "none"].set_index(["condition_id", "dimension", "emotion"])
    key = pd.MultiIndex.from_frame(out[["condition_id", "dimension", "emotion"]])
    for col in ("w1sd", "mean_abs_z", "mae", "bias", "passes"):
        out[f"{col}_uncalibrated"] = before[col].reindex(key).to_numpy()
    out["pass_changed"] = out["passes"] != out["passes_uncalibrated"].astype(bool)
    out["note"] = calibration.STEREOTYPY_NOTE
    return out


def calibration_verdicts(scores: pd.DataFrame, loo: pd.DataFrame, rules: VerdictRules) -> pd.DataFrame:
    """The Table 8 dimension verdict of each (dimension, emotion) cell from the uncalibrated
    conditions and from every condition calibrated by each method, and whether it moved."""
    rows = []
    if scores.empty:
        return pd.DataFrame()
    for (dim, emotion, method), part in scores.groupby(["dimension", "emotion", "method"], sort=True):
        base = loo[(loo.dimension == dim) & (loo.emotion == emotion)]
        lw = float(base["loo_w1sd"].iloc[0]) if len(base) else np.nan
        lz = float(base["loo_mean_abs_z"].iloc[0]) if len(base) else np.nan
        hs = float(base["mean_human_sd"].iloc[0]) if len(base) else np.nan
        v = dimension_verdict(part[["condition_id", "w1sd", "mean_abs_z", "delta_alpha", "delta_alpha_pooled", "bias",
                                    "sd_d", "n_unique"]],
                              lw, lz, hs, rules)
        rows.append({"dimension": dim, "emotion": emotion, "method": method, **asdict(v)})
    out = pd.DataFrame(rows)
    none = out[out.method == "none"].set_index(["dimension", "emotion"])["verdict"]
    out["verdict_uncalibrated"] = none.reindex(pd.MultiIndex.from_frame(out[["dimension", "emotion"]])).to_numpy()
    out["verdict_moved"] = out["verdict"] != out["verdict_uncalibrated"]
    return out


# ------------------------------------------------------------------ small pools

def small_pool_table(value_counts: pd.DataFrame, predictions: pd.DataFrame, dimensions, ks=small_pools.DEFAULT_KS,
                     replicates: int = 200, seed: int = small_pools.SEED) -> pd.DataFrame:
    """`value_counts`: image_id, dimension, value, n. One row per (dimension, k, condition)."""
    frames = []
    for dim in dimensions:
        vc = value_counts[value_counts.dimension == dim]
        if vc.empty:
            continue
        units, pad = small_pools.padded_ratings(vc)
        model = (predictions.pivot_table(index="image_id", columns="condition_id", values=f"model_{dim}", aggfunc="first")
                 .reindex(units) if not predictions.empty else pd.DataFrame(index=units))
        t = small_pools.small_pool_alpha(pad, model, ks, replicates, seed)
        frames.append(t.assign(dimension=dim))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ------------------------------------------------------------------ bootstrap intervals

def headline_intervals(predictions: pd.DataFrame, image_stats: pd.DataFrame, dimensions, labels,
                       replicates: int = intervals.REPLICATES, seed: int = intervals.SEED) -> pd.DataFrame:
    """Long: (condition_id, dimension, emotion, statistic) -> estimate, lo, hi. The headline
    numbers of the report: human alpha (condition_id 'human'), alpha_with_model and delta_alpha
    over all images (Tables 4c/5c), W1SD over all images and per emotion (Tables 4d/4e), kappa
    (dimension 'classification', Table 2). Per emotion, that emotion's images are resampled."""
    # The replicates draw positions, so the same rows in another order would give other intervals;
    # a warehouse returns rows in no fixed order, hence one order here.
    image_stats = image_stats.sort_values(["dimension", "image_id"], kind="stable")
    predictions = predictions.sort_values(["condition_id", "image_id"], kind="stable")
    rows = []

    def add(cond, dim, emotion, stat, iv: intervals.Interval):
        rows.append({"condition_id": cond, "dimension": dim, "emotion": emotion, "statistic": stat,
                     "estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi, "n_images": iv.n_units,
                     "replicates": iv.replicates, "seed": iv.seed, "level": iv.level})

    for dim in dimensions:
        st = image_stats[image_stats.dimension == dim]
        add("human", dim, ALL, "alpha", intervals.alpha_intervals(
            st["n_ratings"], st["rating_sum"], st["rating_sumsq"], None, replicates, seed)["alpha"])
    for cond, p in predictions.groupby("condition_id", sort=True):
        # no kappa without a category and the model's labels (a study of ratings only)
        if p["true_emotion"].notna().any() and p["predicted_emotion"].notna().any():
            add(cond, "classification", ALL, "kappa",
                intervals.kappa_interval(p["true_emotion"], p["predicted_emotion"], labels, replicates, seed))
        for dim in dimensions:
            st = image_stats[image_stats.dimension == dim].set_index("image_id").reindex(p["image_id"])
            ivs = intervals.alpha_intervals(st["n_ratings"].fillna(0), st["rating_sum"].fillna(0),
                                            st["rating_sumsq"].fillna(0), p[f"model_{dim}"].to_numpy(),
                                            replicates, seed)
            add(cond, dim, ALL, "alpha_with_model", ivs["alpha_with_model"])
            add(cond, dim, ALL, "delta_alpha", ivs["delta_alpha"])
            for emotion, part in _with_all(p, "true_emotion"):
                add(cond, dim, emotion, "w1sd", intervals.w1sd_interval(
                    zscore(part[f"model_{dim}"], part[f"human_mean_{dim}"], part[f"human_sd_{dim}"]), replicates, seed,
                    missing=part[f"model_{dim}"].isna()))
    return pd.DataFrame(rows)
