"""models/marts/diversity: response diversity per condition (section 4.4) and the inter-model
spread against k random humans (Table 6, Figure 6). Every number is a call into
rater1001.stats.diversity / stats.k_human_diversity."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ..stats import diversity, small_pools
from ..stats import k_human_diversity as k_human
from ._shared import as_frame, declared, in_pool, typed, with_origin, with_scopes

POOL = "inter_model_sd"  # the conditions whose spread Table 6 compares (seeds/condition_pools.csv)


_DIVERSITY_KEYS = ["condition_id", "dimension", "category"]


def diversity_table(value_counts: pd.DataFrame) -> pd.DataFrame:
    """Per (condition, dimension, category, and 'all'): diversity from `value_counts` (those keys,
    model_value, n: how many of the condition's answers were that value)."""
    scoped = with_scopes(value_counts[[*_DIVERSITY_KEYS, "model_value", "n"]])
    if scoped.empty:
        return typed([], declared("response_diversity"))
    t = diversity.diversity_table(scoped, _DIVERSITY_KEYS, "model_value", count="n")
    return typed(t.to_dict("records"), declared("response_diversity"))


def _model_value_counts(model_long) -> pd.DataFrame:
    """(condition, dimension, category, model_value) -> n, summed in DuckDB: the answers' count,
    not the answers, reach pandas (a hash table of a few hundred cells, whatever the study's size)."""
    import duckdb

    if isinstance(model_long, pd.DataFrame):
        model_long = duckdb.from_df(model_long)
    keys = ", ".join([*_DIVERSITY_KEYS, "model_value"])
    return model_long.aggregate(f"{keys}, count(*) as n", keys).df()


def _k_human_cells(model_long: pd.DataFrame, value_counts: pd.DataFrame):
    """Per (dimension, category): the image rows with their human ratings (from int_image_value_counts,
    in value order) and one column per condition with values on the dimension (k = their number,
    >= 2). Images in image_id order, which is the bootstrap's draw order; a missing prediction
    leaves NaN (the image is excluded and counted by the statistic). Per category only: Table 6 has
    no pooled row."""
    for dim, g in model_long.groupby("dimension", sort=True):
        wide = g.pivot_table(index="image_id", columns="condition_id", values="model_value", aggfunc="first")
        conds = sorted(wide.columns)
        if len(conds) < 2:
            continue
        vc = value_counts[value_counts["dimension"] == dim]
        units, ratings = small_pools.padded_ratings(vc)
        category = vc.drop_duplicates("image_id").set_index("image_id")["category"].reindex(units).to_numpy()
        models = wide[conds].reindex(units).to_numpy(float)
        for cat in sorted(pd.unique(category[pd.notna(category)])):
            rows = np.flatnonzero(category == cat)
            yield dim, cat, conds, models[rows], ratings[rows], pd.Series(units[rows])


def k_human_diversity(
    model_long: pd.DataFrame, value_counts: pd.DataFrame, replicates: int = 1000, seed: int = k_human.SEED
) -> pd.DataFrame:
    """Table 6: inter-model spread per image vs k humans drawn without replacement, k = the number
    of conditions with predictions on the dimension."""
    rows = []
    for dim, category, conds, models, humans, _ in _k_human_cells(model_long, value_counts):
        r = k_human.k_human_variance(models, humans, replicates=replicates, seed=seed)
        rows.append(
            {
                "dimension": dim,
                "category": category,
                "conditions": ",".join(conds),
                "model_to_human_sd_ratio": r.model_sd / r.human_sd if r.human_sd else np.nan,
                **asdict(r),
            }
        )
    return typed(rows, declared("response_diversity_k_human"))


def k_human_image_sd(
    model_long: pd.DataFrame, value_counts: pd.DataFrame, replicates: int = 1000, seed: int = k_human.SEED
) -> pd.DataFrame:
    """Figure 6: per image, the SD of the k conditions' values ('models') and the mean SD of k
    random humans ('k_humans'), with the draws of the Table 6 comparison (same seed, per category)."""
    frames = []  # a frame per cell and source: columns, not a dict per image
    for dim, category, conds, models, humans, image_ids in _k_human_cells(model_long, value_counts):
        spread = k_human.k_human_image_sd(models, humans, replicates=replicates, seed=seed)
        kept = image_ids.to_numpy()[spread.kept]
        for source, sd in (("models", spread.model_sd), ("k_humans", spread.human_sd)):
            cell = {"dimension": dim, "category": category, "image_id": kept, "source": source, "sd": sd[spread.kept]}
            frames.append(pd.DataFrame({**cell, "k": len(conds), "replicates": replicates, "seed": seed}))
    rows = pd.concat(frames, ignore_index=True) if frames else []
    return typed(rows, declared("response_diversity_images"))


# --- the dbt Python models (models/marts/diversity/*.py) ---------------------------------------------


def _columns(relation, columns: str) -> pd.DataFrame:
    if not isinstance(relation, pd.DataFrame):  # a dbt relation: only the columns used leave DuckDB
        relation = relation.project(columns)
    return as_frame(relation)


_MODEL_COLUMNS = "condition_id, dimension, category, image_id, model_value"


def response_diversity(model_long, provenance) -> pd.DataFrame:
    return with_origin(diversity_table(_model_value_counts(model_long)), provenance)


def _value_counts(relation) -> pd.DataFrame:
    return _columns(relation, "image_id, dimension, category, value, n")


def response_diversity_k_human(model_long, pools, value_counts, provenance) -> pd.DataFrame:
    rows = in_pool(_columns(model_long, _MODEL_COLUMNS), pools, POOL)
    return with_origin(k_human_diversity(rows, _value_counts(value_counts)), provenance)


def response_diversity_images(model_long, pools, value_counts, provenance) -> pd.DataFrame:
    rows = in_pool(_columns(model_long, _MODEL_COLUMNS), pools, POOL)
    return with_origin(k_human_image_sd(rows, _value_counts(value_counts)), provenance)
