"""The category-bias LMM of paper sections 3.4.2 / 3.4.5:

    rating ~ rater_type * category + (1 | image_id),   rater_type in {human (per-image mean), model}

two rows per image (the human mean and the model's prediction), fitted by REML, with fixed effects
reported with Satterthwaite denominator df as lmerTest does, and the rater_type x category
interaction tested by a likelihood ratio of ML fits with and without it (chi-square, K - 1 df).

The fits are closed forms, not an optimiser (docs/marts_agreement.md, "lmm_rater_type in closed
form"). With two rows per image the difference D = model - human and the sum S = model + human of
an image are independent: D ~ N(mu_D[e], 2 s^2) and S ~ N(mu_S[e], 4 s_img^2 + 2 s^2), and the
2K fixed effects of the full model are exactly one free mean of D and one of S per category. So
the REML and ML fits are two one-way ANOVAs joined only by the constraint s_img^2 >= 0, and every
estimate, variance, standard error, Satterthwaite df and the LR statistic is a function of each
category's count, mean and sum of squared deviations of D and S (int_rater_type_cells computes
them in SQL). tests/python/test_stats_lmm.py checks the results against mixedlm (lme4's
algorithm, lmerTest's df) and against a dense brute-force REML / ML fit.

Coding is explicit treatment coding so coefficient names are readable: the reference category is
the first label in `categories` (the study's display order) present in the data, the reference
rater type is human.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

DF_METHOD = "Satterthwaite (closed form, equal to lmerTest's)"
SINGULAR_THETA = 1e-4  # lme4's isSingular tolerance on theta = s_img / s
CELL_COLUMNS = ("n_images", "diff_mean", "diff_ss", "sum_mean", "sum_ss")


@dataclass(frozen=True)
class LmmResult:
    fixed_effects: pd.DataFrame  # term, estimate, se, df, t, p, df_method
    image_variance: float
    residual_variance: float
    n_images: int
    n_obs: int
    interaction_lr_chi2: float
    interaction_df: int
    interaction_p: float
    n_excluded_images: int  # images without both a human mean and a model value
    singular: bool  # boundary fit (lme4's isSingular): image variance ~0; df and p still defined


class ModelCheckError(ValueError):
    """The design cannot carry the model (lme4's wording: too few images for a random intercept,
    or no residual degrees of freedom)."""


def rater_type_cells(human_mean, model, category) -> pd.DataFrame:
    """Per-image values -> the per-category sufficient statistics `fit_rater_type_cells` takes.

    Parameters
    ----------
    human_mean, model, category : array_like
        Aligned per-image human mean, model value and category label; an image missing either
        value counts in ``n_rows`` only.

    Returns
    -------
    pandas.DataFrame
        One row per category: ``category, n_rows, n_images, diff_mean, diff_ss, sum_mean, sum_ss``
        (D = model - human, S = model + human; the columns of int_rater_type_cells).

    Notes
    -----
    The sums of squares are the population variance times the count, as DuckDB's
    ``var_pop * count`` in int_rater_type_cells, not raw sums of squares minus a squared sum.

    References
    ----------
    docs/marts_agreement.md, "lmm_rater_type in closed form".

    Examples
    --------
    >>> rater_type_cells([5.0, 6, 7], [6.0, 8, None], ["happy", "happy", "sad"]).round(3).to_dict("records")
    [{'category': 'happy', 'n_rows': 2, 'n_images': 2, 'diff_mean': 1.5, 'sum_mean': 12.5, 'diff_ss': 0.5, 'sum_ss': 4.5}, {'category': 'sad', 'n_rows': 1, 'n_images': 0, 'diff_mean': nan, 'sum_mean': nan, 'diff_ss': nan, 'sum_ss': nan}]
    """
    frame = pd.DataFrame(
        {
            "category": np.asarray(category, dtype=object),
            "h": np.asarray(human_mean, dtype=float),
            "m": np.asarray(model, dtype=float),
        }
    )
    both = frame["h"].notna() & frame["m"].notna()
    frame = frame.assign(D=(frame["m"] - frame["h"]).where(both), S=(frame["m"] + frame["h"]).where(both))
    g = frame.groupby("category", sort=False, dropna=False)
    out = g.agg(n_rows=("h", "size"), n_images=("D", "count"), diff_mean=("D", "mean"), sum_mean=("S", "mean"))
    out["diff_ss"] = g["D"].var(ddof=0) * out["n_images"]  # NaN without values, as SQL's var_pop
    out["sum_ss"] = g["S"].var(ddof=0) * out["n_images"]
    return out.reset_index()


def fit_rater_type_lmm(human_mean, model, category, image_id, categories) -> LmmResult:
    """Fit rating ~ rater_type * category + (1 | image_id) to a model's answers and the human means.

    Parameters
    ----------
    human_mean, model, category, image_id : array_like
        Aligned per-image human mean, model prediction, category label and image id (one row per
        image). Images missing either value are dropped and counted.
    categories : sequence of str
        The declared labels in the study's order; the first present is the reference category. A
        label outside it is an error naming it.

    Returns
    -------
    LmmResult
        See `fit_rater_type_cells`, which this calls on the per-category statistics.

    Notes
    -----
    The closed form and why it is the REML / ML fit of this model: `fit_rater_type_cells`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.2
    and 3.4.5; docs/stats.md, "LMM and the df it reports".

    Examples
    --------
    Model - human differences (1, 2, 0) for happy and (0, 1, -1) for sad: rater type +1, the
    interaction -1; MS_res = 4 / 2 / 4 = 0.5, MS_img = 2 x 3 / 4 = 1.5, so s_img^2 = 0.5; df 4
    within images and 4 / (2.5 / 4) = 6.4 between:

    >>> r = fit_rater_type_lmm([5.0, 6, 7, 3, 4, 5], [6.0, 8, 7, 3, 5, 4], ["happy"] * 3 + ["sad"] * 3,
    ...                        range(6), ["happy", "sad"])
    >>> r.fixed_effects[["term", "estimate", "df"]].round(4)
                                 term  estimate   df
    0                     (Intercept)       6.0  6.4
    1               rater_type[model]       1.0  4.0
    2                    category[sad]      -2.0  6.4
    3  rater_type[model]:category[sad]      -1.0  4.0
    >>> round(r.image_variance, 6), round(r.residual_variance, 6), r.interaction_df
    (0.5, 0.5, 1)
    """
    if len(pd.unique(np.asarray(image_id))) != len(np.asarray(image_id)):
        raise ModelCheckError("fit_rater_type_lmm takes one row per image; image_id repeats")
    return fit_rater_type_cells(rater_type_cells(human_mean, model, category), categories)


def _reml_variances(ssd: float, sss: float, dof: int) -> tuple[float, float]:
    """(s^2, lambda = 4 s_img^2 + 2 s^2) maximising the restricted likelihood under s_img^2 >= 0.

    Unconstrained, each part is its own one-way ANOVA: s^2 = SSD / (2 dof), lambda = SSS / dof.
    When that would make s_img^2 negative (SSS < SSD) the optimum is on the boundary s_img^2 = 0,
    where all 2N rows are independent with variance s^2 = (SSD + SSS) / (4 dof) (the pooled
    residual sum of squares over 2N - 2K df)."""
    if sss >= ssd:
        return ssd / (2 * dof), sss / dof
    s2 = (ssd + sss) / (4 * dof)
    return s2, 2 * s2


def _ml_loglik(ssd: float, sss: float, n: int) -> float:
    """The maximised ML log-likelihood up to a constant shared by every fit on the same data
    (-N log(2 pi) + N log 2 for the change of variables (h, m) -> (D, S))."""
    s2, lam = _reml_variances(ssd, sss, n)  # the ML optimum is the REML one with N for N - K
    return float(-0.5 * n * np.log(2 * s2) - ssd / (4 * s2) - 0.5 * n * np.log(lam) - sss / (2 * lam))


def _satterthwaite(a: float, b: float, s2: float, lam: float, dof: int, boundary: bool) -> float:
    """df of a fixed effect whose variance is a lambda + b s^2: 2 V^2 / Var(V-hat), with the
    variances' sampling variances from the REML information (2 lambda^2 / dof and 2 s^4 / dof
    inside; at the boundary only s^2 is free, estimated on 2 dof, and lambda = 2 s^2)."""
    if boundary:
        return 2.0 * dof
    v = a * lam + b * s2
    return float(2 * v**2 / (a**2 * 2 * lam**2 / dof + b**2 * 2 * s2**2 / dof))


def fit_rater_type_cells(cells: pd.DataFrame, categories) -> LmmResult:
    """REML fit, Satterthwaite df and interaction LR test of the rater-type LMM from per-category
    sufficient statistics.

    Parameters
    ----------
    cells : pandas.DataFrame
        One row per category: ``category``, ``n_rows`` (images with a row), ``n_images`` (images
        with both values), ``diff_mean``, ``diff_ss`` (mean and sum of squared deviations of
        D = model - human), ``sum_mean``, ``sum_ss`` (the same of S = model + human).
    categories : sequence of str
        The declared labels in the study's order; the first present is the reference category.

    Returns
    -------
    LmmResult
        ``fixed_effects`` (term, estimate, se, Satterthwaite df, t, p, df_method), the image and
        residual variances (REML), sizes, the likelihood-ratio test of the interaction (chi-square,
        df, p), ``n_excluded_images`` and ``singular``.

    Raises
    ------
    ModelCheckError
        Fewer than two images, no residual df (one image per category), or no residual variance.
    ValueError
        A category outside `categories`.

    Notes
    -----
    Two rows per image: ``y_ir = b0 + b1 model_r + g_e + d_e model_r + u_i + e_ir`` with
    ``u_i ~ N(0, s_img^2)``, ``e_ir ~ N(0, s^2)``, treatment coding (reference: human and the first
    category). With N images, K categories, dof = N - K, SSD and SSS the pooled within-category sums
    of squares of D and S: REML ``s^2 = SSD / (2 dof)`` and ``s_img^2 = (SSS - SSD) / (4 dof)``
    (0 and ``s^2 = (SSD + SSS) / (4 dof)`` when SSS < SSD). Per category, ``Var(mean D) = 2 s^2 / n``
    and ``Var(mean human) = (s_img^2 + s^2) / n``; within-image terms (rater type and the
    interaction) have dof df and between-image terms the Satterthwaite
    ``(MS_img + MS_res)^2 / (MS_img^2 / dof + MS_res^2 / dof)``, MS_res = s^2, MS_img = SSS / (2 dof).
    The interaction LRT compares ML fits (N for N - K) with D's mean free per category or common.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.2
    and 3.4.5; docs/stats.md, "LMM and the df it reports". Satterthwaite (1946), An approximate
    distribution of estimates of variance components, *Biometrics Bulletin* 2(6), 110-114;
    Kuznetsova, Brockhoff & Christensen (2017), lmerTest package, *J. Stat. Softw.* 82(13).

    Examples
    --------
    One category, differences (1, 2, 0): rater type +1 with SSD = 2 on 2 df, so s^2 = 0.5 and
    se = sqrt(2 x 0.5 / 3); no interaction to test:

    >>> cells = rater_type_cells([5.0, 6, 7], [6.0, 8, 7], ["happy"] * 3)
    >>> r = fit_rater_type_cells(cells, ["happy", "sad"])
    >>> r.fixed_effects.loc[1, ["term", "estimate", "se", "df"]].to_dict()
    {'term': 'rater_type[model]', 'estimate': 1.0, 'se': 0.5773502691896257, 'df': 2.0}
    >>> r.residual_variance, r.interaction_df
    (0.5, 0)
    """
    categories = list(categories)
    cells = cells[cells["n_rows"] > 0]
    unknown = set(cells["category"]) - set(categories)
    if unknown:
        raise ValueError(f"categories {sorted(unknown, key=str)} are not in the declared label set {categories}")
    n_excluded = int(cells["n_rows"].sum() - cells["n_images"].sum())
    order = {e: i for i, e in enumerate(categories)}
    used = cells[cells["n_images"] > 0].assign(_o=lambda c: c["category"].map(order)).sort_values("_o")
    n = used["n_images"].to_numpy(dtype=float)
    N, K = int(n.sum()), len(used)
    if N < 2:
        raise ModelCheckError(
            f"Grouping factor 'image_id' has only {N} level(s). Random effects require at least 2 levels."
        )
    dof = N - K
    if dof < 1:
        raise ModelCheckError(f"no residual degrees of freedom: {N} images in {K} categories")
    Dm, Sm = used["diff_mean"].to_numpy(dtype=float), used["sum_mean"].to_numpy(dtype=float)
    ssd, sss = float(used["diff_ss"].sum()), float(used["sum_ss"].sum())
    s2, lam = _reml_variances(ssd, sss, dof)
    if not s2 > 0:
        raise ModelCheckError(
            "no residual variance: the model and the human means differ by the same amount on every image of a category"
        )
    boundary = sss < ssd
    image_var = (lam - 2 * s2) / 4
    # Var(mean human) = (lambda + 2 s^2) / (4 n); Var(mean D) = 2 s^2 / n
    hm = (Sm - Dm) / 2
    names = used["category"].tolist()
    rows = [("(Intercept)", hm[0], 0.25 / n[0], 0.5 / n[0]), ("rater_type[model]", Dm[0], 0.0, 2 / n[0])]
    for i in range(1, K):
        w = 1 / n[i] + 1 / n[0]
        rows.append((f"category[{names[i]}]", hm[i] - hm[0], 0.25 * w, 0.5 * w))
    for i in range(1, K):
        w = 1 / n[i] + 1 / n[0]
        rows.append((f"rater_type[model]:category[{names[i]}]", Dm[i] - Dm[0], 0.0, 2 * w))
    out = []
    for term, est, a, b in rows:
        se = float(np.sqrt(a * lam + b * s2))
        df = _satterthwaite(a, b, s2, lam, dof, boundary)
        t = float(est) / se
        out.append(
            {
                "term": term,
                "estimate": float(est),
                "se": se,
                "df": df,
                "t": t,
                "p": float(2 * sps.t.sf(abs(t), df)),
                "df_method": DF_METHOD,
            }
        )
    if K > 1:
        ssd_common = ssd + float(np.sum(n * (Dm - np.sum(n * Dm) / N) ** 2))
        chi2 = max(2 * (_ml_loglik(ssd, sss, N) - _ml_loglik(ssd_common, sss, N)), 0.0)
        lr_df, lr_p = K - 1, float(sps.chi2.sf(chi2, K - 1))
    else:
        chi2, lr_df, lr_p = float("nan"), 0, float("nan")
    singular = bool(np.sqrt(max(image_var, 0.0) / s2) < SINGULAR_THETA)
    return LmmResult(pd.DataFrame(out), float(image_var), float(s2), N, 2 * N, chi2, lr_df, lr_p, n_excluded, singular)
