"""Input checks shared by the demographic audit's families (slices, stratified ANOVA, Tukey,
omnibus): a missing column or a design gap is the caller's data error, named with its row."""

from __future__ import annotations

import pandas as pd


def require(frame: pd.DataFrame, columns, where: str) -> None:
    """Raise when the frame lacks any of the columns a statistic reads.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : iterable of str
    where : str
        The caller, named in the message.

    Returns
    -------
    None

    Raises
    ------
    KeyError
        Naming the missing columns and those the frame has.

    Notes
    -----
    A missing column is the caller's error, reported before any arithmetic.

    References
    ----------
    docs/stats.md, "Demographic bias audit".

    Examples
    --------
    >>> import pandas as pd
    >>> require(pd.DataFrame({"a": [1]}), ["a", "b"], "f")
    Traceback (most recent call last):
    ...
    KeyError: "f: input frame has no column(s) ['b']; it has ['a']"
    """
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{where}: input frame has no column(s) {missing}; it has {list(frame.columns)}")


def require_complete(frame: pd.DataFrame, columns, where: str) -> None:
    """Raise when a design column has a missing value on some row.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : iterable of str
        Design columns (condition, stimulus factors, true category).
    where : str
        The caller, named in the message.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Naming the first such row, its image_id, the column and how many rows lack it.

    Notes
    -----
    Design columns come from the data contract and must be present on every row; a gap there is
    a data error, not something to skip.

    References
    ----------
    docs/stats.md, "Demographic bias audit".

    Examples
    --------
    >>> import pandas as pd
    >>> require_complete(pd.DataFrame({"image_id": ["i1", "i2"], "audit_1": ["A", None]}), ["audit_1"], "f")
    Traceback (most recent call last):
    ...
    ValueError: f: row 1 (image_id='i2') has no value in column 'audit_1'; 1 such rows
    """
    for col in columns:
        missing = frame[col].isna()
        if missing.any():
            row = frame.index[missing.to_numpy()][0]
            image = frame.at[row, "image_id"] if "image_id" in frame.columns else "?"
            raise ValueError(
                f"{where}: row {row} (image_id={image!r}) has no value in column "
                f"{col!r}; {int(missing.sum())} such rows"
            )


def bias_column(dimension: str) -> str:
    """The input column of a dimension's Bland-Altman difference.

    Parameters
    ----------
    dimension : str

    Returns
    -------
    str
        ``d_<dimension>``.

    Notes
    -----
    d = human mean - model value per image (docs/demographics.md).

    References
    ----------
    Bland & Altman (1986), "Statistical methods for assessing agreement between two methods of
    clinical measurement", The Lancet 327(8476), 307-310.

    Examples
    --------
    >>> bias_column("valence")
    'd_valence'
    """
    return f"d_{dimension}"
