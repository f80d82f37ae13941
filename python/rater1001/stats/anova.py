"""Nested-model F tests of linear models (ANOVA), from the rows or from cell summaries, and the
two-way factorial decomposition (sequential, type I) the demographic audit runs in each stratum
(paper 3.4.4, Supplement S5)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats

from .design import dummy_columns, interaction_columns


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
    R, G = dummy_columns(audit_1.astype(str)), dummy_columns(audit_2.astype(str))
    m_add = np.hstack([one, R, G])
    return dict(
        gen=np.hstack([one, G]),
        audit_1=np.hstack([one, R]),
        add=m_add,
        full=np.hstack([m_add, interaction_columns(R, G)]),
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
