"""models/marts/human_baseline: section 3.2's rater against image variance of the human ratings
(docs/marts_paper_extras.md). The fit is rater1001.stats.variance_components."""
from __future__ import annotations

import pandas as pd

from ..stats.variance_components import METHOD, crossed_variance_components
from ._shared import as_frame, declared, finish


def variance_table(ratings_long: pd.DataFrame, stimuli: pd.DataFrame, provenance: pd.DataFrame,
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
    columns = list(declared("human_variance_components"))
    return finish(pd.DataFrame(rows, columns=columns), "human_variance_components", provenance)


# --- the dbt Python model (models/marts/human_baseline/human_variance_components.py) ----------------

def human_variance_components(ratings_long, stimuli, provenance) -> pd.DataFrame:
    return variance_table(as_frame(ratings_long), as_frame(stimuli), provenance)
