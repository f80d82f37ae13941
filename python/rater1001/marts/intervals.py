"""models/marts/intervals: bootstrap percentile intervals (images resampled, seeded) for the
headline numbers. The intervals are rater1001.stats.intervals."""

from __future__ import annotations

import pandas as pd

from ..stats import intervals
from ..stats.zscores import missing_answers, zscore
from ._shared import ALL, as_frame, finish, model_dimensions, scopes


def every_stimulus(predictions: pd.DataFrame, stimuli: pd.DataFrame, image_stats: pd.DataFrame, dimensions):
    """One row per (condition, stimulus): a stimulus a condition never answered gets a row with no
    model value and the stimulus's human statistics, so that W1SD counts it as missing and delta
    alpha has its human ratings, as zscore_summary and alpha_delta do (docs/stats.md, missing answers)."""
    grid = pd.MultiIndex.from_product(
        [predictions["condition_id"].unique(), stimuli["image_id"]], names=["condition_id", "image_id"]
    ).to_frame(index=False)
    rows = grid.merge(predictions, on=["condition_id", "image_id"], how="left")
    truth = stimuli.set_index("image_id")["category"]
    rows["true_category"] = truth.reindex(rows["image_id"]).to_numpy()
    for dim in dimensions:
        st = image_stats[image_stats.dimension == dim].set_index("image_id")
        for col in ("human_mean", "human_sd"):
            rows[f"{col}_{dim}"] = st[col].reindex(rows["image_id"]).to_numpy()
    return rows


def intervals_table(
    predictions: pd.DataFrame,
    image_stats: pd.DataFrame,
    dimensions,
    labels,
    replicates: int = intervals.REPLICATES,
    seed: int = intervals.SEED,
    stimuli: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Long: (condition_id, dimension, category, statistic) -> estimate, lo, hi. The headline
    numbers of the report: human alpha (condition_id 'human'), alpha_with_model and delta_alpha
    over all images (Tables 4c/5c), W1SD over all images and per category (Tables 4d/4e), kappa
    (dimension 'classification', Table 2). Per category, that category's images are resampled."""
    # The replicates draw positions, so the same rows in another order would give other intervals;
    # a warehouse returns rows in no fixed order, hence one order here.
    image_stats = image_stats.sort_values(["dimension", "image_id"], kind="stable")
    predictions = predictions.sort_values(["condition_id", "image_id"], kind="stable")
    rows = []

    def add(cond, dim, category, stat, iv: intervals.Interval):
        rows.append(
            {
                "condition_id": cond,
                "dimension": dim,
                "category": category,
                "statistic": stat,
                "estimate": iv.estimate,
                "lo": iv.lo,
                "hi": iv.hi,
                "n_images": iv.n_units,
                "replicates": iv.replicates,
                "seed": iv.seed,
                "level": iv.level,
            }
        )

    for dim in dimensions:
        st = image_stats[image_stats.dimension == dim]
        add(
            "human",
            dim,
            ALL,
            "alpha",
            intervals.alpha_intervals(
                st["n_ratings"], st["rating_sum"], st["rating_sumsq"], None, replicates, seed
            ).alpha,
        )
    answers = predictions if stimuli is None else every_stimulus(predictions, stimuli, image_stats, dimensions)
    answers = answers.sort_values(["condition_id", "image_id"], kind="stable")
    for cond, p in predictions.groupby("condition_id", sort=True):
        # no kappa without a category and the model's labels (a study of ratings only)
        if p["predicted_category"].notna().any():
            add(
                cond,
                "classification",
                ALL,
                "kappa",
                intervals.kappa_interval(p["true_category"], p["predicted_category"], labels, replicates, seed),
            )
        p = answers[answers["condition_id"] == cond]
        for dim in dimensions:
            st = image_stats[image_stats.dimension == dim].set_index("image_id").reindex(p["image_id"])
            ivs = intervals.alpha_intervals(
                st["n_ratings"].fillna(0),
                st["rating_sum"].fillna(0),
                st["rating_sumsq"].fillna(0),
                p[f"model_{dim}"].to_numpy(),
                replicates,
                seed,
            )
            add(cond, dim, ALL, "alpha_with_model", ivs.alpha_with_model)
            add(cond, dim, ALL, "delta_alpha", ivs.delta_alpha)
            for category, part in scopes(p, "true_category"):
                add(
                    cond,
                    dim,
                    category,
                    "w1sd",
                    intervals.w1sd_interval(
                        zscore(part[f"model_{dim}"], part[f"human_mean_{dim}"], part[f"human_sd_{dim}"]),
                        replicates,
                        seed,
                        missing=missing_answers(part[f"model_{dim}"], part[f"human_sd_{dim}"]),
                    ),
                )
    return pd.DataFrame(rows)


# --- the dbt Python model (models/marts/intervals/headline_intervals.py) ----------------------------


def headline_intervals(model_vs_human, image_stats, stimuli, provenance, *, replicates=None, seed=None) -> pd.DataFrame:
    rows, stats = as_frame(model_vs_human), as_frame(image_stats)
    dims = model_dimensions(rows) or [d for d in ("valence", "arousal") if d in set(stats["dimension"])]
    # The study's intended categories: those of rated images and of predicted ones (a labels-only
    # study has no rated dimension, so no image statistics).
    labels = sorted(set(stats["category"].dropna()) | set(rows["true_category"].dropna()))
    stimuli = as_frame(stimuli)[["image_id", "category"]]
    out = intervals_table(rows, stats, dims, labels, int(replicates or 500), int(seed or 42), stimuli)
    return finish(out, "headline_intervals", provenance)
