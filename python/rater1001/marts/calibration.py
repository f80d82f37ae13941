"""models/marts/calibration: per-category calibration (affine and offset-only) of each condition's
dimensional answers, scored out of sample, and whether it moves the Table 8 verdict
(docs/ablations.md). Every number is a call into rater1001.stats (calibration, alpha, verdicts)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ..stats import calibration
from ..stats.alpha import delta_alpha
from ..stats.verdict_rules import VerdictRules
from ..stats.verdicts import condition_passes, dimension_verdict, scoped_delta_alpha
from ._shared import as_frame, finish, in_pool, model_dimensions
from .replaceability import rules_from_seed

# calibration_verdicts restate Table 8's pass rule over the conditions replaceability_verdicts reads
POOL = "replaceability"


def scores_table(
    predictions: pd.DataFrame,
    image_stats: pd.DataFrame,
    loo: pd.DataFrame,
    dimensions,
    scale,
    rules: VerdictRules,
    n_folds: int = 5,
    seed: int = calibration.SEED,
) -> pd.DataFrame:
    """Per (condition, dimension, category, method in none/offset/affine): out-of-sample scores,
    delta alpha with the (calibrated) model added over the category's images and pooled over all
    images of the dimension, and whether the condition passes the Table 8 rule as `rules` declare
    it (stats.verdicts.condition_passes, the rule replaceability_verdicts applies).
    `image_stats`: image_id, dimension, n_ratings, rating_sum, rating_sumsq; `loo`: category,
    dimension, loo_w1sd."""
    rows = []
    for dim in dimensions:
        stats_dim = image_stats[image_stats.dimension == dim]
        at = pd.Index(stats_dim["image_id"])
        # each sufficient statistic with a 0 appended: an image without human ratings (position -1
        # from get_indexer) reads that 0
        sufficient = [
            np.append(stats_dim[c].fillna(0).to_numpy(float), 0.0) for c in ("n_ratings", "rating_sum", "rating_sumsq")
        ]

        def delta(pos, calibrated):
            r = delta_alpha(*(v[pos] for v in sufficient), calibrated)
            return r.without_extra.alpha, r.with_extra.alpha, r.delta

        # each answer's image as its position among the dimension's human statistics (-1: none),
        # looked up once: the text keys go no further (at 100x, string arrays and string lookups
        # were a third of the mart's time)
        position = at.get_indexer(predictions["image_id"].to_numpy())
        for cond, rows_of in predictions.groupby("condition_id", sort=True).indices.items():
            p = predictions.iloc[rows_of]
            img = pd.DataFrame(
                {
                    "image_id": position[rows_of],
                    "identity_id": p["identity_id"],
                    "category": p["true_category"],
                    "model": p[f"model_{dim}"],
                    "human_mean": p[f"human_mean_{dim}"],
                    "human_sd": p[f"human_sd_{dim}"],
                }
            )
            # unanswered images stay: a missing answer counts against the model (before and after calibration)
            img = img[img["human_mean"].notna()].reset_index(drop=True)
            # fewer identities than folds: one identity per fold (leave one identity out)
            folds = min(n_folds, img["identity_id"].nunique())
            if folds < 2:
                continue
            scores, answers = calibration.calibration_table(img, folds, seed, scale)
            ids, calibrated = answers["image_id"].to_numpy(), answers["calibrated"].to_numpy()
            pooled = {
                method: delta(ids[i], calibrated[i])[2] for method, i in answers.groupby("method").indices.items()
            }
            cells = answers.groupby(["category", "method"]).indices
            for s in scores.to_dict("records"):
                i = cells.get((s["category"], s["method"]), np.array([], dtype=int))
                a_h, a_m, d = delta(ids[i], calibrated[i])
                rows.append(
                    {
                        "condition_id": cond,
                        "dimension": dim,
                        **s,
                        "alpha_human": a_h,
                        "alpha_with_model": a_m,
                        "delta_alpha": d,
                        "delta_alpha_pooled": pooled[s["method"]],
                    }
                )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out = out.merge(loo, on=["category", "dimension"], how="left")
    out["passes"] = condition_passes(out["w1sd"], out["loo_w1sd"], scoped_delta_alpha(out, rules), rules).passes
    before = out[out.method == "none"].set_index(["condition_id", "dimension", "category"])
    key = pd.MultiIndex.from_frame(out[["condition_id", "dimension", "category"]])
    for col in ("w1sd", "mean_abs_z", "mae", "bias", "passes"):
        out[f"{col}_uncalibrated"] = before[col].reindex(key).to_numpy()
    out["pass_changed"] = out["passes"] != out["passes_uncalibrated"].astype(bool)
    out["note"] = calibration.STEREOTYPY_NOTE
    return out


def verdicts_table(scores: pd.DataFrame, loo: pd.DataFrame, rules: VerdictRules) -> pd.DataFrame:
    """The Table 8 dimension verdict of each (dimension, category) cell from the uncalibrated
    conditions and from every condition calibrated by each method, and whether it moved."""
    rows = []
    if scores.empty:
        return pd.DataFrame()
    for (dim, category, method), part in scores.groupby(["dimension", "category", "method"], sort=True):
        base = loo[(loo.dimension == dim) & (loo.category == category)]
        lw = float(base["loo_w1sd"].iloc[0]) if len(base) else np.nan
        lz = float(base["loo_mean_abs_z"].iloc[0]) if len(base) else np.nan
        hs = float(base["mean_human_sd"].iloc[0]) if len(base) else np.nan
        v = dimension_verdict(
            part[
                ["condition_id", "w1sd", "mean_abs_z", "delta_alpha", "delta_alpha_pooled", "bias", "sd_d", "n_unique"]
            ],
            lw,
            lz,
            hs,
            rules,
        )
        rows.append({"dimension": dim, "category": category, "method": method, **asdict(v)})
    out = pd.DataFrame(rows)
    none = out[out.method == "none"].set_index(["dimension", "category"])["verdict"]
    out["verdict_uncalibrated"] = none.reindex(pd.MultiIndex.from_frame(out[["dimension", "category"]])).to_numpy()
    out["verdict_moved"] = out["verdict"] != out["verdict_uncalibrated"]
    return out


# --- the dbt Python models (models/marts/calibration/*.py) -------------------------------------------


def calibration_scores(
    model_vs_human,
    pools,
    image_stats,
    human_baseline,
    verdict_rules,
    provenance,
    *,
    scale_min,
    scale_max,
    folds=None,
    seed=None,
) -> pd.DataFrame:
    rows = in_pool(model_vs_human, pools, POOL)
    dimensions = model_dimensions(rows)
    # only what scores_table reads: the other columns (every dimension's Bland-Altman terms, the
    # stimulus factors) would reach pandas for nothing, a Python object per text value
    read = {"condition_id", "image_id", "identity_id", "true_category"} | {
        f"{part}_{dim}" for dim in dimensions for part in ("model", "human_mean", "human_sd")
    }
    stats_read = ["image_id", "dimension", "n_ratings", "rating_sum", "rating_sumsq"]
    loo_read = ["category", "dimension", "loo_w1sd"]
    stats = as_frame(image_stats, stats_read)[stats_read]
    loo = as_frame(human_baseline, loo_read)[loo_read]
    out = scores_table(
        as_frame(rows, read),
        stats,
        loo,
        dimensions,
        (float(scale_min), float(scale_max)),
        rules_from_seed(verdict_rules),
        int(folds or 5),
        int(seed or calibration.SEED),
    )
    return finish(out, "calibration_scores", provenance)


def calibration_verdicts(scores, human_baseline, verdict_rules, provenance) -> pd.DataFrame:
    # the seed table, as replaceability_verdicts reads it, so the two cannot use different rules
    out = verdicts_table(as_frame(scores), as_frame(human_baseline), rules_from_seed(verdict_rules))
    return finish(out, "calibration_verdicts", provenance)
