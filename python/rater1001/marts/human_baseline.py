"""models/marts/human_baseline: section 3.2's rater against image variance of the human ratings
(docs/marts_paper_extras.md). The fit is rater1001.stats.variance_components."""

from __future__ import annotations

import pandas as pd
from duckdb import ColumnExpression, ConstantExpression

from ..stats.variance_components import METHOD, crossed_variance_components
from ._shared import as_frame, declared, finish, slot_names, spell_terms

# The crossed REML fit (the mixedlm package's lmer, lme4's algorithm: a Cholesky factor of the
# crossed random-effects design per deviance evaluation) grows much faster than the ratings: 10.8 s
# at the paper's 72,000 ratings, not done after 29 minutes at 10x (docs/performance.md). Above this
# many ratings of a dimension it is not fitted and the row says why; the var raises the limit.
DEFAULT_MAX_RATINGS = 200_000


def not_fitted_reason(n_ratings: int, max_ratings: int) -> str:
    return (
        f"not fitted: {n_ratings:,} ratings is above var variance_components_max_ratings ({max_ratings:,}); "
        "the crossed REML fit grows much faster than the ratings (docs/performance.md); raise the var to fit"
    )


def variance_table(
    ratings_long: pd.DataFrame,
    stimuli: pd.DataFrame,
    provenance: pd.DataFrame,
    category: str = "category",
    too_large: dict[str, int] | None = None,
    max_ratings: int = DEFAULT_MAX_RATINGS,
) -> pd.DataFrame:
    """One crossed fit per dimension of int_human_ratings_long (rater_id, image_id, dimension,
    rating); the stimulus's `category` column enters as fixed effects when the study has it.
    `too_large`: dimensions left out of `ratings_long` for their size (dimension -> ratings), each
    given a row that says so."""
    has_category = category in stimuli.columns and stimuli[category].notna().any()
    cats = stimuli.set_index("image_id")[category] if has_category else None
    rows = [
        {"dimension": dim, "n_ratings": n, "method": METHOD, "fit_error": not_fitted_reason(n, max_ratings)}
        for dim, n in sorted((too_large or {}).items())
    ]
    for dim, part in ratings_long.groupby("dimension", sort=True):
        try:
            vc = crossed_variance_components(
                part["rating"], part["rater_id"], part["image_id"], part["image_id"].map(cats) if has_category else None
            )
        except Exception as exc:  # a degenerate dimension is reported, not fatal
            rows.append(
                {
                    "dimension": dim,
                    "n_ratings": len(part),
                    "method": METHOD,
                    "fit_error": f"{type(exc).__name__}: {exc}"[:500],
                }
            )
            continue
        total = vc.rater_variance + vc.image_variance + vc.residual_variance
        rows.append(
            {
                "dimension": dim,
                "rater_variance": vc.rater_variance,
                "image_variance": vc.image_variance,
                "residual_variance": vc.residual_variance,
                "rater_to_image_ratio": vc.rater_to_image_ratio,
                "rater_share": vc.rater_variance / total,
                "image_share": vc.image_variance / total,
                "n_ratings": vc.n_obs,
                "n_raters": vc.n_raters,
                "n_images": vc.n_images,
                "formula": vc.formula.replace("<category>", category),
                "method": METHOD,
                "singular": vc.singular,
            }
        )
    columns = list(declared("human_variance_components"))
    out = pd.DataFrame(rows, columns=columns).sort_values("dimension", ignore_index=True)
    return finish(out, "human_variance_components", provenance)


# --- the dbt Python model (models/marts/human_baseline/human_variance_components.py) ----------------


def human_variance_components(ratings_long, stimuli, study_factors, provenance, *, max_ratings=None) -> pd.DataFrame:
    """`ratings_long` is the DuckDB relation dbt hands the model: the ratings are counted there, so a
    dimension above the limit is never pulled into pandas. The formula names the category as the
    study does (stg_study_factors)."""
    limit = int(max_ratings or DEFAULT_MAX_RATINGS)
    sizes = ratings_long.aggregate("dimension, count(*)", "dimension").fetchall()
    too_large = {dim: int(n) for dim, n in sizes if n > limit}
    if too_large:
        ratings_long = ratings_long.filter(
            ColumnExpression("dimension").isnotin(*(ConstantExpression(dim) for dim in too_large))
        )
    table = variance_table(
        as_frame(ratings_long), as_frame(stimuli), provenance, too_large=too_large, max_ratings=limit
    )
    names = slot_names(as_frame(study_factors))
    return table.assign(formula=table["formula"].map(lambda f: spell_terms(f, names)))
