"""Omnibus F tests of the demographic audit: each audit factor and its interaction with category,
over all categories at once (Supplement S5, Tables S5.1-S5.4)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from ._checks import bias_column, require, require_complete
from .anova import nested_f_test_cells
from .design import dummy_columns, interaction_columns


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
    factors, bias_cols = list(factors), [bias_column(d) for d in dimensions]
    require(predictions, ["condition_id", "category", *factors, *bias_cols], "omnibus_tests")
    require_complete(predictions, ["condition_id", "category", *factors], "omnibus_tests")
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
    require(rows, [*keys, "d"], "omnibus_factors")
    require_complete(rows, keys, "omnibus_factors")
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
    require(cells, [*keys, "n_rows", "n_bias", "bias_mean", "bias_ss"], "omnibus_cells")
    require_complete(cells, keys, "omnibus_cells")
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
                F, E = dummy_columns(used["level"].astype(str)), dummy_columns(used["category"].astype(str))
                m_emo, m_add = np.hstack([one, E]), np.hstack([one, F, E])
                m_int = np.hstack([m_add, interaction_columns(F, E)])
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
