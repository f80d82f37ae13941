"""models/marts/zscores: the bootstrap share of images where the model's |z| is significant
(Discussion 5.1). The statistic is rater1001.stats.bootstrap.p_sig."""
from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ..stats import bootstrap
from ._shared import ALL, as_frame, declared, padded, typed, with_origin


def psig_table(model_long: pd.DataFrame, human_lists: pd.DataFrame,
               replicates: int = 2000, seed: int = bootstrap.SEED) -> pd.DataFrame:
    # One padded |z| matrix per dimension, built once, with a last all-NaN row for images without
    # human lists (get_indexer's -1): p_sig excludes and counts them.
    humans = {dim: (pd.Index(h["image_id"]), padded(pd.concat([h["loo_abs_z"], pd.Series([[]])])))
              for dim, h in human_lists.groupby("dimension", sort=True)}
    # resampling draws by position: fix the order (image_id) so the result does not depend on
    # the order DuckDB returned the rows in; only the columns used, and the 'all' scope as the
    # whole group rather than a second copy of every row (with_scopes), which at 100x held GBs
    model_long = model_long[["condition_id", "dimension", "emotion", "image_id", "z"]].sort_values(
        ["condition_id", "dimension", "image_id"], kind="stable")
    rows = []
    for (cond, dim), g in model_long.groupby(["condition_id", "dimension"], sort=True):
        index, matrix = humans.get(dim, (pd.Index([]), np.full((1, 0), np.nan)))
        scopes = sorted([(ALL, g), *g.groupby("emotion", sort=True)], key=lambda scope: scope[0])
        for emotion, part in scopes:
            human = matrix[index.get_indexer(part["image_id"])]
            res = bootstrap.p_sig(part["z"].abs().to_numpy(float), human, replicates=replicates, seed=seed)
            rows.append({"condition_id": cond, "dimension": dim, "emotion": emotion, **asdict(res)})
    return typed(rows, declared("bootstrap_psig"))


# --- the dbt Python model (models/marts/zscores/bootstrap_psig.py) ----------------------------------

def bootstrap_psig(model_long, human_lists, provenance) -> pd.DataFrame:
    rows = as_frame(model_long)
    return with_origin(psig_table(rows[rows["model_value"].notna()], as_frame(human_lists)), provenance)
