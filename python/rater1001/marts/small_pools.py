"""models/marts/small_pools: human alpha and delta alpha of each condition when every image keeps
only k of its human ratings (Limitation 12). The statistic is rater1001.stats.small_pools."""

from __future__ import annotations

import pandas as pd

from ..stats import small_pools
from ._shared import as_frame, config_list, finish, model_dimensions


def small_pool_table(
    value_counts: pd.DataFrame,
    predictions: pd.DataFrame,
    dimensions,
    ks=small_pools.DEFAULT_KS,
    replicates: int = 200,
    seed: int = small_pools.SEED,
) -> pd.DataFrame:
    """`value_counts`: image_id, dimension, value, n. One row per (dimension, k, condition)."""
    frames = []
    for dim in dimensions:
        vc = value_counts[value_counts.dimension == dim]
        if vc.empty:
            continue
        units, pad = small_pools.padded_ratings(vc)
        model = (
            predictions.pivot_table(
                index="image_id", columns="condition_id", values=f"model_{dim}", aggfunc="first"
            ).reindex(units)
            if not predictions.empty
            else pd.DataFrame(index=units)
        )
        t = small_pools.small_pool_alpha(pad, model, ks, replicates, seed)
        frames.append(t.assign(dimension=dim))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# --- the dbt Python model (models/marts/small_pools/small_pool_alpha.py) ----------------------------


def small_pool_alpha(model_vs_human, value_counts, provenance, *, ks=None, replicates=None, seed=None) -> pd.DataFrame:
    if not isinstance(model_vs_human, pd.DataFrame):  # a dbt relation: only the columns used leave DuckDB
        # (a study without rating dimensions has no model_ / d_ columns)
        used = [
            c for c in model_vs_human.columns if c in ("condition_id", "image_id") or c.startswith(("model_", "d_"))
        ]
        model_vs_human = model_vs_human.project(", ".join(f'"{c}"' for c in used))
    rows = as_frame(model_vs_human)
    out = small_pool_table(
        as_frame(value_counts),
        rows,
        model_dimensions(rows),
        config_list(ks, "2,3,5,10,20,50", int),
        int(replicates or 100),
        int(seed or 42),
    )
    return finish(out[out["condition_id"].notna()] if len(out) else out, "small_pool_alpha", provenance)
