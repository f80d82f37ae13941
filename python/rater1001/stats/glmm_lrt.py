"""Likelihood-ratio test of a categorical fixed factor in the binomial GLMM (paper 3.4.4: correct ~
audit_1 + (1 | gt_category) against correct ~ 1 + (1 | gt_category)), with its treatment coding."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .design import treatment_design
from .glmm import BinomialData, estimation_method, fit_glmm_binomial
from .glmm_quadrature import DEFAULT_N_AGQ


@dataclass(frozen=True)
class LikelihoodRatioTest:
    chi2: float | None
    df: int | None
    p_value: float | None
    random_intercept_sd: float | None  # of the model with the factor
    random_intercept_sd_null: float | None
    loglik_full: float | None
    loglik_null: float | None
    method: str
    n_obs: int
    n_groups: int
    n_levels: int
    coefficients: dict[str, float] | None
    reason: str | None  # why a statistic is NULL, or a caveat on a defined one

    def as_row(self) -> dict:
        """Flat record for a table; fixed effects (logit scale, treatment coding against the
        first sorted level) as JSON so the direction of a gap is visible next to its test."""
        row = {
            k: getattr(self, k)
            for k in (
                "chi2",
                "df",
                "p_value",
                "random_intercept_sd",
                "random_intercept_sd_null",
                "loglik_full",
                "loglik_null",
                "method",
                "n_obs",
                "n_groups",
                "n_levels",
                "reason",
            )
        }
        row["fixed_effects_json"] = (
            json.dumps(self.coefficients, sort_keys=True) if self.coefficients is not None else None
        )
        return row


def likelihood_ratio_test(
    frame: pd.DataFrame,
    factor: str,
    response: str = "correct",
    group: str = "category",
    n_agq: int | None = DEFAULT_N_AGQ,
    weight: str | None = None,
    name: str | None = None,
) -> LikelihoodRatioTest:
    """Likelihood-ratio test of `response ~ factor + (1 | group)` against
    `response ~ 1 + (1 | group)`.

    Parameters
    ----------
    frame : pandas.DataFrame
        One 0/1 (or bool) row per trial.
    factor : str
        The categorical fixed factor tested (audit_1, audit_2).
    response : str, default "correct"
    group : str, default "category"
        The random-intercept grouping.
    n_agq : int or None, default None
        None: mode-split Gauss-Legendre; an integer: Gauss-Hermite nodes (1: Laplace).
    weight : str, optional
        A column of how many trials a row stands for: one row per distinct (response, factor,
        group) instead of one per trial.
    name : str, optional
        The factor's name in the fixed effects' names (``name[level]``); default the column's.

    Returns
    -------
    LikelihoodRatioTest
        chi2, df, p_value, both random-intercept SDs and log-likelihoods, method, counts, the
        fixed effects, and a reason when a statistic is NULL (degenerate inputs) or has a caveat.

    Raises
    ------
    KeyError
        A column is missing.
    ValueError
        A response that is not 0/1, naming the row and the value.

    Notes
    -----
    chi2 = 2 (l_full - l_null) on df = rank(X_full) - rank(X_null), p = P(chi2_df > chi2); both
    fits by :func:`fit_glmm_binomial`. Rows are aggregated to binomial counts per (group, level)
    first, which changes nothing in the likelihood of 0/1 data.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4
    (correct ~ audit_1 + (1 | gt_category)); Bates, Maechler, Bolker & Walker (2015), "Fitting linear
    mixed-effects models using lme4", Journal of Statistical Software 67(1) (nAGQ);
    docs/demographics.md.

    Examples
    --------
    Two categories alike (no group variance), audit_1 A right 3 of 4 and B 1 of 4 in each: the test is
    the G-test of [[6, 2], [2, 6]], 2 (12 log 1.5 + 4 log 0.5) = 4.186 on 1 df:

    >>> import pandas as pd
    >>> rows = [(e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> t = likelihood_ratio_test(pd.DataFrame(rows, columns=["category", "audit_1", "correct"]), "audit_1")
    >>> round(t.chi2, 4), t.df, round(t.p_value, 4)
    (4.186, 1, 0.0408)
    """
    method = estimation_method(n_agq)
    cols = [response, factor, group]
    missing_cols = [c for c in cols + ([weight] if weight else []) if c not in frame.columns]
    if missing_cols:
        raise KeyError(f"likelihood_ratio_test: input has no column(s) {missing_cols}")
    w_all = (pd.Series(1, index=frame.index) if weight is None else frame[weight]).astype(int)
    d = frame[cols]
    incomplete = d.isna().any(axis=1)
    n_missing = int(w_all[incomplete].sum())
    d, w = d[~incomplete], w_all[~incomplete]
    y = d[response].astype(float)
    if not y.isin([0.0, 1.0]).all():
        bad = d.index[~y.isin([0.0, 1.0])][0]
        raise ValueError(f"row {bad}: column {response!r} = {d.loc[bad, response]!r} is not 0/1")
    n_levels = int(d[factor].nunique())
    n_groups = int(d[group].nunique())
    base = dict(method=method, n_obs=int(w.sum()), n_groups=n_groups, n_levels=n_levels, coefficients=None)
    notes = [f"{n_missing} rows with a missing value left out"] if n_missing else []

    def null_result(reason):
        return LikelihoodRatioTest(None, None, None, None, None, None, None, reason="; ".join([reason] + notes), **base)

    if len(d) == 0:
        return null_result("no rows")
    if y.nunique() < 2:
        return null_result(
            f"{response} has no variance (all {'correct' if y.iloc[0] else 'wrong'}):"
            " the logit model has no finite maximum"
        )
    if n_levels < 2:
        return null_result(f"{name or factor} has a single level: nothing to test")

    agg = (
        d.assign(successes=y * w, trials=w)
        .groupby([group, factor], observed=True)[["successes", "trials"]]
        .sum()
        .reset_index()
    )
    X_full, names = treatment_design(agg[factor].rename(name or factor))
    X_null = X_full[:, :1]
    full = BinomialData.build(X_full, agg["successes"], agg["trials"], agg[group], from_binary_rows=True)
    null = BinomialData.build(X_null, agg["successes"], agg["trials"], agg[group], from_binary_rows=True)
    fit_null = fit_glmm_binomial(null, n_agq)
    fit_full = fit_glmm_binomial(full, n_agq)
    chi2 = max(0.0, 2.0 * (fit_full.loglik - fit_null.loglik))
    df = int(np.linalg.matrix_rank(X_full) - np.linalg.matrix_rank(X_null))
    notes += list(dict.fromkeys(fit_full.warnings + fit_null.warnings))
    if n_groups == 1:
        notes.append(
            "single group: the random intercept is not identifiable and its SD is 0, so "
            "this is the ordinary logistic-regression LR test"
        )
    if not (fit_full.converged and fit_null.converged):
        notes.append("optimizer did not reach a zero gradient")
    return LikelihoodRatioTest(
        chi2=chi2,
        df=df,
        p_value=float(stats.chi2.sf(chi2, df)),
        random_intercept_sd=fit_full.sigma,
        random_intercept_sd_null=fit_null.sigma,
        loglik_full=fit_full.loglik,
        loglik_null=fit_null.loglik,
        reason="; ".join(notes) or None,
        **{**base, "coefficients": dict(zip(names, map(float, fit_full.beta)))},
    )
