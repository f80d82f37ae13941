"""models/marts/human_baseline: section 3.2's rater against image variance of the human ratings
(docs/marts_paper_extras.md). The fit is rater1001.stats.variance_components."""

from __future__ import annotations

import pandas as pd
from duckdb import ColumnExpression, ConstantExpression

from ..stats.variance_components import (
    METHOD,
    MOMENTS_METHOD,
    GroupTotals,
    crossed_moment_components,
    crossed_variance_components,
)
from ._shared import as_frame, declared, finish, slot_names, spell_terms

# The crossed REML fit (the mixedlm package's lmer, lme4's algorithm: a Cholesky factor of the
# crossed random-effects design per deviance evaluation) grows much faster than the ratings: 10.8 s
# at the paper's 72,000 ratings, not done after 29 minutes at 10x (docs/performance.md). Above this
# many ratings of a dimension the components are the method of moments' from sufficient statistics
# computed in DuckDB (the ratings never reach pandas); the var moves the limit.
DEFAULT_MAX_RATINGS = 200_000


def _totals(groups, grouping: str, extra: str = "") -> pd.DataFrame:
    """Per dimension: GroupTotals.of's sums over `groups` (n, total, total_sq per group), the
    groups, and `extra` (aggregates over them) in one pass, as a frame indexed by (dimension, `grouping`)."""
    return as_frame(
        groups.aggregate(
            f"dimension, '{grouping}' as grouping, sum(n) as n_obs, sum(n * n) as n_sq, "
            f"sum(n * total_sq - total * total) as within, count(*) as n_groups{', ' + extra if extra else ''}",
            "dimension",
        )
    )


def moment_rows(ratings_long, stimuli, dimensions, category: str, image_stats) -> list[dict]:
    """One row per dimension of `dimensions`: crossed_moment_components from the GroupTotals of the
    ratings by (rater, category), by image and by category, computed in DuckDB (GroupTotals.of's
    formula, checked against the pairwise definition in tests/python/test_marts_paper_extras.py).
    Only the (rater, category) sums read the ratings; the image and category sums read the per-image
    sums `image_stats` (int_image_human_stats' image_id, dimension, category, n_ratings, rating_sum,
    rating_sumsq), one row per image."""
    has_category = category in stimuli.columns

    def stratum(column: str) -> str:
        return f"coalesce(cast({column} as varchar), '')" if has_category else "''"

    joined = ratings_long.set_alias("r").join(stimuli.set_alias("s"), "r.image_id = s.image_id", how="left")
    cells = joined.project(
        f"r.dimension as dimension, r.rater_id as rater_id, {stratum('s.' + category)} as stratum, "
        "cast(r.rating as double) as y"
    )
    rater_groups = cells.aggregate(
        "dimension, rater_id, stratum, count(*) as n, sum(y) as total, sum(y * y) as total_sq",
        "dimension, rater_id, stratum",
    )
    images = image_stats.filter(ColumnExpression("dimension").isin(*(ConstantExpression(d) for d in dimensions)))
    images = images.project(
        f"dimension, {stratum(category)} as stratum, n_ratings as n, rating_sum as total, rating_sumsq as total_sq"
    )
    strata = images.aggregate(
        "dimension, stratum, sum(n) as n, sum(total) as total, sum(total_sq) as total_sq", "dimension, stratum"
    )
    totals = pd.concat(
        [
            _totals(rater_groups, "rater", "count(distinct rater_id) as n_raters"),
            _totals(images, "image"),
            _totals(strata, "category", "count(distinct nullif(stratum, '')) as n_categories"),
        ],
        ignore_index=True,
    ).set_index(["dimension", "grouping"])
    rows = []
    for dim in sorted(dimensions):
        t = totals.loc[dim]
        sets = [
            GroupTotals(
                float(t.loc[g, "n_obs"]), float(t.loc[g, "n_sq"]), float(t.loc[g, "within"]), int(t.loc[g, "n_groups"])
            )
            for g in ("rater", "image", "category")
        ]
        with_category = bool(has_category and t.loc["category", "n_categories"] > 1)
        try:
            vc = crossed_moment_components(*sets, int(t.loc["rater", "n_raters"]), with_category)
        except ValueError as exc:
            rows.append(
                {"dimension": dim, "n_ratings": int(sets[2].n_obs), "method": MOMENTS_METHOD, "fit_error": str(exc)}
            )
            continue
        rows.append(component_row(dim, vc, MOMENTS_METHOD, category))
    return rows


def component_row(dim: str, vc, method: str, category: str) -> dict:
    total = vc.rater_variance + vc.image_variance + vc.residual_variance
    return {
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
        "method": method,
        "singular": vc.singular,
    }


def variance_table(
    ratings_long: pd.DataFrame,
    stimuli: pd.DataFrame,
    provenance: pd.DataFrame,
    category: str = "category",
    large: list[dict] | None = None,
) -> pd.DataFrame:
    """One crossed REML fit per dimension of int_human_ratings_long (rater_id, image_id, dimension,
    rating); the stimulus's `category` column enters as fixed effects when the study has it.
    `large`: the rows of the dimensions estimated by moments instead (:func:`moment_rows`)."""
    has_category = category in stimuli.columns and stimuli[category].notna().any()
    cats = stimuli.set_index("image_id")[category] if has_category else None
    rows = list(large or [])
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
        rows.append(component_row(dim, vc, METHOD, category))
    columns = list(declared("human_variance_components"))
    out = pd.DataFrame(rows, columns=columns).sort_values("dimension", ignore_index=True)
    return finish(out, "human_variance_components", provenance)


# --- the dbt Python model (models/marts/human_baseline/human_variance_components.py) ----------------


def human_variance_components(
    ratings_long, stimuli, study_factors, provenance, *, image_stats, max_ratings=None
) -> pd.DataFrame:
    """`ratings_long` and `stimuli` are the DuckDB relations dbt hands the model: the ratings are
    counted there, and a dimension above the limit is estimated from aggregates, never pulled into
    pandas (`image_stats`: int_image_human_stats). The formula names the category
    as the study does (stg_study_factors)."""
    limit = int(max_ratings or DEFAULT_MAX_RATINGS)
    sizes = ratings_long.aggregate("dimension, count(*)", "dimension").fetchall()
    too_large = sorted(dim for dim, n in sizes if n > limit)
    large = []
    if too_large:
        keep = ratings_long.filter(ColumnExpression("dimension").isin(*(ConstantExpression(d) for d in too_large)))
        large = moment_rows(keep, stimuli, too_large, "category", image_stats)
        ratings_long = ratings_long.filter(
            ColumnExpression("dimension").isnotin(*(ConstantExpression(dim) for dim in too_large))
        )
    table = variance_table(as_frame(ratings_long), as_frame(stimuli), provenance, large=large)
    names = slot_names(as_frame(study_factors))
    return table.assign(formula=table["formula"].map(lambda f: spell_terms(f, names)))
