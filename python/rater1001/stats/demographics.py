"""Demographic bias audit (paper 3.4.4 and 4.5, Supplement S5; docs/stats.md).

Expected input (`predictions`): one row per (condition_id, image_id) with

    condition_id       model condition
    image_id           stimulus
    audit_1, audit_2       stimulus factors (any declared label sets)
    category            ground-truth (intended) category label
    predicted_category  the model's label (NULL when parsing failed: counts as wrong)
    correct            bool, predicted_category == category
    d_valence, d_arousal, ...
                       Bland-Altman difference per dimension, d = human_mean - model_value
                       (docs/demographics.md). The paper's 3.4.4 writes model - human; F, eta^2 and p are
                       sign-free, Tukey mean differences carry the sign of the input column.

Every function is pure (frames in, frames out). Rows where a test is undefined carry NULL
statistics and a `reason`; nothing is dropped silently.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.sandbox.stats.multicomp import tukeyhsd
from statsmodels.stats.multitest import multipletests

from . import classification
from .glmm import DEFAULT_N_AGQ, likelihood_ratio_test, treatment_design

SLICE_TYPES = ("audit_1", "audit_2", "audit_1_audit_2")
STRATIFIED_TERMS = ("audit_1", "audit_2", "audit_1:audit_2")
ALPHA = 0.05


def _require(frame: pd.DataFrame, columns, where: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{where}: input frame has no column(s) {missing}; it has {list(frame.columns)}")


def _require_complete(frame: pd.DataFrame, columns, where: str) -> None:
    """Design columns (condition, stimulus factors, true category) come from the data contract and
    must be present on every row; a gap there is a data error, not something to skip."""
    for col in columns:
        missing = frame[col].isna()
        if missing.any():
            row = frame.index[missing.to_numpy()][0]
            image = frame.at[row, "image_id"] if "image_id" in frame.columns else "?"
            raise ValueError(
                f"{where}: row {row} (image_id={image!r}) has no value in column "
                f"{col!r}; {int(missing.sum())} such rows"
            )


def _bias_column(dimension: str) -> str:
    return f"d_{dimension}"


# --------------------------------------------------------------------------- classification slices


def _slice_keys(frame: pd.DataFrame, factors) -> dict[str, tuple[tuple[str, ...], pd.Series]]:
    """slice_type -> (its factors, each row's slice): each factor, then each pair 'a_b' ('x:y')."""
    keys = {f: ((f,), frame[f].astype(str)) for f in factors}
    for a, b in itertools.combinations(factors, 2):
        keys[f"{a}_{b}"] = ((a, b), frame[a].astype(str) + ":" + frame[b].astype(str))
    return keys


def slice_metrics(predictions: pd.DataFrame, weight: str | None = None, factors=("audit_1", "audit_2")) -> pd.DataFrame:
    """Accuracy and macro-F1 per (condition_id, slice_type, slice): by each factor and by each
    pair's cells (the paper: by audit_1, by audit_2 and by audit_1 x audit_2 cell).

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, audit_1, audit_2, category (truth), predicted_category (NULL: wrong) per image.
    weight : str, optional
        A column of how many identical answers a row stands for (pooled human labels come as
        per-image counts, not one row per rating).
    factors : sequence of str, default ("audit_1", "audit_2")
        The factor columns: slice types are each factor and each pair ``a_b`` (slice ``x:y``).

    Returns
    -------
    pandas.DataFrame
        condition_id, slice_type, slice, audit_1, audit_2 (the slice's level of a factor column
        named audit_1 or audit_2, else NULL), n, n_unparsed, accuracy, f1_macro, n_labels (labels
        averaged in F1).

    Raises
    ------
    KeyError, ValueError
        A missing column, or a design column with a gap (naming the row and image).

    Notes
    -----
    :func:`rater1001.stats.classification.summary` within each slice, macro-F1 over the true
    labels present in the slice: a label that never occurs as truth there would score 0 or
    undefined only because of how the slice was cut; predicting it still costs the true label's
    recall.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7, 7a, Figure 7b; docs/marts_demographics.md.

    Examples
    --------
    Race B: happy predicted for both images, one of them sad: accuracy 1/2; F1 of happy
    2 (1/2)(1) / (3/2) = 2/3, of sad 0, macro 1/3:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": ["i1", "i2", "i3", "i4"], "audit_1": ["A", "A", "B", "B"],
    ...                   "audit_2": ["F", "M", "F", "M"], "category": ["happy", "sad", "happy", "sad"],
    ...                   "predicted_category": ["happy", "sad", "happy", "happy"]})
    >>> s = slice_metrics(p)
    >>> s[s["slice_type"] == "audit_1"][["slice", "accuracy", "f1_macro"]].round(4).to_numpy().tolist()
    [['A', 1.0, 1.0], ['B', 0.5, 0.3333]]
    """
    factors = list(factors)
    _require(predictions, ["condition_id", *factors, "category", "predicted_category"], "slice_metrics")
    _require_complete(predictions, ["condition_id", *factors, "category"], "slice_metrics")
    d = predictions
    rows = []
    for slice_type, (of, key) in _slice_keys(d, factors).items():
        for (condition, value), part in d.groupby([d["condition_id"], key], sort=True):
            labels = sorted(part["category"].dropna().astype(str).unique())
            s = classification.summary(
                part["category"].astype(str),
                part["predicted_category"].astype(object),
                labels,
                weight=None if weight is None else part[weight],
            )
            audit_1 = part["audit_1"].iloc[0] if "audit_1" in of else None
            audit_2 = part["audit_2"].iloc[0] if "audit_2" in of else None
            rows.append(
                dict(
                    condition_id=condition,
                    slice_type=slice_type,
                    slice=value,
                    audit_1=audit_1,
                    audit_2=audit_2,
                    n=s.n,
                    n_unparsed=s.n_missing,
                    accuracy=s.accuracy,
                    f1_macro=s.f1_macro,
                    n_labels=len(labels),
                )
            )
    return pd.DataFrame(rows)


def slice_gaps(slices: pd.DataFrame) -> pd.DataFrame:
    """Largest gap across the slices of each (condition_id, slice_type), on F1 and on accuracy.

    Parameters
    ----------
    slices : pandas.DataFrame
        The output of :func:`slice_metrics`.

    Returns
    -------
    pandas.DataFrame
        condition_id, slice_type, n_slices, f1_gap_pp, f1_max_slice, f1_min_slice,
        accuracy_gap_pp, accuracy_max_slice, accuracy_min_slice, reason (fewer than two slices).

    Notes
    -----
    gap = 100 (max - min) over the slices, from unrounded values: Table 7's "최대 delta", Table
    7a's |Woman - Man|, Figure 7b's six-cell delta.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5, Tables 7, 7a, Figure 7b.

    Examples
    --------
    The slices of :func:`slice_metrics`' example: by audit_1, F1 1 against 1/3 and accuracy 1 against
    1/2:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": ["i1", "i2", "i3", "i4"], "audit_1": ["A", "A", "B", "B"],
    ...                   "audit_2": ["F", "M", "F", "M"], "category": ["happy", "sad", "happy", "sad"],
    ...                   "predicted_category": ["happy", "sad", "happy", "happy"]})
    >>> g = slice_gaps(slice_metrics(p)).set_index("slice_type")
    >>> r = g.loc["audit_1"]
    >>> round(float(r["f1_gap_pp"]), 4), float(r["accuracy_gap_pp"]), r["accuracy_min_slice"]
    (66.6667, 50.0, 'B')
    """
    rows = []
    for (condition, slice_type), part in slices.groupby(["condition_id", "slice_type"], sort=True):
        row = dict(condition_id=condition, slice_type=slice_type, n_slices=len(part))
        for metric, name in (("f1_macro", "f1"), ("accuracy", "accuracy")):
            vals = part.set_index("slice")[metric].dropna()
            if len(vals) < 2:
                row.update({f"{name}_gap_pp": None, f"{name}_max_slice": None, f"{name}_min_slice": None})
                row["reason"] = "fewer than two slices: no gap"
                continue
            row.update(
                {
                    f"{name}_gap_pp": 100.0 * float(vals.max() - vals.min()),
                    f"{name}_max_slice": vals.idxmax(),
                    f"{name}_min_slice": vals.idxmin(),
                }
            )
        rows.append(row)
    out = pd.DataFrame(rows)
    if "reason" not in out:
        out["reason"] = None
    return out


# --------------------------------------------------------------------------- GLMM LR tests


def glmm_lrt_table(
    predictions: pd.DataFrame,
    factors=("audit_1", "audit_2"),
    n_agq: int | None = DEFAULT_N_AGQ,
    weight: str | None = None,
) -> pd.DataFrame:
    """Likelihood-ratio tests of correct ~ factor + (1 | category) against correct ~ 1 + (1 | category),
    per condition and factor.

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, correct (0/1), category and the factor columns, one row per image.
    factors : tuple of str, default ("audit_1", "audit_2")
    n_agq : int or None, default None
        None: split Gauss-Legendre; an integer: Gauss-Hermite nodes (1: Laplace).
    weight : str, optional
        A column of how many images a row stands for (per-cell counts).

    Returns
    -------
    pandas.DataFrame
        One row per (condition_id, factor): chi2, df, p_value, random-intercept SDs,
        log-likelihoods, method, counts, reason, fixed_effects_json.

    Notes
    -----
    chi2 = 2 (l_full - l_null) by maximum likelihood
    (:func:`rater1001.stats.glmm.likelihood_ratio_test`).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; docs/demographics.md.

    Examples
    --------
    The G-test example of :func:`rater1001.stats.glmm.likelihood_ratio_test`, for one condition:

    >>> import pandas as pd
    >>> rows = [("m", e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> t = glmm_lrt_table(pd.DataFrame(rows, columns=["condition_id", "category", "audit_1", "correct"]), factors=("audit_1",))
    >>> t[["factor", "df"]].to_numpy().tolist(), round(float(t["chi2"].iloc[0]), 4)
    ([['audit_1', 1]], 4.186)
    """
    factors = list(factors)
    _require(predictions, ["condition_id", "correct", "category", *factors], "glmm_lrt_table")
    _require_complete(predictions, ["condition_id", "correct", "category", *factors], "glmm_lrt_table")
    keep = ["condition_id", "correct", "category", *([weight] if weight else [])]
    long = predictions.melt(id_vars=keep, value_vars=factors, var_name="factor", value_name="level")
    return glmm_lrt_factors(long, factors, n_agq=n_agq, weight=weight)


def glmm_lrt_factors(
    rows: pd.DataFrame, factors, n_agq: int | None = DEFAULT_N_AGQ, weight: str | None = None
) -> pd.DataFrame:
    """:func:`glmm_lrt_table` for any number of audit factors, from the long form.

    Parameters
    ----------
    rows : pandas.DataFrame
        condition_id, factor (its name), level, category, correct: one row per (condition,
        image, factor).
    factors : sequence of str
        Every factor to test, in declared order; a factor without rows gets a NULL row with its
        reason.
    n_agq : int or None, default None
        As in :func:`glmm_lrt_table`.
    weight : str, optional
        A column of how many images a row stands for.

    Returns
    -------
    pandas.DataFrame
        As :func:`glmm_lrt_table`, one row per (condition_id, factor).

    Notes
    -----
    Each factor alone: correct ~ factor + (1 | category) against correct ~ 1 + (1 | category)
    (:func:`rater1001.stats.glmm.likelihood_ratio_test`), the fixed effects named
    ``factor[level]``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4;
    docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`glmm_lrt_table`'s example in long form, with a second factor of one level:

    >>> import pandas as pd
    >>> rows = [("m", e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> wide = pd.DataFrame(rows, columns=["condition_id", "category", "level", "correct"])
    >>> long = pd.concat([wide.assign(factor="audit_1"), wide.assign(factor="era", level="old")])
    >>> t = glmm_lrt_factors(long, ["audit_1", "era"])
    >>> round(float(t["chi2"].iloc[0]), 4), t["reason"].iloc[1]
    (4.186, 'era has a single level: nothing to test')
    """
    _require(rows, ["condition_id", "factor", "level", "correct", "category"], "glmm_lrt_factors")
    _require_complete(rows, ["condition_id", "factor", "level", "correct", "category"], "glmm_lrt_factors")
    out = []
    by_factor = dict(tuple(rows.groupby(["condition_id", "factor"], sort=False)))
    for condition in sorted(rows["condition_id"].unique()):
        for factor in factors:
            part = by_factor.get((condition, factor), rows.iloc[0:0])
            test = likelihood_ratio_test(
                part, "level", response="correct", group="category", n_agq=n_agq, weight=weight, name=factor
            )
            if part.empty:
                test = replace(test, reason=f"no stimulus has a level of {factor}")
            out.append(dict(condition_id=condition, factor=factor, **test.as_row()))
    return pd.DataFrame(out)


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


def _wls_cells(means: np.ndarray, counts: np.ndarray, within_ss: float, X: np.ndarray) -> _LinearFit:
    """The least-squares fit of one row per observation, from its cells: rows of a cell share
    their design row, so RSS = the within-cell sum of squares + the cell means' least squares
    weighted by the counts (rows scaled by sqrt(count)); X'X, hence the rank, is the same."""
    root = np.sqrt(counts)
    fit = _ols(root * means, root[:, None] * X)
    return _LinearFit(rss=within_ss + fit.rss, rank=fit.rank, n=int(counts.sum()))


@dataclass(frozen=True)
class NestedFTest:
    df_num: int  # extra rank of the larger model
    df_den: int  # residual df of the larger model
    ss_term: float  # RSS_small - RSS_large (0 at least)
    ss_total: float
    f_value: float | None = None  # None when F is undefined (see reason)
    eta_sq: float | None = None
    p_raw: float | None = None  # before any multiple-testing correction
    reason: str | None = None  # why F is undefined, else None


def _f_test(small: _LinearFit, large: _LinearFit, ss_total: float) -> NestedFTest:
    df_num, df_den = large.rank - small.rank, large.df_resid
    ss_term = max(0.0, small.rss - large.rss)
    out = NestedFTest(df_num=df_num, df_den=df_den, ss_term=ss_term, ss_total=ss_total)
    tiny = 1e-12 * max(1.0, ss_total)
    if large.n == 0:
        return replace(out, reason="no values in this stratum")
    if ss_total <= tiny:
        return replace(out, reason="bias has zero variance in this stratum")
    if df_num <= 0:
        return replace(out, reason="term not estimable from these data (single level or missing cells)")
    if df_den <= 0:
        return replace(out, reason="no residual degrees of freedom (one image per cell)")
    if large.rss <= tiny:
        return replace(out, reason="the larger model fits exactly: no residual variance")
    f = (ss_term / df_num) / (large.rss / df_den)
    return replace(out, f_value=f, eta_sq=ss_term / ss_total, p_raw=float(stats.f.sf(f, df_num, df_den)))


def nested_f_test(y: np.ndarray, X_small: np.ndarray, X_large: np.ndarray) -> NestedFTest:
    """F test of a linear model nested in a larger one (R's anova(m_small, m_large)).

    Parameters
    ----------
    y : numpy.ndarray
        The response (a Bland-Altman difference).
    X_small, X_large : numpy.ndarray
        Design matrices, the columns of X_small spanned by X_large.

    Returns
    -------
    NestedFTest
        df_num, df_den, ss_term, ss_total, f_value, eta_sq, p_raw, and reason when F is undefined
        (no extra rank, no residual df, or a residual of 0; f_value, eta_sq and p_raw are then
        None).

    Notes
    -----
    F = ((RSS_small - RSS_large) / (r_large - r_small)) / (RSS_large / (n - r_large)) with r the
    matrix ranks of the data actually used (an empty cell lowers them instead of failing);
    eta^2 = (RSS_small - RSS_large) / SS_total, SS_total = sum (y - mean y)^2.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4
    (eta^2); Montgomery (2017), *Design and Analysis of Experiments*, 9th ed., ch. 5.

    Examples
    --------
    Groups (1, 2) and (3, 5): SS_total 8.75, within 2.5, so F = 6.25 / (2.5 / 2) = 5 on (1, 2) df,
    eta^2 = 6.25 / 8.75, and p = 1 - sqrt(5) / sqrt(7) (the F(1, 2) tail is a t on 2 df):

    >>> import numpy as np
    >>> r = nested_f_test(np.array([1.0, 2, 3, 5]), np.ones((4, 1)), np.column_stack([np.ones(4), [0, 0, 1, 1]]))
    >>> r.f_value, round(r.eta_sq, 6), round(r.p_raw, 6), round(1 - 5 ** 0.5 / 7 ** 0.5, 6)
    (5.0, 0.714286, 0.154846, 0.154846)
    """
    y = np.asarray(y, dtype=float)
    ss_total = float(np.sum((y - y.mean()) ** 2)) if len(y) else 0.0
    return _f_test(_ols(y, X_small), _ols(y, X_large), ss_total)


def nested_f_test_cells(means, counts, within_ss, X_small: np.ndarray, X_large: np.ndarray) -> NestedFTest:
    """:func:`nested_f_test` from per-cell aggregates, without one row per observation.

    Parameters
    ----------
    means, counts, within_ss : array_like
        Per cell: the mean, the count and the sum of squared deviations about the cell's mean.
    X_small, X_large : numpy.ndarray
        One design row per cell (the design is constant within a cell).

    Returns
    -------
    NestedFTest
        As :func:`nested_f_test`.

    Notes
    -----
    RSS of a model = sum within_ss + the counts-weighted least squares of the cell means (rows
    scaled by sqrt(count)); SS_total = sum within_ss + sum n_c (mean_c - grand mean)^2. The same
    statistics, algebraically, as the fit on one row per observation.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; Montgomery (2017), *Design and Analysis of Experiments*, ch. 5.

    Examples
    --------
    :func:`nested_f_test`'s groups (1, 2) and (3, 5) as two cells: the same F = 5:

    >>> import numpy as np
    >>> r = nested_f_test_cells([1.5, 4.0], [2, 2], [0.5, 2.0], np.ones((2, 1)), np.array([[1.0, 0], [1, 1]]))
    >>> r.f_value, round(r.eta_sq, 6)
    (5.0, 0.714286)
    """
    means, counts = np.asarray(means, dtype=float), np.asarray(counts, dtype=float)
    within = float(np.sum(within_ss))
    grand = float(counts @ means / counts.sum()) if counts.sum() > 0 else 0.0
    ss_total = within + float(counts @ (means - grand) ** 2)
    return _f_test(_wls_cells(means, counts, within, X_small), _wls_cells(means, counts, within, X_large), ss_total)


def _factorial_designs(audit_1: pd.Series, audit_2: pd.Series) -> dict[str, np.ndarray]:
    """The paper's four models of a stratum: M_gen = audit_2, M_audit_1 = audit_1, M_add = audit_1 + audit_2,
    M_full = audit_1 * audit_2 (treatment-coded, one row per observation or per cell)."""
    one = np.ones((len(audit_1), 1))
    R, G = _dummies(audit_1.astype(str)), _dummies(audit_2.astype(str))
    m_add = np.hstack([one, R, G])
    return dict(
        gen=np.hstack([one, G]), audit_1=np.hstack([one, R]), add=m_add, full=np.hstack([m_add, _interaction(R, G)])
    )


TERM_MODELS = (("audit_1", "gen", "add"), ("audit_2", "audit_1", "add"), ("audit_1:audit_2", "add", "full"))


def stratum_factorial_tests(stratum: pd.DataFrame, bias: str) -> list[dict]:
    """The paper's three nested F tests of audit_1, audit_2 and audit_1:audit_2 within one category stratum.

    Parameters
    ----------
    stratum : pandas.DataFrame
        audit_1, audit_2 and the bias column, one row per image of the stratum.
    bias : str
        The bias column (d_valence, d_arousal, ...).

    Returns
    -------
    list of dict
        One row per term: ``term`` and the fields of :func:`nested_f_test`'s result (rows of a
        frame, which the marts concatenate).

    Notes
    -----
    From M_full = audit_1 * audit_2, M_add = audit_1 + audit_2, M_audit_1 = audit_1, M_gen = audit_2: audit_1 is
    M_gen vs M_add, audit_2 M_audit_1 vs M_add (type II), audit_1:audit_2 M_add vs M_full.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4, Tables 7b, 7c.

    Examples
    --------
    Balanced 2 x 2 with two images per cell, cell means 2, 3, 6, 7 (additive) and spread +-1:
    SS_audit_1 = 8 x 2^2 = 32, SS_audit_2 = 8 x 0.5^2 = 2, SS_interaction 0, RSS_add = 8 on 5 df:

    >>> import pandas as pd
    >>> stratum = pd.DataFrame({"audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                        "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> [(t["term"], round(t["f_value"], 6)) for t in stratum_factorial_tests(stratum, "d_valence")]
    [('audit_1', 20.0), ('audit_2', 1.25), ('audit_1:audit_2', 0.0)]
    """
    y = stratum[bias].to_numpy(dtype=float)
    m = _factorial_designs(stratum["audit_1"], stratum["audit_2"])
    return [dict(term=term, **asdict(nested_f_test(y, m[small], m[large]))) for term, small, large in TERM_MODELS]


def stratum_factorial_tests_cells(cells: pd.DataFrame) -> list[dict]:
    """:func:`stratum_factorial_tests` from the stratum's audit_1 x audit_2 cells.

    Parameters
    ----------
    cells : pandas.DataFrame
        audit_1, audit_2, n_bias, bias_mean, bias_ss (a cell of int_audit_pair_cells, its two levels
        as audit_1 and audit_2); cells without a bias value
        are left out.

    Returns
    -------
    list of dict
        One row per term: ``term`` and the fields of :func:`nested_f_test_cells`' result.

    Notes
    -----
    The three nested comparisons of :func:`stratum_factorial_tests`, on cell aggregates.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4, Tables 7b, 7c.

    Examples
    --------
    The cells of :func:`stratum_factorial_tests`' example (means 2, 3, 6, 7, two images each,
    squared deviations 2 each):

    >>> import pandas as pd
    >>> cells = pd.DataFrame({"audit_1": list("AABB"), "audit_2": list("FMFM"), "n_bias": 2,
    ...                       "bias_mean": [2.0, 3, 6, 7], "bias_ss": 2.0})
    >>> [(t["term"], round(t["f_value"], 6)) for t in stratum_factorial_tests_cells(cells)]
    [('audit_1', 20.0), ('audit_2', 1.25), ('audit_1:audit_2', 0.0)]
    """
    cells = cells[cells["n_bias"] > 0]
    m = _factorial_designs(cells["audit_1"], cells["audit_2"])
    args = (
        cells["bias_mean"].to_numpy(dtype=float),
        cells["n_bias"].to_numpy(dtype=float),
        cells["bias_ss"].to_numpy(dtype=float),
    )
    return [
        dict(term=term, **asdict(nested_f_test_cells(*args, m[small], m[large]))) for term, small, large in TERM_MODELS
    ]


CELL_KEYS = ["condition_id", "dimension", "category", "audit_1", "audit_2"]


def bias_cells(predictions: pd.DataFrame, dimensions=("valence", "arousal")) -> pd.DataFrame:
    """Per-image bias values aggregated to audit_1 x audit_2 cells (the tests' recomputation).

    Parameters
    ----------
    predictions : pandas.DataFrame
        One row per image with condition_id, category, audit_1, audit_2 and d_<dimension>.
    dimensions : tuple of str, default ("valence", "arousal")

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, category, audit_1, audit_2): n_rows, n_bias (rows with a bias
        value), bias_mean, bias_ss (sum of squared deviations about the cell's own mean).

    Notes
    -----
    bias_ss_c = sum_i (d_i - mean_c)^2 over the cell's rows with a value.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; docs/marts_demographics.md.

    Examples
    --------
    Cell A:F holds 1 and 3: mean 2, squared deviations 1 + 1:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> bias_cells(p, ("valence",))[["audit_1", "audit_2", "n_bias", "bias_mean", "bias_ss"]].to_numpy().tolist()[0]
    ['A', 'F', 2, 2.0, 2.0]
    """
    parts = []
    for dimension in dimensions:
        d = predictions.assign(dimension=dimension, _b=predictions[_bias_column(dimension)].astype(float))
        g = d.groupby(CELL_KEYS, sort=True, dropna=False)["_b"]
        out = g.agg(n_rows="size", n_bias="count", bias_mean="mean")
        out["bias_ss"] = g.var(ddof=0) * out["n_bias"]  # NaN without values, as SQL's var_pop
        parts.append(out.reset_index())
    if not parts:
        return pd.DataFrame(columns=[*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"])
    return pd.concat(parts, ignore_index=True)


def benjamini_hochberg(p_values: pd.Series, alpha: float = ALPHA) -> tuple[pd.Series, pd.Series]:
    """Benjamini-Hochberg q-values and reject flags over the non-NULL p-values.

    Parameters
    ----------
    p_values : pandas.Series
    alpha : float, default 0.05

    Returns
    -------
    tuple of pandas.Series
        (q-values, reject flags); NULL stays NULL and is not counted in the family.

    Notes
    -----
    q_(i) = min_{j >= i} m p_(j) / j over the m non-NULL p-values sorted ascending; reject where
    q <= alpha (statsmodels' ``fdr_bh``).

    References
    ----------
    Benjamini & Hochberg (1995), "Controlling the false discovery rate", JRSS B 57(1), 289-300;
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4.

    Examples
    --------
    m = 3 (the NULL is not counted): q = (3 x .01, min(.04, 3 x .03 / 2), .04):

    >>> import numpy as np, pandas as pd
    >>> q, sig = benjamini_hochberg(pd.Series([0.01, 0.04, np.nan, 0.03]))
    >>> q.round(4).tolist(), sig.tolist()
    ([0.03, 0.04, nan, 0.04], [True, True, <NA>, True])
    """
    q = pd.Series(np.nan, index=p_values.index, dtype=float)
    sig = pd.Series(pd.NA, index=p_values.index, dtype="boolean")
    ok = p_values.notna()
    if ok.any():
        reject, q_vals, _, _ = multipletests(p_values[ok].astype(float), alpha=alpha, method="fdr_bh")
        q[ok], sig[ok] = q_vals, reject
    return q, sig


def _usable(part: pd.DataFrame, bias: str) -> tuple[pd.DataFrame, int]:
    """Rows with a bias value, and how many lacked one (reported as n_missing, never hidden)."""
    keep = part[bias].notna()
    return part[keep], int((~keep).sum())


def stratified_anova(
    predictions: pd.DataFrame, dimensions=("valence", "arousal"), alpha: float = ALPHA
) -> pd.DataFrame:
    """Two-way ANOVA of the bias by audit_1 and audit_2 within every category stratum, with BH.

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, category, audit_1, audit_2 and d_<dimension> per image.
    dimensions : tuple of str, default ("valence", "arousal")
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, category, term): df_num, df_den, f_value, eta_sq, p_raw,
        q_bh, significant, family_size, ss_term, ss_total, n (images used), n_missing (rows
        without a bias value), reason.

    Notes
    -----
    :func:`stratum_factorial_tests` per stratum; :func:`benjamini_hochberg` within each
    (condition_id, dimension) family (categories x three terms), computed on the strata's audit_1 x
    audit_2 cells (:func:`stratified_anova_cells`).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7b, 7c.

    Examples
    --------
    :func:`stratum_factorial_tests`' stratum as one category: audit_1 F = 20 on (1, 5) df,
    p = .0066, q = 3 x .0066:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova(p, dimensions=("valence",))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist(), a["significant"].tolist()
    ([['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]], [True, False, False])
    """
    bias_cols = [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "category", "audit_1", "audit_2", *bias_cols], "stratified_anova")
    _require_complete(predictions, ["condition_id", "category", "audit_1", "audit_2"], "stratified_anova")
    return stratified_anova_cells(bias_cells(predictions, dimensions), alpha)


def stratified_anova_cells(cells: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`stratified_anova` from the audit_1 x audit_2 cells.

    Parameters
    ----------
    cells : pandas.DataFrame
        :func:`bias_cells` (int_audit_pair_cells' cells of two factors, their levels as audit_1 and
        audit_2): per condition, dimension, category, audit_1, audit_2:
        n_rows, n_bias, bias_mean, bias_ss.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`stratified_anova`.

    Notes
    -----
    :func:`stratum_factorial_tests_cells` per stratum, BH within each (condition_id, dimension)
    family.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7b, 7c.

    Examples
    --------
    :func:`stratified_anova`'s example through its cells gives the same F and q:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova_cells(bias_cells(p, ("valence",)))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist()
    [['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]]
    """
    _require(cells, [*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"], "stratified_anova_cells")
    _require_complete(cells, ["condition_id", "dimension", "category", "audit_1", "audit_2"], "stratified_anova_cells")
    rows = []
    for (condition, dimension, category), stratum in cells.groupby(CELL_KEYS[:3], sort=True):
        n = int(stratum["n_bias"].sum())
        n_missing = int(stratum["n_rows"].sum()) - n
        for test in stratum_factorial_tests_cells(stratum):
            rows.append(
                dict(condition_id=condition, dimension=dimension, category=category, n=n, n_missing=n_missing, **test)
            )
    return _with_bh(pd.DataFrame(rows), alpha)


def _with_bh(out: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The F tests with BH q-values within each (condition_id, dimension), in the marts' columns."""
    if out.empty:
        return out
    out["q_bh"], out["significant"] = np.nan, pd.Series(pd.NA, index=out.index, dtype="boolean")
    for _, idx in out.groupby(["condition_id", "dimension"]).groups.items():
        q, sig = benjamini_hochberg(out.loc[idx, "p_raw"], alpha)
        out.loc[idx, "q_bh"], out.loc[idx, "significant"] = q, sig
    out["family_size"] = out.groupby(["condition_id", "dimension"])["p_raw"].transform("count")
    cols = [
        "condition_id",
        "dimension",
        "category",
        "term",
        "df_num",
        "df_den",
        "f_value",
        "eta_sq",
        "p_raw",
        "q_bh",
        "significant",
        "family_size",
        "ss_term",
        "ss_total",
        "n",
        "n_missing",
        "reason",
    ]
    return out[cols]


def stratified_anova_factors(rows: pd.DataFrame, factors, alpha: float = ALPHA) -> pd.DataFrame:
    """The stratified ANOVA of the bias by any number of audit factors, with BH.

    Parameters
    ----------
    rows : pandas.DataFrame
        One row per (condition, dimension, image): condition_id, dimension, category (the
        stratum), d (the bias, NULL where the model or the humans gave no value) and one column
        per factor.
    factors : sequence of str
        The factor columns, in declared order.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`stratified_anova`: a term per factor, then one per pair ``a:b``.

    Notes
    -----
    Within each stratum, a factor's term compares the main-effects model without it to the one
    with every factor (type II); a pair's term compares the main-effects model to it plus the
    pair's interaction. With two factors these are :func:`stratum_factorial_tests`' three tests.
    BH within each (condition_id, dimension) family, as :func:`stratified_anova_cells`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4
    and 4.5, Tables 7b, 7c; docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`stratified_anova`'s example, per image, gives the same F and q:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova_factors(p, ("audit_1", "audit_2"))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist()
    [['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]]
    """
    factors = list(factors)
    _require(rows, ["condition_id", "dimension", "category", "d", *factors], "stratified_anova_factors")
    out = []
    for (condition, dimension, category), stratum in rows.groupby(["condition_id", "dimension", "category"], sort=True):
        used, n_missing = _usable(stratum, "d")
        if used.empty:
            continue
        y = used["d"].to_numpy(dtype=float)
        dummies = {f: _dummies(used[f].astype(str)) for f in factors}
        one = np.ones((len(used), 1))

        def main(fs, one=one, dummies=dummies):
            return np.hstack([one, *[dummies[f] for f in fs]])

        everything = main(factors)
        tests = [(f, main([g for g in factors if g != f]), everything) for f in factors]
        tests += [
            (f"{a}:{b}", everything, np.hstack([everything, _interaction(dummies[a], dummies[b])]))
            for a, b in itertools.combinations(factors, 2)
        ]
        for term, small, large in tests:
            out.append(
                dict(
                    condition_id=condition,
                    dimension=dimension,
                    category=category,
                    n=len(used),
                    n_missing=n_missing,
                    term=term,
                    **asdict(nested_f_test(y, small, large)),
                )
            )
    return _with_bh(pd.DataFrame(out), alpha)


TUKEY_COLUMNS = [
    "condition_id",
    "dimension",
    "category",
    "term",
    "group1",
    "group2",
    "meandiff",
    "p_adj",
    "lower",
    "upper",
    "reject",
]


def tukey_cells(predictions: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the audit_1 x audit_2 cells where the interaction is significant.

    Parameters
    ----------
    predictions : pandas.DataFrame
        As for :func:`stratified_anova`.
    anova : pandas.DataFrame
        Its output (which strata have a significant audit_1:audit_2 term after BH).
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        condition_id, dimension, category, group1, group2, meandiff, p_adj, lower, upper, reject.

    Notes
    -----
    meandiff = mean(group2) - mean(group1) of the bias column as given; intervals
    meandiff +- q_(alpha; k, df) sqrt(MSE / 2 (1/n_1 + 1/n_2)) (statsmodels'
    ``pairwise_tukeyhsd``).

    References
    ----------
    Tukey (1949), "Comparing individual means in the analysis of variance", Biometrics 5(2),
    99-114; Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    Only the B:M cell is shifted (by 5): interaction F = (2 x 5^2 / 4) / (0.08 / 4) = 625; Tukey
    separates B:M from each other cell:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [0, 0.2, 0, 0.2, 0, 0.2, 5, 5.2]})
    >>> t = tukey_cells(p, stratified_anova(p, dimensions=("valence",)))
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    dims = sorted(set(anova["dimension"])) if len(anova) else []
    return tukey_from_cells(bias_cells(predictions, dims), anova, alpha)


def tukey_from_cells(cells: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`tukey_cells` from the audit_1 x audit_2 cells.

    Parameters
    ----------
    cells : pandas.DataFrame
        :func:`bias_cells`.
    anova : pandas.DataFrame
        :func:`stratified_anova_cells`' output.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`tukey_cells`.

    Notes
    -----
    HSD needs only each group's count and mean and the pooled within-group variance
    MSE = sum bias_ss / (N - k).

    References
    ----------
    Tukey (1949); Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    :func:`tukey_cells`' example (only B:M shifted by 5) through its cells:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [0, 0.2, 0, 0.2, 0, 0.2, 5, 5.2]})
    >>> cells = bias_cells(p, ("valence",))
    >>> t = tukey_from_cells(cells, stratified_anova_cells(cells))
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    keep = cells.assign(term="audit_1:audit_2", group=cells["audit_1"].astype(str) + ":" + cells["audit_2"].astype(str))
    return tukey_pair_cells(keep, anova, alpha)


def tukey_pair_cells(cells: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the cells of each pair of audit factors whose interaction is significant.

    Parameters
    ----------
    cells : pandas.DataFrame
        Per (condition_id, dimension, category, term, group): n_bias, bias_mean, bias_ss, where
        term names a pair of factors ``a:b`` and group is a cell ``x:y`` of it
        (int_audit_pair_cells).
    anova : pandas.DataFrame
        The stratified ANOVA (term, significant per (condition_id, dimension, category)).
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        condition_id, dimension, category, term, group1, group2, meandiff, p_adj, lower, upper,
        reject: one row per pair of cells of a stratum whose ``a:b`` term has q_BH < alpha.

    Notes
    -----
    HSD needs only each cell's count and mean and the pooled within-cell variance
    MSE = sum bias_ss / (N - k) (statsmodels' ``tukeyhsd``, which ``pairwise_tukeyhsd`` calls);
    meandiff = mean(group2) - mean(group1); any other audit factor is pooled within a cell.

    References
    ----------
    Tukey (1949), "Comparing individual means in the analysis of variance", Biometrics 5(2),
    99-114; Tae, Park & Choi, *Can vision-language models replace human emotion raters?*,
    section 4.5; docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`tukey_cells`' example (only B:M shifted by 5) as the cells of the pair audit_1:audit_2:

    >>> import pandas as pd
    >>> cells = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear", "term": "audit_1:audit_2",
    ...                       "group": ["A:F", "A:M", "B:F", "B:M"], "n_bias": 2, "bias_mean": [0.1, 0.1, 0.1, 5.1],
    ...                       "bias_ss": 0.02})
    >>> anova = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear", "term": ["audit_1:audit_2"],
    ...                       "significant": [True]})
    >>> t = tukey_pair_cells(cells, anova)
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    keys = ["condition_id", "dimension", "category", "term"]
    _require(cells, [*keys, "group", "n_bias", "bias_mean", "bias_ss"], "tukey_pair_cells")
    hits = anova[anova["significant"].astype("boolean").fillna(False)]
    by_stratum = {key: part for key, part in cells[cells["n_bias"] > 0].groupby(keys, sort=False)}
    rows = []
    for hit in hits.itertuples(index=False):
        used = by_stratum.get((hit.condition_id, hit.dimension, hit.category, hit.term))
        if used is None:  # not a pair's term (a main effect)
            continue
        groups = used["group"].astype(str).to_numpy()
        order = np.argsort(groups, kind="stable")  # pairwise_tukeyhsd's groups: np.unique, sorted
        groups, used = groups[order], used.iloc[order]
        nobs = used["n_bias"].to_numpy(dtype=float)
        var = float(used["bias_ss"].sum()) / (nobs.sum() - len(nobs))
        (first, second), reject, diffs, _, confint, _, _, _, pvalues = tukeyhsd(
            used["bias_mean"].to_numpy(dtype=float), nobs, var, alpha=alpha
        )
        for i, j, diff, p, (lo, hi), rej in zip(first, second, diffs, pvalues, confint, reject):
            rows.append(
                dict(
                    condition_id=hit.condition_id,
                    dimension=hit.dimension,
                    category=hit.category,
                    term=hit.term,
                    group1=groups[i],
                    group2=groups[j],
                    meandiff=float(diff),
                    p_adj=float(p),
                    lower=float(lo),
                    upper=float(hi),
                    reject=bool(rej),
                )
            )
    return pd.DataFrame(rows, columns=TUKEY_COLUMNS)


def omnibus_tests(
    predictions: pd.DataFrame, dimensions=("valence", "arousal"), factors=("audit_1", "audit_2")
) -> pd.DataFrame:
    """Omnibus F tests of a factor and its interaction with category, over all categories.

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, category, the factors and d_<dimension> per image.
    dimensions : tuple of str, default ("valence", "arousal")
    factors : tuple of str, default ("audit_1", "audit_2")

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, factor, term): n, n_missing and :func:`nested_f_test`'s
        columns.

    Notes
    -----
    Main effect: bias ~ factor + category vs bias ~ category; interaction: bias ~ factor * category
    vs bias ~ factor + category (the archived v10.6 analyses).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Supplement S5, Tables S5.1-S5.4.

    Examples
    --------
    Race B is 1 above audit_1 A in both categories, spread 0.2 within cells: SS_audit_1 = 8 x 0.5^2 = 2,
    RSS = 4 x 0.02 on 5 df, F = 2 / 0.016 = 125; no interaction:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": list("hhhhssss"),
    ...                   "audit_1": list("ABABABAB"), "audit_2": "F", "d_valence": [1, 2, 1.2, 2.2, 3, 4, 3.2, 4.2]})
    >>> o = omnibus_tests(p, dimensions=("valence",), factors=("audit_1",))
    >>> o[["term", "f_value"]].round(6).to_numpy().tolist()
    [['audit_1', 125.0], ['audit_1:category', 0.0]]
    """
    factors, bias_cols = list(factors), [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "category", *factors, *bias_cols], "omnibus_tests")
    _require_complete(predictions, ["condition_id", "category", *factors], "omnibus_tests")
    long = [
        predictions.assign(dimension=dimension, d=predictions[bias])
        .melt(id_vars=["condition_id", "dimension", "category", "d"], value_vars=factors, var_name="factor")
        .rename(columns={"value": "level"})
        for dimension, bias in zip(dimensions, bias_cols)
    ]
    if not long:
        return pd.DataFrame()
    return omnibus_factors(pd.concat(long, ignore_index=True), factors, dimensions=dimensions)


def omnibus_factors(rows: pd.DataFrame, factors, dimensions=None, category: str = "category") -> pd.DataFrame:
    """:func:`omnibus_tests` for any number of audit factors, from the long form.

    Parameters
    ----------
    rows : pandas.DataFrame
        condition_id, dimension, factor (its name), level, category, d (the bias, NULL where
        missing): one row per (condition, dimension, image, factor).
    factors : sequence of str
        Every factor to test, in declared order.
    dimensions : sequence of str, optional
        The dimensions, in order (default: those of the rows, sorted).
    category : str, default "category"
        The category's name in the interaction term (``factor:category``).

    Returns
    -------
    pandas.DataFrame
        As :func:`omnibus_tests`.

    Notes
    -----
    The rows aggregated to (category, level) cells, then :func:`omnibus_cells`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Supplement S5;
    docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`omnibus_tests`' example in long form, named by the study:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "dimension": "warmth", "factor": "source", "category": list("hhhhssss"),
    ...                   "level": list("ABABABAB"), "d": [1, 2, 1.2, 2.2, 3, 4, 3.2, 4.2]})
    >>> o = omnibus_factors(p, ["source"], category="topic")
    >>> o[["term", "f_value"]].round(6).to_numpy().tolist()
    [['source', 125.0], ['source:topic', 0.0]]
    """
    keys = ["condition_id", "dimension", "factor", "category", "level"]
    _require(rows, [*keys, "d"], "omnibus_factors")
    _require_complete(rows, keys, "omnibus_factors")
    g = rows.assign(d=rows["d"].astype(float)).groupby(keys, sort=True)["d"]
    cells = g.agg(n_rows="size", n_bias="count", bias_mean="mean")
    cells["bias_ss"] = g.var(ddof=0) * cells["n_bias"]
    return omnibus_cells(cells.reset_index(), factors, dimensions=dimensions, category=category)


def omnibus_cells(cells: pd.DataFrame, factors, dimensions=None, category: str = "category") -> pd.DataFrame:
    """:func:`omnibus_factors` from per-cell aggregates (int_audit_bias_cells).

    Parameters
    ----------
    cells : pandas.DataFrame
        Per (condition_id, dimension, factor, category, level): n_rows, n_bias, bias_mean,
        bias_ss (the bias's count, mean and squared deviations about the cell's mean).
    factors : sequence of str
        Every factor to test, in declared order; a factor without cells gets NULL rows with the
        reason.
    dimensions : sequence of str, optional
        The dimensions, in order (default: those of the cells, sorted).
    category : str, default "category"
        The category's name in the interaction term.

    Returns
    -------
    pandas.DataFrame
        As :func:`omnibus_tests`.

    Notes
    -----
    Every model of :func:`omnibus_tests` is constant within an (category, level) cell, so its
    nested F tests are :func:`nested_f_test_cells` on the cells.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Supplement S5.

    Examples
    --------
    :func:`omnibus_tests`' example as four cells (means 1.1, 2.1, 3.1, 4.1, squared deviations
    0.02 each):

    >>> import pandas as pd
    >>> cells = pd.DataFrame({"condition_id": "m", "dimension": "warmth", "factor": "source",
    ...                       "category": list("hhss"), "level": list("ABAB"), "n_rows": 2, "n_bias": 2,
    ...                       "bias_mean": [1.1, 2.1, 3.1, 4.1], "bias_ss": 0.02})
    >>> omnibus_cells(cells, ["source"])[["term", "f_value"]].round(6).to_numpy().tolist()
    [['source', 125.0], ['source:category', 0.0]]
    """
    keys = ["condition_id", "dimension", "factor", "category", "level"]
    _require(cells, [*keys, "n_rows", "n_bias", "bias_mean", "bias_ss"], "omnibus_cells")
    _require_complete(cells, keys, "omnibus_cells")
    dimensions = sorted(cells["dimension"].unique()) if dimensions is None else list(dimensions)
    groups = dict(tuple(cells.groupby(["condition_id", "dimension", "factor"], sort=False)))
    out = []
    for condition in sorted(cells["condition_id"].unique()):
        for dimension in dimensions:
            for factor in factors:
                part = groups.get((condition, dimension, factor), cells.iloc[0:0])
                used = part[part["n_bias"] > 0]
                n = int(used["n_bias"].sum())
                one = np.ones((len(used), 1))
                F, E = _dummies(used["level"].astype(str)), _dummies(used["category"].astype(str))
                m_emo, m_add = np.hstack([one, E]), np.hstack([one, F, E])
                m_int = np.hstack([m_add, _interaction(F, E)])
                args = (
                    used["bias_mean"].to_numpy(dtype=float),
                    used["n_bias"].to_numpy(dtype=float),
                    used["bias_ss"].to_numpy(dtype=float),
                )
                for term, small, large in ((factor, m_emo, m_add), (f"{factor}:{category}", m_add, m_int)):
                    out.append(
                        dict(
                            condition_id=condition,
                            dimension=dimension,
                            factor=factor,
                            term=term,
                            n=n,
                            n_missing=int(part["n_rows"].sum()) - n,
                            **asdict(nested_f_test_cells(*args, small, large)),
                        )
                    )
    return pd.DataFrame(out)


def significance_counts(anova: pd.DataFrame) -> pd.DataFrame:
    """In how many category strata each term is significant after BH.

    Parameters
    ----------
    anova : pandas.DataFrame
        The output of :func:`stratified_anova`.

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, term): n_significant, n_tested (strata where it could be
        tested), n_strata, label ("k/n").

    Notes
    -----
    n_significant = sum over strata of 1[q_bh <= alpha]; the paper's "valence - audit_1
    significant in k/6".

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    >>> import pandas as pd
    >>> anova = pd.DataFrame({"condition_id": "m", "dimension": "valence", "term": "audit_1",
    ...                       "category": ["fear", "happy", "sad"], "p_raw": [0.001, 0.2, None],
    ...                       "significant": pd.array([True, False, pd.NA], dtype="boolean")})
    >>> significance_counts(anova)[["term", "n_significant", "n_tested", "label"]].to_numpy().tolist()
    [['audit_1', 1, 2, '1/2']]
    """
    g = anova.groupby(["condition_id", "dimension", "term"], sort=True)
    out = g.agg(
        n_significant=("significant", lambda s: int(s.fillna(False).sum())),
        n_tested=("p_raw", "count"),
        n_strata=("category", "nunique"),
    ).reset_index()
    out["label"] = out["n_significant"].astype(str) + "/" + out["n_tested"].astype(str)
    return out
