"""models/marts/agreement: the mixed model rating ~ rater_type * category + (1 | image_id) per
(condition, dimension), in closed form on int_rater_type_cells (rater1001.stats.lmm.fit_rater_type_cells)."""

from __future__ import annotations

import pandas as pd

from ..stats import lmm
from ._shared import ALL, as_frame, category_labels, declared, slot_names, spell_terms, typed, with_origin


def lmm_table(cells: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """cells: int_rater_type_cells, the fit's sufficient statistics per (condition, dimension, category)."""
    rows = []
    for (cond, dim), g in cells.groupby(["condition_id", "dimension"], sort=True):
        try:
            res = lmm.fit_rater_type_cells(g, labels)
        except Exception as exc:  # a degenerate cell (e.g. no usable images) is reported, not fatal
            rows.append({"condition_id": cond, "dimension": dim, "fit_error": f"{type(exc).__name__}: {exc}"[:500]})
            continue
        common = {
            "condition_id": cond,
            "dimension": dim,
            "image_variance": res.image_variance,
            "residual_variance": res.residual_variance,
            "n_images": res.n_images,
            "n_obs": res.n_obs,
            "n_excluded_images": res.n_excluded_images,
            "interaction_lr_chi2": res.interaction_lr_chi2,
            "interaction_df": res.interaction_df,
            "interaction_p": res.interaction_p,
            "singular": res.singular,
        }
        for fe in res.fixed_effects.to_dict("records"):
            rows.append({**common, **fe})
    return typed(rows, declared("lmm_rater_type"))


# --- the dbt Python model (models/marts/agreement/lmm_rater_type.py) --------------------------------


def lmm_rater_type(cells, factor_labels, study_factors, provenance) -> pd.DataFrame:
    # without a category the one stratum is 'all' (docs/study_shape.md, "The grain"):
    # rating ~ rater_type + (1 | image_id)
    labels = category_labels(factor_labels, study_factors) or [ALL]
    table = lmm_table(as_frame(cells), labels)
    names = slot_names(as_frame(study_factors))
    return with_origin(table.assign(term=table["term"].map(lambda t: spell_terms(t, names))), provenance)
