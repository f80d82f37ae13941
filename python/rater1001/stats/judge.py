"""Statistics of the pairwise judge (the lab log's protocol). Pure functions on frames.

Conventions. A pair is (candidate_a, candidate_b); `order` AB shows candidate_a as 응답 1, BA shows
candidate_b as 응답 1. A judge writes a *position* verdict ("1", "2", "tie"); `winner_of` turns it
into a *pair* verdict "a", "b" or "tie". The consistency rule of the log (Bias 1): when both orders
were judged, equal pair verdicts stand and unequal ones become a tie (and count as inconsistent).
A win rate counts a tie as half a win. Bradley-Terry handles ties with Davidson's (1970) model, not
half-wins: a tie is its own outcome with probability nu*sqrt(pi_i pi_j)/(pi_i + pi_j + nu*sqrt(pi_i pi_j)).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .fits import GRADIENT_TOLERANCE, central_gradient, optimiser_warnings_recorded_by_the_caller

PAIR_VERDICTS = ("a", "b", "tie")
SCORE = {"a": 1.0, "tie": 0.5, "b": 0.0}


# --- the consistency rule -------------------------------------------------------------------------

def winner_of(position_verdict: str | None, order: str) -> str | None:
    """Position verdict ("1"/"2"/"tie", None = not parsed) in presentation `order` -> "a"/"b"/"tie"."""
    if position_verdict is None or pd.isna(position_verdict):
        return None
    if position_verdict == "tie":
        return "tie"
    if order not in ("AB", "BA"):
        raise ValueError(f"order must be AB or BA, got {order!r}")
    first, second = ("a", "b") if order == "AB" else ("b", "a")
    if position_verdict == "1":
        return first
    if position_verdict == "2":
        return second
    raise ValueError(f"position verdict must be '1', '2' or 'tie', got {position_verdict!r}")


def consistent_verdict(winner_ab: str | None, winner_ba: str | None, *, single_order_ok: bool = False
                       ) -> tuple[str | None, bool | None]:
    """(final pair verdict, consistent?) from the two orders' pair verdicts.

    Both present: equal -> that verdict (consistent), else "tie" (inconsistent). One present: the
    pair is incomplete -> (None, None), unless `single_order_ok` (a human shown one order by design)
    -> (that verdict, None). None present -> (None, None)."""
    if winner_ab is not None and winner_ba is not None:
        return (winner_ab, True) if winner_ab == winner_ba else ("tie", False)
    single = winner_ab if winner_ab is not None else winner_ba
    if single is not None and single_order_ok:
        return single, None
    return None, None


def consolidate_orders(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Long raw verdicts -> one row per (judge, sample, variant, pair, axis) with the consistency rule.

    Input columns: judge_id, judge_kind, sample_id, variant, candidate_a, candidate_b, axis,
    presentation_order, position_verdict. Output adds winner_ab, winner_ba, n_orders_parsed,
    is_consistent, final_verdict ("a"/"b"/"tie"/None when incomplete), score_a (1 / 0.5 / 0)."""
    keys = ["judge_id", "judge_kind", "sample_id", "variant", "candidate_a", "candidate_b", "axis"]
    out_cols = keys + ["winner_ab", "winner_ba", "n_orders_parsed", "is_consistent", "final_verdict", "score_a"]
    if verdicts.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in out_cols}).astype(
            {"n_orders_parsed": "int64", "score_a": "float64"})
    v = verdicts.copy()
    v["winner"] = [winner_of(p, o) for p, o in zip(v["position_verdict"], v["presentation_order"])]
    dup = v.duplicated(keys + ["presentation_order"])
    if dup.any():
        r = v[dup].iloc[0]
        raise ValueError(f"verdicts: more than one row for {dict(r[keys + ['presentation_order']])}")
    wide = v.set_index(keys + ["presentation_order"])["winner"].unstack("presentation_order")
    wide = wide.reindex(columns=["AB", "BA"]).reset_index()
    wide = wide.rename(columns={"AB": "winner_ab", "BA": "winner_ba"})
    for col in ("winner_ab", "winner_ba"):
        wide[col] = pd.Series([None if pd.isna(w) else w for w in wide[col]], index=wide.index, dtype="object")
    finals = [
        consistent_verdict(ab, ba, single_order_ok=(kind == "human"))
        for ab, ba, kind in zip(wide["winner_ab"], wide["winner_ba"], wide["judge_kind"])
    ]
    wide["n_orders_parsed"] = wide[["winner_ab", "winner_ba"]].notna().sum(axis=1).astype("int64")
    wide["final_verdict"] = [f for f, _ in finals]
    wide["is_consistent"] = pd.array([c for _, c in finals], dtype="boolean")
    wide["score_a"] = wide["final_verdict"].map(SCORE).astype("float64")
    wide.columns.name = None
    return wide[out_cols].reset_index(drop=True)


# --- win rates ------------------------------------------------------------------------------------

def wilson_interval(successes: float, n: float, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a proportion; `successes` may be fractional (ties as half wins).
    (NaN, NaN) when n is 0."""
    if n <= 0:
        return (float("nan"), float("nan"))
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)


@dataclass(frozen=True)
class WinRateSummary:
    wins: int
    ties: int
    losses: int
    n_pairs: int  # judged pairs and pairs without a verdict
    win_rate: float  # (wins + ties / 2) / n_pairs; NaN without pairs
    win_rate_ci_low: float
    win_rate_ci_high: float
    n_incomplete: int  # pairs without a verdict, counted against the candidate
    win_rate_answered_only: float


def win_rate_summary(outcomes: pd.Series, alpha: float = 0.05) -> WinRateSummary:
    """Outcomes "win"/"tie"/"loss" of one candidate, None/NaN where no verdict came back (a call
    failed or did not parse) -> counts, win rate (ties half) with its Wilson interval, and the
    answered-only win rate. A missing verdict counts against the candidate (the tool's
    missing-answer policy): it is in n_pairs but adds nothing to the wins, so win_rate is
    (wins + ties / 2) / all pairs; win_rate_answered_only divides by the judged pairs only."""
    missing = outcomes.isna()
    wins = int((outcomes == "win").sum())
    ties = int((outcomes == "tie").sum())
    losses = int((outcomes == "loss").sum())
    n_missing = int(missing.sum())
    judged = wins + ties + losses
    n = judged + n_missing
    rate = (wins + 0.5 * ties) / n if n else float("nan")
    lo, hi = wilson_interval(wins + 0.5 * ties, n, alpha)
    return WinRateSummary(wins=wins, ties=ties, losses=losses, n_pairs=n, win_rate=rate, win_rate_ci_low=lo,
                          win_rate_ci_high=hi, n_incomplete=n_missing,
                          win_rate_answered_only=(wins + 0.5 * ties) / judged if judged else float("nan"))


@dataclass(frozen=True)
class ScoreDifference:
    difference: float  # mean score of group 1 minus group 2
    ci_low: float
    ci_high: float
    p_value: float  # Welch's t-test


def score_difference(scores_1, scores_2, alpha: float = 0.05) -> ScoreDifference:
    """Difference of two groups' mean pair scores (1 win / 0.5 tie / 0 loss, so the mean is the win
    rate): Welch's t-test and its interval (the scores are three-valued, so a proportion test
    would treat a tie as a coin). NaN with fewer than two scores in a group."""
    a, b = np.asarray(scores_1, float), np.asarray(scores_2, float)
    out = ScoreDifference(difference=float("nan"), ci_low=float("nan"), ci_high=float("nan"), p_value=float("nan"))
    if len(a) < 2 or len(b) < 2:
        return out
    out = replace(out, difference=float(a.mean() - b.mean()))
    if a.var(ddof=1) + b.var(ddof=1) == 0:
        return out  # no spread at all: no interval, no test
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(1 - alpha)
    return replace(out, ci_low=float(ci.low), ci_high=float(ci.high), p_value=float(res.pvalue))


# --- Bradley-Terry with Davidson ties -------------------------------------------------------------

@dataclass(frozen=True)
class BradleyTerryFit:
    strengths: pd.DataFrame  # item, log_strength, se, ci_low, ci_high, n_comparisons, note
    tie_parameter: float  # Davidson's nu (0 when the data hold no ties)
    log_likelihood: float
    reference: str
    converged: bool = True  # False: every estimate but the reference's is NULL with the reason as note


def _davidson_negloglik(params, i_idx, j_idx, w_i, w_j, t, free_mask, with_ties):
    n_items = free_mask.size
    theta = np.zeros(n_items)
    theta[free_mask] = params[: free_mask.sum()]
    log_nu = params[-1] if with_ties else -np.inf
    ti, tj = theta[i_idx], theta[j_idx]
    tie_term = log_nu + 0.5 * (ti + tj)
    log_denom = np.logaddexp(np.logaddexp(ti, tj), tie_term) if with_ties else np.logaddexp(ti, tj)
    ll = w_i * (ti - log_denom) + w_j * (tj - log_denom)
    if with_ties:
        ll = ll + t * (tie_term - log_denom)
    return -ll.sum()


def bradley_terry_davidson(comparisons: pd.DataFrame, reference: str, alpha: float = 0.05) -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry strengths with Davidson ties.

    `comparisons`: one row per comparison with item_i, item_j, outcome in {"i", "j", "tie"}.
    log_strength is log(pi) relative to `reference` (fixed at 0); se and the Wald interval come from
    the inverse observed information. Items whose strength is not finite (no wins and no ties, or no
    losses and no ties: perfect separation) or that are not connected to the reference are left
    out of the fit and reported with a note and NULL strength."""
    items_all = sorted(set(comparisons["item_i"]) | set(comparisons["item_j"]) | {reference})
    notes: dict[str, str] = {}
    data = comparisons[["item_i", "item_j", "outcome"]].copy()
    while True:
        score = {}
        for it in items_all:
            if it in notes:
                continue
            as_i = data[data["item_i"] == it]["outcome"]
            as_j = data[data["item_j"] == it]["outcome"]
            wins = (as_i == "i").sum() + (as_j == "j").sum()
            losses = (as_i == "j").sum() + (as_j == "i").sum()
            ties = (as_i == "tie").sum() + (as_j == "tie").sum()
            score[it] = (wins, losses, ties)
        bad = [it for it, (w, l, t) in score.items()
               if it != reference and (w + l + t == 0 or (t == 0 and (w == 0 or l == 0)))]
        if not bad:
            break
        for it in bad:
            w, l, t = score[it]
            notes[it] = ("no comparisons" if w + l + t == 0 else
                         "not finite: no wins and no ties" if w == 0 else "not finite: no losses and no ties")
        data = data[~data["item_i"].isin(bad) & ~data["item_j"].isin(bad)]
    # Connectivity to the reference (otherwise the strengths are not identified).
    reach, frontier = {reference}, [reference]
    edges = list(zip(data["item_i"], data["item_j"]))
    while frontier:
        node = frontier.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == node and y not in reach:
                    reach.add(y)
                    frontier.append(y)
    for it in items_all:
        if it not in reach and it not in notes:
            notes[it] = "not connected to the reference"
    data = data[data["item_i"].isin(reach) & data["item_j"].isin(reach)]
    items = [it for it in items_all if it in reach]

    index = {it: k for k, it in enumerate(items)}
    grouped = (data.assign(w_i=data["outcome"].eq("i"), w_j=data["outcome"].eq("j"), t=data["outcome"].eq("tie"))
               .groupby(["item_i", "item_j"])[["w_i", "w_j", "t"]].sum().reset_index())
    i_idx = grouped["item_i"].map(index).to_numpy(int)
    j_idx = grouped["item_j"].map(index).to_numpy(int)
    w_i, w_j, t = (grouped[c].to_numpy(float) for c in ("w_i", "w_j", "t"))
    free_mask = np.array([it != reference for it in items])
    with_ties = bool(t.sum() > 0)
    n_params = int(free_mask.sum()) + (1 if with_ties else 0)
    n_by_item = {it: int(((data["item_i"] == it) | (data["item_j"] == it)).sum()) for it in items_all}

    theta = np.zeros(len(items))
    cov = np.zeros((0, 0))
    nu, loglik = 0.0, float("nan")
    converged = True
    if n_params > 0 and len(data):
        args = (i_idx, j_idx, w_i, w_j, t, free_mask, with_ties)
        with optimiser_warnings_recorded_by_the_caller():
            res = optimize.minimize(_davidson_negloglik, np.zeros(n_params), args=args, method="BFGS",
                                    options={"gtol": 1e-10, "maxiter": 10_000})
        # gtol 1e-10 is rarely met exactly ("precision loss" at the optimum); the gradient decides.
        gradient = np.max(np.abs(central_gradient(lambda p: _davidson_negloglik(p, *args), res.x)))
        if not (res.success or gradient < GRADIENT_TOLERANCE):
            for it in items:
                if it != reference:
                    notes[it] = (f"not estimated: the fit did not converge ({res.message}; "
                                 f"largest gradient {gradient:.2g})")
            converged = False
        import statsmodels.tools.numdiff as nd

        hess = nd.approx_hess3(res.x, lambda p: _davidson_negloglik(p, *args))
        cov = np.linalg.pinv(hess)
        theta[free_mask] = res.x[: free_mask.sum()]
        nu = float(np.exp(res.x[-1])) if with_ties else 0.0
        loglik = -float(res.fun)
    z = stats.norm.ppf(1 - alpha / 2)
    free_pos = {it: k for k, it in enumerate(it for it in items if it != reference)}
    rows = []
    for it in items_all:
        if it in notes:
            rows.append((it, np.nan, np.nan, np.nan, np.nan, n_by_item[it], notes[it]))
            continue
        est = float(theta[index[it]])
        if it == reference:
            rows.append((it, 0.0, 0.0, 0.0, 0.0, n_by_item[it], "reference (fixed at 0)"))
            continue
        se = float(np.sqrt(max(cov[free_pos[it], free_pos[it]], 0.0))) if cov.size else np.nan
        rows.append((it, est, se, est - z * se, est + z * se, n_by_item[it], None))
    table = pd.DataFrame(rows, columns=["item", "log_strength", "se", "ci_low", "ci_high", "n_comparisons", "note"])
    if not converged:
        nu, loglik = float("nan"), float("nan")
    return BradleyTerryFit(table, nu, loglik, reference, converged)


# --- bias checks ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PositionBiasTest:
    share_first: float  # share of decisive verdicts choosing the response shown first
    n_decisive: int
    p_value: float  # exact two-sided binomial test of 0.5
    ci_low: float  # Wilson 95% interval of share_first
    ci_high: float


def position_bias_test(first_wins: int, second_wins: int) -> PositionBiasTest:
    """Share of decisive single-order verdicts that chose the response shown first, and the exact
    two-sided binomial test of 0.5 (no position bias)."""
    n = int(first_wins) + int(second_wins)
    if n == 0:
        return PositionBiasTest(share_first=float("nan"), n_decisive=0, p_value=float("nan"),
                                ci_low=float("nan"), ci_high=float("nan"))
    res = stats.binomtest(int(first_wins), n, 0.5, alternative="two-sided")
    ci = res.proportion_ci(confidence_level=0.95, method="wilson")
    return PositionBiasTest(share_first=first_wins / n, n_decisive=n, p_value=float(res.pvalue),
                            ci_low=float(ci.low), ci_high=float(ci.high))


@dataclass(frozen=True)
class LogisticSlope:
    intercept: float
    slope: float
    slope_se: float
    p_value: float  # Wald test of the slope
    ci_low: float  # Wald 95% interval of the slope
    ci_high: float
    n: int
    converged: bool
    note: str | None  # why the estimates are NaN, else None


def logistic_slope(y: np.ndarray, x: np.ndarray, covariates: np.ndarray | None = None) -> LogisticSlope:
    """Logistic regression y ~ 1 + x (+ covariates) by maximum likelihood (statsmodels Logit):
    intercept, slope of x with its standard error, Wald p and 95% interval, `converged` and `note`.
    NaN with the reason in `note` when y does not vary, x is constant, the design is singular, or
    Newton's method did not converge (typically (quasi-)separation: some estimate diverges)."""
    import statsmodels.api as sm

    y = np.asarray(y, float)
    x = np.asarray(x, float)

    def nan(reason: str, converged: bool = False) -> LogisticSlope:
        return LogisticSlope(intercept=np.nan, slope=np.nan, slope_se=np.nan, p_value=np.nan, ci_low=np.nan,
                             ci_high=np.nan, n=int(y.size), converged=converged, note=reason)

    if y.size < 3 or np.unique(y).size < 2 or np.unique(x).size < 2:
        return nan("not estimated: fewer than 3 rows, or the outcome or the predictor does not vary")
    cols = [np.ones_like(x), x] + ([] if covariates is None else list(np.atleast_2d(np.asarray(covariates, float).T)))
    X = np.column_stack(cols)
    try:
        with optimiser_warnings_recorded_by_the_caller(), np.errstate(all="ignore"):
            fit = sm.Logit(y, X).fit(disp=0, maxiter=200)
    except Exception as exc:  # noqa: BLE001 - perfect separation or a singular design: no estimate
        return nan(f"not estimated: {type(exc).__name__}: {exc}")
    if not fit.mle_retvals.get("converged", False):
        return nan(f"not estimated: the logistic fit did not converge in {fit.mle_retvals.get('iterations')} "
                   "Newton iterations (the outcome is (almost) separated by the predictors)")
    lo, hi = fit.conf_int()[1]
    return LogisticSlope(intercept=float(fit.params[0]), slope=float(fit.params[1]), slope_se=float(fit.bse[1]),
                         p_value=float(fit.pvalues[1]), ci_low=float(lo), ci_high=float(hi), n=int(y.size),
                         converged=True, note=None)


@dataclass(frozen=True)
class CohenKappa:
    kappa: float
    agreement: float  # raw share of equal labels
    n: int  # items both labelled


def cohen_kappa(labels_1, labels_2) -> CohenKappa:
    """Unweighted Cohen's kappa of two label sequences (sklearn), with the raw agreement.
    NaN when fewer than two items or when both raters used one and the same label only."""
    from sklearn.metrics import cohen_kappa_score

    a = pd.Series(list(labels_1), dtype="object")
    b = pd.Series(list(labels_2), dtype="object")
    if len(a) != len(b):
        raise ValueError(f"label sequences differ in length ({len(a)} vs {len(b)})")
    keep = a.notna() & b.notna()
    a, b = a[keep].astype(str), b[keep].astype(str)
    n = int(len(a))
    agreement = float((a.to_numpy() == b.to_numpy()).mean()) if n else float("nan")
    if n < 2 or (a.nunique() == 1 and b.nunique() == 1 and a.iloc[0] == b.iloc[0]):
        return CohenKappa(kappa=float("nan"), agreement=agreement, n=n)
    return CohenKappa(kappa=float(cohen_kappa_score(a, b)), agreement=agreement, n=n)
