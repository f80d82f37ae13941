"""The emotion-bias LMM of paper sections 3.4.2 / 3.4.5:

    rating ~ rater_type * emotion + (1 | image_id),   rater_type in {human (per-image mean), model}

two rows per image (the human mean and the model's prediction), fitted by REML with the
`mixedlm` package; fixed effects are reported with Satterthwaite denominator df as lmerTest does
(checked: lme4's sleepstudy `Reaction ~ Days + (1|Subject)` gives lmerTest's 22.81 / 161, and a
balanced design reproduces the closed-form Satterthwaite df, see tests/python/test_stats_lmm.py).

Coding is explicit treatment coding so coefficient names are readable: the reference emotion is
the first label in `emotions` (the study's display order), the reference rater type is human.
The omnibus rater_type x emotion interaction is a likelihood-ratio test of ML fits with and
without the interaction (chi-square, K - 1 df), stated as such in the output.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

DF_METHOD = "Satterthwaite (mixedlm, lmerTest-equivalent)"


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


def _design(human_mean, model, emotion, image_id, emotions):
    emotions = list(emotions)
    img = pd.DataFrame({"image_id": np.asarray(image_id), "emotion": np.asarray(emotion, dtype=object),
                        "human": np.asarray(human_mean, dtype=float), "model": np.asarray(model, dtype=float)})
    unknown = set(img.emotion) - set(emotions)
    if unknown:
        raise ValueError(f"emotions {sorted(unknown)} are not in the declared label set {emotions}")
    n_all = len(img)
    img = img.dropna(subset=["human", "model"])
    long = img.melt(id_vars=["image_id", "emotion"], value_vars=["human", "model"],
                    var_name="rater_type", value_name="rating")
    long["image_id"] = long["image_id"].astype(str)
    long["is_model"] = (long["rater_type"] == "model").astype(float)
    present = [e for e in emotions if (img.emotion == e).any()]
    names = {"(Intercept)": "(Intercept)", "is_model": "rater_type[model]"}
    terms = ["is_model"]
    for i, e in enumerate(present[1:], start=1):
        col = f"emo_{i}"
        long[col] = (long["emotion"] == e).astype(float)
        names[col] = f"emotion[{e}]"
        names[f"is_model:{col}"] = f"rater_type[model]:emotion[{e}]"
        terms.append(col)
    return long, terms, names, n_all - len(img)


class FitDidNotConverge(RuntimeError):
    """An iterative fit stopped before its convergence criterion: no estimate is reported."""


def _converged(fit, which: str):
    """The optimiser's own verdict (warnings are silenced around the fits, so it is read here)."""
    ok = fit.converged() if callable(fit.converged) else fit.converged
    if not ok:
        message = fit.message() if callable(fit.message) else fit.message
        raise FitDidNotConverge(f"the {which} fit did not converge ({message})")
    return fit


def fit_rater_type_lmm(human_mean, model, emotion, image_id, emotions) -> LmmResult:
    """Fit rating ~ rater_type * emotion + (1 | image_id) to a model's answers and the human means.

    Parameters
    ----------
    human_mean, model, emotion, image_id : array_like
        Aligned per-image human mean, model prediction, emotion label and image id. Images missing
        either value are dropped and counted.
    emotions : sequence of str
        The declared labels in the study's order; the first present is the reference emotion. A
        label outside it is an error naming it.

    Returns
    -------
    LmmResult
        ``fixed_effects`` (term, estimate, se, Satterthwaite df, t, p, df_method), the image and
        residual variances (REML), sizes, the likelihood-ratio test of the interaction (chi-square,
        df, p), ``n_excluded_images`` and ``singular``.

    Raises
    ------
    FitDidNotConverge
        When the REML fit or either ML fit does not converge.

    Notes
    -----
    Two rows per image: ``y_ir = b0 + b1 model_r + g_e + d_e model_r + u_i + e_ir`` with
    ``u_i ~ N(0, s_img^2)``, ``e_ir ~ N(0, s^2)``, treatment coding (reference: human and the first
    emotion). On a balanced design (images within emotion, rater type within image) the REML
    estimates are the ANOVA ones: ``b1`` = mean(model - human) of the reference emotion,
    ``s^2 = MS_res``, ``s_img^2 = (MS_img - MS_res) / 2``; within-image terms have
    ``N_images - N_emotions`` df and between-image terms the Satterthwaite
    ``(MS_img + MS_res)^2 / (MS_img^2 / d + MS_res^2 / d)`` with ``d = N_images - N_emotions``.
    The interaction LRT compares ML fits with and without it on K - 1 df.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.2
    and 3.4.5; docs/stats.md, "LMM and the df it reports". Satterthwaite (1946), An approximate
    distribution of estimates of variance components, *Biometrics Bulletin* 2(6), 110-114;
    Kuznetsova, Brockhoff & Christensen (2017), lmerTest package, *J. Stat. Softw.* 82(13).

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
    2                    emotion[sad]      -2.0  6.4
    3  rater_type[model]:emotion[sad]      -1.0  4.0
    >>> round(r.image_variance, 6), round(r.residual_variance, 6), r.interaction_df
    (0.5, 0.5, 1)
    """
    import mixedlm  # heavy import, only when an LMM is actually fitted

    long, terms, names, n_excluded = _design(human_mean, model, emotion, image_id, emotions)
    emo_terms = terms[1:]
    inter = [f"is_model:{t}" for t in emo_terms]
    full = "rating ~ " + " + ".join(terms + inter) + " + (1|image_id)"
    reduced = "rating ~ " + " + ".join(terms) + " + (1|image_id)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _converged(mixedlm.lmer(full, long, REML=True), "REML")
        ddf = mixedlm.satterthwaite_df(fit)
    beta = fit.fixef()
    se = np.sqrt(np.diag(np.asarray(fit.vcov())))
    df = dict(zip(ddf.param_names, ddf.df))
    rows = []
    for (term, est), s in zip(beta.items(), se):
        d = float(df[term])
        t = float(est) / s
        rows.append({"term": names.get(term, term), "estimate": float(est), "se": float(s), "df": d,
                     "t": t, "p": float(2 * sps.t.sf(abs(t), d)), "df_method": DF_METHOD})
    vc = _variances(fit)
    if emo_terms:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ll_full = float(_converged(mixedlm.lmer(full, long, REML=False), "full ML").logLik().value)
            ll_red = float(_converged(mixedlm.lmer(reduced, long, REML=False), "reduced ML").logLik().value)
        chi2 = max(2 * (ll_full - ll_red), 0.0)
        lr_df = len(emo_terms)
        lr_p = float(sps.chi2.sf(chi2, lr_df))
    else:
        chi2, lr_df, lr_p = float("nan"), 0, float("nan")
    singular = fit.is_singular() if callable(fit.is_singular) else fit.is_singular
    return LmmResult(pd.DataFrame(rows), vc[0], vc[1], long.image_id.nunique(), len(long),
                     chi2, lr_df, lr_p, n_excluded, bool(singular))


def _variances(fit) -> tuple[float, float]:
    """(image intercept variance, residual variance) from the fitted model."""
    sigma = float(fit.sigma() if callable(fit.sigma) else fit.sigma)
    theta = np.asarray(fit.theta, dtype=float).ravel()
    return float((theta[0] * sigma) ** 2), sigma**2
