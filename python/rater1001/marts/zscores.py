"""models/marts/zscores: the bootstrap share of images where the model's |z| is significant
(Discussion 5.1). The statistic is rater1001.stats.bootstrap.p_sig."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ..stats import bootstrap
from ._shared import as_frame, declared, scopes, typed, with_origin


def human_entries(value_counts: pd.DataFrame) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """One dimension's (image_id, value, n, loo_abs_z) rows as (images, |z| per image x value,
    humans per image x value), values ascending, with a last all-NaN row of weight 0 for images
    without humans (get_indexer's -1): p_sig excludes and counts them."""
    vc = value_counts.sort_values(["image_id", "value"])
    images, group = np.unique(vc["image_id"].to_numpy(), return_inverse=True)
    z = bootstrap.ragged_to_padded(group, vc["loo_abs_z"].to_numpy(float))
    n = np.nan_to_num(bootstrap.ragged_to_padded(group, vc["n"].to_numpy(float)))
    return pd.Index(images), np.vstack([z, np.full((1, z.shape[1]), np.nan)]), np.vstack([n, np.zeros((1, n.shape[1]))])


def psig_table(
    model_long: pd.DataFrame, value_counts: pd.DataFrame, replicates: int = 2000, seed: int = bootstrap.SEED
) -> pd.DataFrame:
    """`value_counts`: int_image_value_counts (image_id, dimension, value, n, loo_abs_z); the human
    drawn for an image is a value with probability n / the image's humans."""
    humans = {dim: human_entries(h) for dim, h in value_counts.groupby("dimension", sort=True)}
    rows = []
    for dim, g in model_long[["condition_id", "dimension", "category", "image_id", "z"]].groupby(
        "dimension", sort=True
    ):
        index, matrix, weights = humans.get(dim, (pd.Index([]), np.full((1, 0), np.nan), np.zeros((1, 0))))
        # the 'all' scope as the whole group rather than a second copy of every row (with_scopes)
        for category, part in sorted(scopes(g, "category"), key=lambda scope: scope[0]):
            # conditions x images, images in image_id order (the draws are by position, so the
            # result does not depend on the order DuckDB returned the rows in); NaN where a
            # condition has no row, which p_sig_many excludes like an undefined z
            wide = part.pivot(index="condition_id", columns="image_id", values="z").sort_index().sort_index(axis=1)
            n_rows = part.groupby("condition_id").size()
            at = index.get_indexer(wide.columns)
            results = bootstrap.p_sig_many(
                wide.to_numpy(float), matrix[at], replicates=replicates, seed=seed, weights=weights[at]
            )
            for cond, res in zip(wide.index, results):
                # excluded among the condition's own rows, not the images only other conditions rated
                rows.append(
                    {
                        "condition_id": cond,
                        "dimension": dim,
                        "category": category,
                        **asdict(res),
                        "n_excluded_images": int(n_rows[cond]) - res.n_images,
                    }
                )
    return typed(rows, declared("bootstrap_psig"))


# --- the dbt Python model (models/marts/zscores/bootstrap_psig.py) ----------------------------------


def bootstrap_psig(model_long, value_counts, provenance) -> pd.DataFrame:
    if not isinstance(model_long, pd.DataFrame):  # a dbt relation: only the rows and columns used leave DuckDB
        model_long = model_long.filter("model_value is not null").project(
            "condition_id, dimension, category, image_id, z, model_value"
        )
    if not isinstance(value_counts, pd.DataFrame):
        value_counts = value_counts.project("image_id, dimension, value, n, loo_abs_z")
    rows = as_frame(model_long)
    return with_origin(psig_table(rows[rows["model_value"].notna()], as_frame(value_counts)), provenance)
