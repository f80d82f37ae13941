"""Rater and image variance of the human ratings (paper section 3.2): the crossed random-effects LMM

    rating ~ category + (1 | rater_id) + (1 | image_id)

fitted by REML with the `mixedlm` package (lme4's algorithm). The paper prints the rater variance
(valence 0.450, arousal 0.696) and its ratio to the image-level variance (11x, 32x); it does not
print the fixed part. An image variance of 0.04 on valence is only possible with the category
(emotion) as a fixed effect, since happy and sad faces differ by several scale points; so the
category enters as fixed effects when the study has one (docs/marts_paper_extras.md).

Checked against the balanced two-way ANOVA estimators (which REML equals on a balanced design when
they are positive) and by recovering known variances (tests/python/test_stats_variance_components.py).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .fits import mixedlm_converged

METHOD = "REML (mixedlm, lme4 algorithm)"


@dataclass(frozen=True)
class VarianceComponents:
    rater_variance: float
    image_variance: float
    residual_variance: float
    n_obs: int
    n_raters: int
    n_images: int
    formula: str
    singular: bool  # a component at its boundary (0): the ratio is then undefined, not infinite

    @property
    def rater_to_image_ratio(self) -> float:
        return float("nan") if self.singular or self.image_variance <= 0 else self.rater_variance / self.image_variance


def crossed_variance_components(rating, rater_id, image_id, category=None) -> VarianceComponents:
    """REML variance components of raters and images crossed; `category` (one label per rating,
    constant within an image) adds fixed effects. Ratings with a missing value are dropped."""
    import mixedlm  # heavy import, only when a model is fitted

    frame = pd.DataFrame({"rating": np.asarray(rating, dtype=float),
                          "rater_id": np.asarray(rater_id).astype(str),
                          "image_id": np.asarray(image_id).astype(str)})
    fixed = "1"
    if category is not None:
        frame["category"] = np.asarray(category).astype(str)
        fixed = "category" if frame["category"].nunique() > 1 else "1"
    frame = frame.dropna(subset=["rating"])
    if frame["rater_id"].nunique() < 2 or frame["image_id"].nunique() < 2:
        raise ValueError("a crossed fit needs at least two raters and two images")
    formula = f"rating ~ {fixed} + (1|rater_id) + (1|image_id)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mixedlm_converged(mixedlm.lmer(formula, frame, REML=True), "REML")
    variances = _group_variances(fit)
    singular = fit.is_singular() if callable(fit.is_singular) else fit.is_singular
    sigma = float(fit.sigma() if callable(fit.sigma) else fit.sigma)
    return VarianceComponents(variances["rater_id"], variances["image_id"], sigma**2, len(frame),
                              frame["rater_id"].nunique(), frame["image_id"].nunique(),
                              formula.replace("category", "<category>"), bool(singular))


def _group_variances(fit) -> dict[str, float]:
    """Random-intercept variance per grouping factor, matched by name (theta's order is the
    package's, not the formula's)."""
    return {str(name): float(np.ravel(group.cov)[0]) for name, group in fit.VarCorr().groups.items()}
