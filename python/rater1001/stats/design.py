"""Design matrices of categorical factors: treatment (dummy) coding with R's contr.treatment
reference level, and the columns of an interaction, shared by the ANOVA and the GLMM."""

from __future__ import annotations

import numpy as np
import pandas as pd


def treatment_design(levels: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Intercept and treatment (dummy) coding of a categorical column.

    Parameters
    ----------
    levels : pandas.Series
        The factor (its name names the columns).

    Returns
    -------
    tuple of (numpy.ndarray, list of str)
        The design matrix and its column names; the first sorted level is the reference.

    Notes
    -----
    Column j > 0 is 1[level = l_j] for the sorted levels l_1 < l_2 < ... (R's contr.treatment).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4 (audit_1 and audit_2 against their first level).

    Examples
    --------
    >>> import pandas as pd
    >>> X, names = treatment_design(pd.Series(["b", "a", "b"], name="audit_1"))
    >>> X.tolist(), names
    ([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]], ['(Intercept)', 'audit_1[b]'])
    """
    # pd.Categorical's categories and codes (factorize, sorted; a missing level codes -1), from an
    # object array: factorizing pandas' Arrow-backed strings cost ~0.5 ms a call, and the ANOVA and
    # the GLMM code a few cells hundreds of times a build
    if isinstance(levels.dtype, pd.CategoricalDtype):  # its own categories, in their order
        codes, categories = levels.cat.codes.to_numpy(), levels.cat.categories
    else:
        codes, categories = pd.factorize(np.asarray(levels, dtype=object), sort=True)
    X = np.ones((len(codes), max(len(categories), 1)))
    X[:, 1:] = codes[:, None] == np.arange(1, len(categories))
    return X, ["(Intercept)"] + [f"{levels.name}[{lev}]" for lev in categories[1:]]


def dummy_columns(values) -> np.ndarray:
    """Treatment-coded columns of a categorical without the intercept.

    Parameters
    ----------
    values : array_like
        The factor's level per row.

    Returns
    -------
    numpy.ndarray
        One column per level but the first sorted (the reference).

    Notes
    -----
    :func:`treatment_design` without its intercept column.

    References
    ----------
    R's ``contr.treatment``; Tae, Park & Choi, *Can vision-language models replace human emotion
    raters?*, section 3.4.4.

    Examples
    --------
    >>> dummy_columns(["b", "a", "c"]).tolist()
    [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]
    """
    return treatment_design(pd.Series(values))[0][:, 1:]


def interaction_columns(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The interaction columns of two coded factors: every product of a column of each.

    Parameters
    ----------
    a, b : numpy.ndarray
        Coded columns of two factors (:func:`dummy_columns`), one row per observation.

    Returns
    -------
    numpy.ndarray
        a.shape[1] x b.shape[1] columns, a's column outermost; none when either has none.

    Notes
    -----
    Column (i, j) is a[:, i] * b[:, j], as R's model.matrix codes ``a:b`` under contr.treatment.

    References
    ----------
    Chambers & Hastie (1992), *Statistical Models in S*, chapter 2 (model formulae).

    Examples
    --------
    >>> import numpy as np
    >>> interaction_columns(np.array([[1.0], [0.0], [1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])).tolist()
    [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]
    """
    if a.shape[1] == 0 or b.shape[1] == 0:
        return np.empty((a.shape[0], 0))
    return np.column_stack([a[:, i] * b[:, j] for i in range(a.shape[1]) for j in range(b.shape[1])])
