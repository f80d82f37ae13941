"""Rater and image variance of the human ratings (paper section 3.2): the crossed random-effects LMM

    rating ~ category + (1 | rater_id) + (1 | image_id)

fitted by REML with the `mixedlm` package (lme4's algorithm), or, where the REML fit does not scale
(it grows much faster than the ratings), by the method of moments of Gao & Owen (2017) from
per-group counts, sums and sums of squares (:func:`crossed_moment_components`). The paper prints the rater variance
(valence 0.450, arousal 0.696) and its ratio to the image-level variance (11x, 32x); it does not
print the fixed part. An image variance of 0.04 on valence is only possible with the category
(category) as a fixed effect, since happy and sad faces differ by several scale points; so the
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
MOMENTS_METHOD = "method of moments (Gao & Owen 2017 U-statistics, from sufficient statistics)"


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
    """REML variance components of raters and images crossed: rating ~ category + (1 | rater_id)
    + (1 | image_id).

    Parameters
    ----------
    rating : array_like
        One rating per row; rows with a missing rating are dropped.
    rater_id, image_id : array_like
        Who rated and what, one per rating (at least two of each).
    category : array_like, optional
        One label per rating, constant within an image (the category): its levels enter as fixed
        effects, since an image variance of 0.04 on valence is only possible once happy and sad
        faces are allowed different means.

    Returns
    -------
    VarianceComponents
        rater_variance, image_variance, residual_variance, n_obs, n_raters, n_images, formula,
        singular (a component at 0: the rater-to-image ratio is then undefined, not infinite) and
        ``rater_to_image_ratio``.

    Notes
    -----
    y_ri = x_i' beta + u_r + v_i + e_ri with u_r ~ N(0, s_rater^2), v_i ~ N(0, s_image^2),
    e ~ N(0, s^2), fitted by REML (``mixedlm.lmer``, lme4's algorithm). On a balanced R x I design
    without category, when the estimates are positive, REML equals the two-way ANOVA estimators
    s^2 = MS_res, s_rater^2 = (MS_rater - MS_res) / I, s_image^2 = (MS_image - MS_res) / R.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.2
    (rater variance 0.450 valence / 0.696 arousal, 11x and 32x the image variance); Bates,
    Maechler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4", Journal of
    Statistical Software 67(1); Searle, Casella & McCulloch (1992), *Variance Components*, ch. 4
    (the ANOVA estimators); docs/marts_paper_extras.md.

    Examples
    --------
    Three raters (rows) by three images (columns), (2, 4, 9), (1, 5, 7), (6, 6, 10); row means
    5, 13/3, 22/3, column means 3, 5, 26/3, grand mean 50/9: MS_rater = 14.8889 / 2 = 7.4444,
    MS_image = 49.5556 / 2 = 24.7778, MS_res = 5.7778 / 4 = 1.4444, so
    s_rater^2 = (7.4444 - 1.4444) / 3 = 2 and s_image^2 = (24.7778 - 1.4444) / 3 = 7.7778:

    >>> ratings = [2, 4, 9, 1, 5, 7, 6, 6, 10]
    >>> raters = ["r1"] * 3 + ["r2"] * 3 + ["r3"] * 3
    >>> images = ["i1", "i2", "i3"] * 3
    >>> vc = crossed_variance_components(ratings, raters, images)
    >>> round(vc.rater_variance, 4), round(vc.image_variance, 4), round(vc.residual_variance, 4)
    (2.0, 7.7778, 1.4444)
    """
    import mixedlm  # heavy import, only when a model is fitted

    frame = pd.DataFrame(
        {
            "rating": np.asarray(rating, dtype=float),
            "rater_id": np.asarray(rater_id).astype(str),
            "image_id": np.asarray(image_id).astype(str),
        }
    )
    fixed = "1"
    if category is not None:
        frame["category"] = np.asarray(category).astype(str)
        fixed = "category" if frame["category"].nunique() > 1 else "1"
    frame = frame.dropna(subset=["rating"])
    if frame["rater_id"].nunique() < 2 or frame["image_id"].nunique() < 2:
        raise ValueError("a crossed fit needs at least two raters and two images")
    formula = f"rating ~ {fixed} + (1|rater_id) + (1|image_id)"
    start = moment_start(frame["rating"], frame["rater_id"], frame["image_id"], frame.get("category"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mixedlm_converged(mixedlm.lmer(formula, frame, REML=True, start=start), "REML")
    variances = _group_variances(fit)
    singular = fit.is_singular() if callable(fit.is_singular) else fit.is_singular
    sigma = float(fit.sigma() if callable(fit.sigma) else fit.sigma)
    return VarianceComponents(
        variances["rater_id"],
        variances["image_id"],
        sigma**2,
        len(frame),
        frame["rater_id"].nunique(),
        frame["image_id"].nunique(),
        formula.replace("category", "<category>"),
        bool(singular),
    )


# A moment estimate at or below 0 starts its relative SD here, inside the bounds: the optimiser then
# walks to the boundary itself, and mixedlm's restart at an edge checks it as without a start.
_START_FLOOR = 0.1


def moment_start(rating, rater_id, image_id, category=None) -> np.ndarray:
    """Starting relative SDs (theta = SD / residual SD, raters then images, the formula's order) for
    the crossed REML fit, from the variances of the rater and image means.

    Parameters
    ----------
    rating, rater_id, image_id : array_like
        As for :func:`crossed_variance_components`, without missing ratings.
    category : array_like, optional
        Its means are taken out first, as the fit's fixed effects take them out.

    Returns
    -------
    numpy.ndarray
        (theta_rater, theta_image), each at least ``_START_FLOOR``.

    Notes
    -----
    A start only: the REML estimate is the optimum mixedlm's L-BFGS-B reaches, with or without
    it, up to the optimiser's tolerance (a gradient of 1e-8 per rating). From mixedlm's own start
    (theta near (0.5, 0.2)) the paper-scale fit took 10 to 19 deviance-and-gradient evaluations
    per dimension, each a sparse Cholesky of the 2,440 random effects; from this one 7 or 8.
    With residuals r (rating minus its category mean), V = var(r), and a = mean over raters of
    1 / ratings of the rater, b = mean over images of 1 / ratings of the image: the variance of
    the rater means is about s_r^2 + a (V - s_r^2), of the image means s_i^2 + b (V - s_i^2),
    which solve for s_r^2 and s_i^2; s^2 = V - s_r^2 - s_i^2.

    The approximation suits designs where each rater sees a small share of the images (the
    paper's 72 of 1,440). Where every rater sees every image, the image effects cancel from the
    rater means and the start is rougher; the estimate is the same. In the example below (the
    balanced 3 x 3 of :func:`crossed_variance_components`, whose REML theta is sqrt(2 / 1.4444) =
    1.18 for raters and sqrt(7.7778 / 1.4444) = 2.32 for images) the rater's start is the floor.

    References
    ----------
    Searle, Casella & McCulloch (1992), *Variance Components*, ch. 5 (moment estimators of
    unbalanced data); docs/performance.md.

    Examples
    --------
    >>> ratings = [2, 4, 9, 1, 5, 7, 6, 6, 10]
    >>> np.round(moment_start(ratings, ["r1"] * 3 + ["r2"] * 3 + ["r3"] * 3, ["i1", "i2", "i3"] * 3), 2)
    array([0.1 , 3.21])
    """
    rating = pd.Series(np.asarray(rating, dtype=float))
    resid = rating - (rating.mean() if category is None else rating.groupby(np.asarray(category)).transform("mean"))
    total = float(resid.var())
    spreads = []
    for ids in (rater_id, image_id):
        by = resid.groupby(np.asarray(ids))
        share = float((1.0 / by.size()).mean())
        spreads.append((float(by.mean().var()) - share * total) / (1.0 - share))
    residual = total - sum(max(v, 0.0) for v in spreads)
    if not residual > 0:
        return np.array([1.0, 1.0])
    return np.array([max(np.sqrt(max(v, 0.0) / residual), _START_FLOOR) for v in spreads])


@dataclass(frozen=True)
class GroupTotals:
    """What the moment estimator needs of one grouping of the ratings (e.g. by image): the ratings
    N = sum n_g, sum n_g^2, within = sum_g (n_g sum y^2 - (sum y)^2) (half the sum over ordered
    pairs of a group's ratings of their squared difference) and the number of groups."""

    n_obs: float
    n_sq: float
    within: float
    groups: int

    @classmethod
    def of(cls, n, total, total_sq) -> GroupTotals:
        """From each group's count, sum and sum of squares."""
        n, total, total_sq = (np.asarray(a, dtype=float) for a in (n, total, total_sq))
        return cls(float(n.sum()), float((n**2).sum()), float((n * total_sq - total**2).sum()), len(n))


def crossed_moment_components(
    rater_strata: GroupTotals, images: GroupTotals, strata: GroupTotals, n_raters: int, with_category: bool
) -> VarianceComponents:
    """Moment estimates of the crossed model of :func:`crossed_variance_components` from
    sufficient statistics: cost linear in the groups, whatever the number of ratings.

    Parameters
    ----------
    rater_strata : GroupTotals
        The ratings grouped by (rater, category) (by rater when there is no category).
    images : GroupTotals
        The ratings grouped by image.
    strata : GroupTotals
        The ratings grouped by category (one group when there is no category).
    n_raters : int
        Distinct raters.
    with_category : bool
        Whether the category entered as fixed effects (for the formula).

    Returns
    -------
    VarianceComponents
        As :func:`crossed_variance_components`; a component whose moment estimate is negative is
        set to 0 and ``singular`` is True.

    Raises
    ------
    ValueError
        When the design cannot separate the three components (e.g. no rater with two ratings in a
        category, no image with two ratings).

    Notes
    -----
    y_ri = mu_c(i) + u_r + v_i + e_ri, images nested in categories c, at most one rating per
    (rater, image). Three U-statistics, each half the sum over ordered pairs of ratings of their
    squared difference: U_r over pairs of the same rater and category, U_i of the same image,
    U_c of the same category (so mu drops out of every pair). With N ratings, n_rc per (rater,
    category), N_i per image and N_c per category, their expectations are (Gao & Owen 2017, sec. 3,
    within categories)

        E U_r = (s_i^2 + s^2) (sum n_rc^2 - N)
        E U_i = (s_r^2 + s^2) (sum N_i^2 - N)
        E U_c = s_r^2 (sum N_c^2 - sum n_rc^2) + s_i^2 (sum N_c^2 - sum N_i^2) + s^2 (sum N_c^2 - N)

    and the estimates solve these three equations with U in place of E U. Each U is
    sum_g (n_g sum y^2 - (sum y)^2) over its groups (``GroupTotals.within``): a few sums per
    grouping, which a database computes in one pass over the ratings. Unbiased whatever the balance; less efficient
    than REML on a very unbalanced design (compared with the REML fit on the demo in
    docs/marts_paper_extras.md).

    References
    ----------
    Gao & Owen (2017), "Efficient moment calculations for variance components in large unbalanced
    crossed random effects models", Electronic Journal of Statistics 11(1), 1235-1296;
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.2.

    Examples
    --------
    The balanced 3 x 3 of :func:`crossed_variance_components` (one category): rater sums 15, 13,
    22 (sums of squares 101, 75, 172), image sums 9, 15, 26 (41, 77, 230), all 50 (348). U_r =
    3 x 348 - (225 + 169 + 484) = 166, U_i = 3 x 348 - (81 + 225 + 676) = 62, U_c = 9 x 348 - 2500 =
    632, with coefficients 18 and 18, and 54, 54, 72 in U_c: s_i^2 + s^2 = 166/18, s_r^2 + s^2 =
    62/18, so 54 (62 + 166)/18 - 36 s^2 = 632, s^2 = 1.4444, s_r^2 = 2, s_i^2 = 7.7778, here equal to
    the ANOVA and REML estimates:

    >>> raters = GroupTotals.of([3, 3, 3], [15, 13, 22], [101, 75, 172])
    >>> images = GroupTotals.of([3, 3, 3], [9, 15, 26], [41, 77, 230])
    >>> vc = crossed_moment_components(raters, images, GroupTotals.of([9], [50], [348]), 3, False)
    >>> round(vc.rater_variance, 4), round(vc.image_variance, 4), round(vc.residual_variance, 4)
    (2.0, 7.7778, 1.4444)
    """
    n = strata.n_obs
    nc2, nrc2, ni2 = strata.n_sq, rater_strata.n_sq, images.n_sq
    coef = np.array(
        [
            [0.0, nrc2 - n, nrc2 - n],
            [ni2 - n, 0.0, ni2 - n],
            [nc2 - nrc2, nc2 - ni2, nc2 - n],
        ]
    )
    u = np.array([rater_strata.within, images.within, strata.within])
    if n_raters < 2 or images.groups < 2 or abs(np.linalg.det(coef)) <= 1e-12 * np.abs(coef).max() ** 3:
        raise ValueError(
            "the design does not separate rater, image and residual variance "
            "(it needs raters with two ratings in a category and images with two ratings)"
        )
    rater_var, image_var, residual = np.linalg.solve(coef, u)
    singular = bool(rater_var <= 0 or image_var <= 0)
    fixed = "<category>" if with_category else "1"
    return VarianceComponents(
        max(float(rater_var), 0.0),
        max(float(image_var), 0.0),
        max(float(residual), 0.0),
        int(n),
        int(n_raters),
        int(images.groups),
        f"rating ~ {fixed} + (1|rater_id) + (1|image_id)",
        singular,
    )


def _group_variances(fit) -> dict[str, float]:
    """Random-intercept variance per grouping factor, matched by name (theta's order is the
    package's, not the formula's)."""
    return {str(name): float(np.ravel(group.cov)[0]) for name, group in fit.VarCorr().groups.items()}
