"""models/marts/zscores: the bootstrap share of images where the model's |z| is significant
(Discussion 5.1). The statistic is rater1001.stats.bootstrap.p_sig."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ..stats import bootstrap
from ._shared import as_frame, declared, padded, scopes, typed, with_origin


def psig_table(
    model_long: pd.DataFrame, human_lists: pd.DataFrame, replicates: int = 2000, seed: int = bootstrap.SEED
) -> pd.DataFrame:
    # One padded |z| matrix per dimension, built once, with a last all-NaN row for images without
    # human lists (get_indexer's -1): p_sig excludes and counts them.
    humans = {
        dim: (pd.Index(h["image_id"]), padded(pd.concat([h["loo_abs_z"], pd.Series([[]])])))
        for dim, h in human_lists.groupby("dimension", sort=True)
    }
    rows = []
    for dim, g in model_long[["condition_id", "dimension", "category", "image_id", "z"]].groupby(
        "dimension", sort=True
    ):
        index, matrix = humans.get(dim, (pd.Index([]), np.full((1, 0), np.nan)))
        # the 'all' scope as the whole group rather than a second copy of every row (with_scopes)
        for category, part in sorted(scopes(g, "category"), key=lambda scope: scope[0]):
            # conditions x images, images in image_id order (the draws are by position, so the
            # result does not depend on the order DuckDB returned the rows in); NaN where a
            # condition has no row, which p_sig_many excludes like an undefined z
            wide = part.pivot(index="condition_id", columns="image_id", values="z").sort_index().sort_index(axis=1)
            n_rows = part.groupby("condition_id").size()
            results = bootstrap.p_sig_many(
                wide.to_numpy(float), matrix[index.get_indexer(wide.columns)], replicates=replicates, seed=seed
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


def bootstrap_psig(model_long, human_lists, provenance) -> pd.DataFrame:
    if not isinstance(model_long, pd.DataFrame):  # a dbt relation: only the rows and columns used leave DuckDB
        model_long = model_long.filter("model_value is not null").project(
            "condition_id, dimension, category, image_id, z, model_value"
        )
    if not isinstance(human_lists, pd.DataFrame):
        human_lists = human_lists.project("image_id, dimension, loo_abs_z")
    rows = as_frame(model_long)
    return with_origin(psig_table(rows[rows["model_value"].notna()], as_frame(human_lists)), provenance)
