"""Table builders behind the dbt Python models of the paper's analyses that had no table
(models/marts/human_baseline, models/marts/difficulty; docs/marts_paper_extras.md): section 3.2's
rater vs image variance and section 5.3's response time against model accuracy. They group the
frames the models read and call rater1001.stats; no statistic is defined here."""
from __future__ import annotations

import pandas as pd

from .ablation_tables import ALL, finish
from .stats import ablations
from .stats.variance_components import METHOD, crossed_variance_components

VARIANCE_COLUMNS = ["dimension", "rater_variance", "image_variance", "residual_variance", "rater_to_image_ratio",
                    "rater_share", "image_share", "n_ratings", "n_raters", "n_images", "formula", "method",
                    "singular", "fit_error"]


def variance_components(ratings_long: pd.DataFrame, stimuli: pd.DataFrame, provenance: pd.DataFrame,
                        category: str = "emotion") -> pd.DataFrame:
    """One crossed fit per dimension of int_human_ratings_long (rater_id, image_id, dimension,
    rating); the stimulus's `category` column enters as fixed effects when the study has it."""
    has_category = category in stimuli.columns and stimuli[category].notna().any()
    cats = stimuli.set_index("image_id")[category] if has_category else None
    rows = []
    for dim, part in ratings_long.groupby("dimension", sort=True):
        try:
            vc = crossed_variance_components(part["rating"], part["rater_id"], part["image_id"],
                                             part["image_id"].map(cats) if has_category else None)
        except Exception as exc:  # a degenerate dimension is reported, not fatal
            rows.append({"dimension": dim, "n_ratings": len(part), "method": METHOD,
                         "fit_error": f"{type(exc).__name__}: {exc}"[:500]})
            continue
        total = vc.rater_variance + vc.image_variance + vc.residual_variance
        rows.append({"dimension": dim, "rater_variance": vc.rater_variance, "image_variance": vc.image_variance,
                     "residual_variance": vc.residual_variance, "rater_to_image_ratio": vc.rater_to_image_ratio,
                     "rater_share": vc.rater_variance / total, "image_share": vc.image_variance / total,
                     "n_ratings": vc.n_obs, "n_raters": vc.n_raters, "n_images": vc.n_images,
                     "formula": vc.formula.replace("<category>", category), "method": METHOD,
                     "singular": vc.singular})
    return finish(pd.DataFrame(rows, columns=VARIANCE_COLUMNS), VARIANCE_COLUMNS, provenance)


RT_ACCURACY_COLUMNS = ["rt_dimension", "emotion", "median_rt_ms", "mean_accuracy", "mean_error_rate",
                       "n_conditions", "conditions", "spearman_rho", "p_value", "p_method", "n_emotions",
                       "small_n_caveat", "null_reason", "paper_median_rt_ms", "paper_mean_accuracy",
                       "paper_spearman_rho"]


def _paper(paper: pd.DataFrame, statistic: str, name: str, keys: list[str]) -> pd.DataFrame:
    """The paper's printed values of one statistic (seeds/paper_reported_values.csv), keyed for a merge."""
    part = paper[(paper["analysis"] == "difficulty") & (paper["statistic"] == statistic)]
    part = part.rename(columns={"dimension": "rt_dimension", "value": name})
    return part[keys + [name]]


def rt_accuracy(human_rt: pd.DataFrame, by_emotion: pd.DataFrame, paper: pd.DataFrame,
                provenance: pd.DataFrame) -> pd.DataFrame:
    """Per RT dimension: the human median response time and the pool's mean classification
    accuracy (recall) of each emotion, and on the emotion 'all' row the Spearman rho between the
    response time and the mean error rate (1 - accuracy) over the emotions.
    `human_rt`: emotion, dimension, median_rt_ms; `by_emotion`: condition_id, emotion, recall
    (the pool's conditions only); `paper`: seeds/paper_reported_values.csv."""
    acc = (by_emotion.dropna(subset=["recall"]).groupby("emotion", sort=True)
           .agg(mean_accuracy=("recall", "mean"), n_conditions=("condition_id", "nunique"),
                conditions=("condition_id", lambda c: ",".join(sorted(set(c)))))
           .reset_index())
    acc["mean_error_rate"] = 1 - acc["mean_accuracy"]
    rows = []
    for dim, rt in human_rt.dropna(subset=["emotion"]).groupby("dimension", sort=True):
        merged = rt[["emotion", "median_rt_ms"]].merge(acc, on="emotion", how="left")
        for rec in merged.to_dict("records"):
            rows.append({"rt_dimension": dim, **rec})
        s = ablations.spearman_small_n(merged["median_rt_ms"], merged["mean_error_rate"])
        rows.append({"rt_dimension": dim, "emotion": ALL, "n_conditions": acc["n_conditions"].max() if len(acc) else 0,
                     "spearman_rho": s.rho, "p_value": s.p_value, "p_method": s.method, "n_emotions": s.n,
                     "small_n_caveat": s.caveat, "null_reason": s.reason})
    frame = pd.DataFrame(rows, columns=RT_ACCURACY_COLUMNS[:-3])
    frame = (frame.merge(_paper(paper, "median_rt_ms", "paper_median_rt_ms", ["rt_dimension", "emotion"]),
                         how="left", on=["rt_dimension", "emotion"])
             .merge(_paper(paper, "mean_accuracy", "paper_mean_accuracy", ["emotion"]), how="left", on="emotion")
             .merge(_paper(paper, "spearman_rho", "paper_spearman_rho", ["rt_dimension", "emotion"]),
                    how="left", on=["rt_dimension", "emotion"]))
    frame["n_conditions"] = frame["n_conditions"].astype("Int64")
    frame["n_emotions"] = frame["n_emotions"].astype("Int64")
    return finish(frame, RT_ACCURACY_COLUMNS, provenance)
