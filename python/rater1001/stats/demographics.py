"""Demographic bias audit (paper 3.4.4 and 4.5, Supplement S5; docs/stats.md).

Expected input (`predictions`): one row per (condition_id, image_id) with

    condition_id       model condition
    image_id           stimulus
    race, gender       stimulus factors (any declared label sets)
    emotion            ground-truth (intended) emotion label
    predicted_emotion  the model's label (NULL when parsing failed: counts as wrong)
    correct            bool, predicted_emotion == emotion
    d_valence, d_arousal, ...
                       Bland-Altman difference per dimension, d = human_mean - model_value
                       (docs/demographics.md). The paper's 3.4.4 writes model - human; F, eta^2 and p are
                       sign-free, Tukey mean differences carry the sign of the input column.

Every function is pure (frames in, frames out). Rows where a test is undefined carry NULL
statistics and a `reason`; nothing is dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multicomp import pairwise_tukeyhsd
from statsmodels.stats.multitest import multipletests

from . import classification
from .glmm import DEFAULT_N_AGQ, likelihood_ratio_test, treatment_design

SLICE_TYPES = ("race", "gender", "race_gender")
STRATIFIED_TERMS = ("race", "gender", "race:gender")
ALPHA = 0.05


def _require(frame: pd.DataFrame, columns, where: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{where}: input frame has no column(s) {missing}; "
                       f"it has {list(frame.columns)}")


def _require_complete(frame: pd.DataFrame, columns, where: str) -> None:
    """Design columns (condition, stimulus factors, true emotion) come from the data contract and
    must be present on every row; a gap there is a data error, not something to skip."""
    for col in columns:
        missing = frame[col].isna()
        if missing.any():
            row = frame.index[missing.to_numpy()][0]
            image = frame.at[row, "image_id"] if "image_id" in frame.columns else "?"
            raise ValueError(f"{where}: row {row} (image_id={image!r}) has no value in column "
                             f"{col!r}; {int(missing.sum())} such rows")


def _bias_column(dimension: str) -> str:
    return f"d_{dimension}"


# --------------------------------------------------------------------------- classification slices

def _slice_keys(frame: pd.DataFrame) -> dict[str, pd.Series]:
    return {
        "race": frame["race"].astype(str),
        "gender": frame["gender"].astype(str),
        "race_gender": frame["race"].astype(str) + ":" + frame["gender"].astype(str),
    }


def slice_metrics(predictions: pd.DataFrame, weight: str | None = None) -> pd.DataFrame:
    """Accuracy and macro-F1 per (condition_id, slice_type, slice) (Tables 7, 7a, Figure 7b).

    Macro-F1 averages over the ground-truth labels present in the slice (classification.summary
    with that label set). A label that never occurs as truth in the slice is not averaged in:
    its F1 would be 0 or undefined only because of how the slice was cut, not because of the
    model; predicting it still costs recall of the true label. A NULL prediction is wrong.
    Columns: condition_id, slice_type, slice, race, gender, n, n_unparsed, accuracy, f1_macro,
    n_labels (labels averaged in F1). `weight` names a column of how many identical answers a row
    stands for (pooled human labels come as per-image counts, not one row per rating)."""
    _require(predictions, ["condition_id", "race", "gender", "emotion", "predicted_emotion"],
             "slice_metrics")
    _require_complete(predictions, ["condition_id", "race", "gender", "emotion"], "slice_metrics")
    d = predictions
    rows = []
    for slice_type, key in _slice_keys(d).items():
        for (condition, value), part in d.groupby([d["condition_id"], key], sort=True):
            labels = sorted(part["emotion"].dropna().astype(str).unique())
            s = classification.summary(part["emotion"].astype(str),
                                       part["predicted_emotion"].astype(object), labels,
                                       weight=None if weight is None else part[weight])
            race = part["race"].iloc[0] if slice_type in ("race", "race_gender") else None
            gender = part["gender"].iloc[0] if slice_type in ("gender", "race_gender") else None
            rows.append(dict(condition_id=condition, slice_type=slice_type, slice=value,
                             race=race, gender=gender, n=s.n, n_unparsed=s.n_missing,
                             accuracy=s.accuracy, f1_macro=s.f1_macro, n_labels=len(labels)))
    return pd.DataFrame(rows)


def slice_gaps(slices: pd.DataFrame) -> pd.DataFrame:
    """Largest gap (max - min, percentage points) across the slices of each (condition_id,
    slice_type), on F1 and on accuracy, with the slices at either end (Table 7 "최대 delta",
    Table 7a |Woman - Man|, Figure 7b's six-cell delta). Computed from unrounded values."""
    rows = []
    for (condition, slice_type), part in slices.groupby(["condition_id", "slice_type"], sort=True):
        row = dict(condition_id=condition, slice_type=slice_type, n_slices=len(part))
        for metric, name in (("f1_macro", "f1"), ("accuracy", "accuracy")):
            vals = part.set_index("slice")[metric].dropna()
            if len(vals) < 2:
                row.update({f"{name}_gap_pp": None, f"{name}_max_slice": None,
                            f"{name}_min_slice": None})
                row["reason"] = "fewer than two slices: no gap"
                continue
            row.update({f"{name}_gap_pp": 100.0 * float(vals.max() - vals.min()),
                        f"{name}_max_slice": vals.idxmax(), f"{name}_min_slice": vals.idxmin()})
        rows.append(row)
    out = pd.DataFrame(rows)
    if "reason" not in out:
        out["reason"] = None
    return out


# --------------------------------------------------------------------------- GLMM LR tests

def glmm_lrt_table(predictions: pd.DataFrame, factors=("race", "gender"),
                   n_agq: int = DEFAULT_N_AGQ) -> pd.DataFrame:
    """correct ~ factor + (1 | emotion) vs correct ~ 1 + (1 | emotion), per condition and factor,
    by maximum likelihood (glmm.likelihood_ratio_test). One row per (condition_id, factor)."""
    _require(predictions, ["condition_id", "correct", "emotion", *factors], "glmm_lrt_table")
    _require_complete(predictions, ["condition_id", "correct", "emotion", *factors], "glmm_lrt_table")
    rows = []
    for condition, part in predictions.groupby("condition_id", sort=True):
        for factor in factors:
            test = likelihood_ratio_test(part, factor, response="correct", group="emotion",
                                         n_agq=n_agq)
            rows.append(dict(condition_id=condition, factor=factor, **test.as_row()))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- nested linear models

def _dummies(values: pd.Series) -> np.ndarray:
    """Treatment-coded columns (no intercept) of a categorical; first sorted level is reference."""
    return treatment_design(pd.Series(values))[0][:, 1:]


def _interaction(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape[1] == 0 or b.shape[1] == 0:
        return np.empty((a.shape[0], 0))
    return np.column_stack([a[:, i] * b[:, j] for i in range(a.shape[1]) for j in range(b.shape[1])])


@dataclass(frozen=True)
class _LinearFit:
    rss: float
    rank: int
    n: int

    @property
    def df_resid(self) -> int:
        return self.n - self.rank


def _ols(y: np.ndarray, X: np.ndarray) -> _LinearFit:
    """Least squares through the p x p normal equations, pseudo-inverted by eigendecomposition.

    The designs are a handful of 0/1 dummy columns (well conditioned), and solving the small
    p x p system avoids multithreaded LAPACK on a tall matrix, which was 50x slower on a busy
    2-core machine. The rank (hence every df) comes from the eigenvalues, so an empty cell or a
    single-level factor lowers it instead of failing."""
    if X.shape[1] == 0:
        return _LinearFit(rss=float(y @ y), rank=0, n=len(y))
    eigval, eigvec = np.linalg.eigh(X.T @ X)
    keep = eigval > max(eigval.max(), 1.0) * 1e-10
    coef = eigvec[:, keep] @ ((eigvec[:, keep].T @ (X.T @ y)) / eigval[keep])
    resid = y - X @ coef
    return _LinearFit(rss=float(resid @ resid), rank=int(keep.sum()), n=len(y))


def nested_f_test(y: np.ndarray, X_small: np.ndarray, X_large: np.ndarray) -> dict:
    """F test of X_small nested in X_large (R's anova(m_small, m_large)): the extra sum of squares
    over the extra rank, against the larger model's residual mean square. eta^2 is the extra sum
    of squares over the total (corrected) sum of squares of y (paper 3.4.4). Degrees of freedom are
    matrix ranks of the data actually used, so missing cells lower them instead of breaking."""
    y = np.asarray(y, dtype=float)
    small, large = _ols(y, X_small), _ols(y, X_large)
    ss_total = float(np.sum((y - y.mean()) ** 2))
    df_num, df_den = large.rank - small.rank, large.df_resid
    ss_term = max(0.0, small.rss - large.rss)
    out = dict(df_num=df_num, df_den=df_den, ss_term=ss_term, ss_total=ss_total, f_value=None,
               eta_sq=None, p_raw=None, reason=None)
    tiny = 1e-12 * max(1.0, ss_total)
    if ss_total <= tiny:
        out["reason"] = "bias has zero variance in this stratum"
    elif df_num <= 0:
        out["reason"] = "term not estimable from these data (single level or missing cells)"
    elif df_den <= 0:
        out["reason"] = "no residual degrees of freedom (one image per cell)"
    elif large.rss <= tiny:
        out["reason"] = "the larger model fits exactly: no residual variance"
    else:
        f = (ss_term / df_num) / (large.rss / df_den)
        out.update(f_value=f, eta_sq=ss_term / ss_total, p_raw=float(stats.f.sf(f, df_num, df_den)))
    return out


def stratum_factorial_tests(stratum: pd.DataFrame, bias: str) -> list[dict]:
    """The paper's three nested F tests within one emotion stratum, from the four models
    M_full = race*gender, M_add = race+gender, M_race = race, M_gen = gender:
    race: M_gen vs M_add; gender: M_race vs M_add; race:gender: M_add vs M_full."""
    y = stratum[bias].to_numpy(dtype=float)
    one = np.ones((len(y), 1))
    R, G = _dummies(stratum["race"].astype(str)), _dummies(stratum["gender"].astype(str))
    m_gen, m_race = np.hstack([one, G]), np.hstack([one, R])
    m_add = np.hstack([one, R, G])
    m_full = np.hstack([m_add, _interaction(R, G)])
    return [dict(term="race", **nested_f_test(y, m_gen, m_add)),
            dict(term="gender", **nested_f_test(y, m_race, m_add)),
            dict(term="race:gender", **nested_f_test(y, m_add, m_full))]


def benjamini_hochberg(p_values: pd.Series, alpha: float = ALPHA) -> tuple[pd.Series, pd.Series]:
    """BH q-values and reject flags (statsmodels fdr_bh) over the non-NULL p-values; NULL stays
    NULL and is not counted in the family."""
    q = pd.Series(np.nan, index=p_values.index, dtype=float)
    sig = pd.Series(pd.NA, index=p_values.index, dtype="boolean")
    ok = p_values.notna()
    if ok.any():
        reject, q_vals, _, _ = multipletests(p_values[ok].astype(float), alpha=alpha,
                                             method="fdr_bh")
        q[ok], sig[ok] = q_vals, reject
    return q, sig


def _usable(part: pd.DataFrame, bias: str) -> tuple[pd.DataFrame, int]:
    """Rows with a bias value, and how many lacked one (reported as n_missing, never hidden)."""
    keep = part[bias].notna()
    return part[keep], int((~keep).sum())


def stratified_anova(predictions: pd.DataFrame, dimensions=("valence", "arousal"),
                     alpha: float = ALPHA) -> pd.DataFrame:
    """Per (condition_id, dimension, emotion, term): df_num, df_den, f_value, eta_sq, p_raw,
    q_bh (BH within each (condition_id, dimension) family), significant (q_bh < alpha),
    n (images used), n_missing (rows without a bias value), reason (Tables 7b, 7c)."""
    bias_cols = [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "emotion", "race", "gender", *bias_cols],
             "stratified_anova")
    _require_complete(predictions, ["condition_id", "emotion", "race", "gender"], "stratified_anova")
    rows = []
    for condition, part in predictions.groupby("condition_id", sort=True):
        for dimension, bias in zip(dimensions, bias_cols):
            for emotion, stratum in part.groupby("emotion", sort=True):
                used, n_missing = _usable(stratum, bias)
                for test in stratum_factorial_tests(used, bias):
                    rows.append(dict(condition_id=condition, dimension=dimension, emotion=emotion,
                                     n=len(used), n_missing=n_missing, **test))
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["q_bh"], out["significant"] = np.nan, pd.Series(pd.NA, index=out.index, dtype="boolean")
    for _, idx in out.groupby(["condition_id", "dimension"]).groups.items():
        q, sig = benjamini_hochberg(out.loc[idx, "p_raw"], alpha)
        out.loc[idx, "q_bh"], out.loc[idx, "significant"] = q, sig
    out["family_size"] = out.groupby(["condition_id", "dimension"])["p_raw"].transform("count")
    cols = ["condition_id", "dimension", "emotion", "term", "df_num", "df_den", "f_value",
            "eta_sq", "p_raw", "q_bh", "significant", "family_size", "ss_term", "ss_total", "n",
            "n_missing", "reason"]
    return out[cols]


def tukey_cells(predictions: pd.DataFrame, anova: pd.DataFrame,
                alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the race x gender cells (statsmodels pairwise_tukeyhsd) for every
    (condition_id, dimension, emotion) whose race:gender interaction is significant after BH.
    meandiff = mean(group2) - mean(group1) of the bias column as given."""
    hits = anova[(anova["term"] == "race:gender") & (anova["significant"].fillna(False))]
    rows = []
    for hit in hits.itertuples(index=False):
        bias = _bias_column(hit.dimension)
        stratum = predictions[(predictions["condition_id"] == hit.condition_id)
                              & (predictions["emotion"] == hit.emotion)]
        used, _ = _usable(stratum, bias)
        cells = used["race"].astype(str) + ":" + used["gender"].astype(str)
        result = pairwise_tukeyhsd(used[bias].to_numpy(dtype=float), cells.to_numpy(), alpha=alpha)
        # the unrounded arrays, in statsmodels' pair order (upper triangle of the sorted groups)
        first, second = np.triu_indices(len(result.groupsunique), 1)
        for i, j, diff, p, (lo, hi), rej in zip(first, second, result.meandiffs, result.pvalues,
                                                  result.confint, result.reject):
            rows.append(dict(condition_id=hit.condition_id, dimension=hit.dimension,
                             emotion=hit.emotion, group1=result.groupsunique[i],
                             group2=result.groupsunique[j], meandiff=float(diff), p_adj=float(p),
                             lower=float(lo), upper=float(hi), reject=bool(rej)))
    return pd.DataFrame(rows, columns=["condition_id", "dimension", "emotion", "group1", "group2",
                                       "meandiff", "p_adj", "lower", "upper", "reject"])


def omnibus_tests(predictions: pd.DataFrame, dimensions=("valence", "arousal"),
                  factors=("race", "gender")) -> pd.DataFrame:
    """The archived v10.6 analyses (Tables S5.1-S5.4), per (condition_id, dimension, factor):
    main effect  bias ~ factor + emotion  vs  bias ~ emotion;
    interaction  bias ~ factor * emotion  vs  bias ~ factor + emotion."""
    bias_cols = [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "emotion", *factors, *bias_cols], "omnibus_tests")
    _require_complete(predictions, ["condition_id", "emotion", *factors], "omnibus_tests")
    rows = []
    for condition, part in predictions.groupby("condition_id", sort=True):
        for dimension, bias in zip(dimensions, bias_cols):
            for factor in factors:
                used, n_missing = _usable(part, bias)
                y = used[bias].to_numpy(dtype=float)
                one = np.ones((len(y), 1))
                F, E = _dummies(used[factor].astype(str)), _dummies(used["emotion"].astype(str))
                m_emo, m_add = np.hstack([one, E]), np.hstack([one, F, E])
                m_int = np.hstack([m_add, _interaction(F, E)])
                for term, small, large in ((factor, m_emo, m_add),
                                           (f"{factor}:emotion", m_add, m_int)):
                    rows.append(dict(condition_id=condition, dimension=dimension, factor=factor,
                                     term=term, n=len(used), n_missing=n_missing,
                                     **nested_f_test(y, small, large)))
    return pd.DataFrame(rows)


def significance_counts(anova: pd.DataFrame) -> pd.DataFrame:
    """Per (condition_id, dimension, term): in how many emotion strata the term is significant
    after BH, out of the strata where it could be tested ("valence - race significant in k/6")."""
    g = anova.groupby(["condition_id", "dimension", "term"], sort=True)
    out = g.agg(n_significant=("significant", lambda s: int(s.fillna(False).sum())),
                n_tested=("p_raw", "count"), n_strata=("emotion", "nunique")).reset_index()
    out["label"] = out["n_significant"].astype(str) + "/" + out["n_tested"].astype(str)
    return out
