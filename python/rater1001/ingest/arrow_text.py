"""Vectorised tests on text columns through Arrow kernels (pandas' own isin and to_numeric loop
in Python for string columns, which costs seconds on 700,000 rows)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# A decimal number as people and spreadsheets write it ('7', '-0.5', '.5', '7.', '1e3'); no 'inf',
# 'nan', hex or thousands separators.
NUMBER_PATTERN = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"


def as_arrow(text: pd.Series) -> pa.Array:
    return pa.array(text, type=pa.string(), from_pandas=True)


def is_in(text: pd.Series, values: Iterable) -> np.ndarray:
    """Boolean per cell: the cell equals one of values (missing cells are False)."""
    value_set = as_arrow(pd.Series(values, dtype="str").dropna().drop_duplicates())
    return pc.is_in(as_arrow(text), value_set=value_set).fill_null(False).to_numpy(zero_copy_only=False)


def parse_numbers(text: pd.Series) -> np.ndarray:
    """float64 per cell, NaN where the cell is missing or not a number."""
    cells = as_arrow(text)
    numeric = pc.match_substring_regex(cells, NUMBER_PATTERN)
    values = pc.cast(pc.if_else(numeric, cells, pa.scalar(None, pa.string())), pa.float64())
    return values.to_numpy(zero_copy_only=False)


def nfc(text: pd.Series) -> pd.Series:
    """Unicode NFC form (composed Hangul syllables), copying only when something changes."""
    cells = as_arrow(text)
    composed = pc.utf8_normalize(cells, form="NFC")
    if pc.all(pc.equal(cells, composed).fill_null(True)).as_py():
        return text
    return pd.Series(composed.to_pandas(), index=text.index, dtype="str")


# A whole number written as digits only: read exactly, never through a float (a seed of
# 9007199254740993 is not 9007199254740992).
INTEGER_PATTERN = r"^[+-]?\d+$"
INT64_DIGITS = 18  # any 18-digit number fits in int64; longer ones are checked one by one


def parse_integers(text: pd.Series, number: np.ndarray) -> tuple[pd.Series, np.ndarray]:
    """Exact Int64 per cell that holds a whole number, and where a whole number does not fit.

    number is parse_numbers(text). Digits-only cells are read exactly and must fit int64; a whole
    number written another way ('7.0', '1e3') goes through the float and must be exact there
    (|x| <= 2**53). Missing, non-whole and out-of-range cells are NA."""
    cells = as_arrow(text)
    digits = pc.match_substring_regex(cells, INTEGER_PATTERN).fill_null(False)
    length = pc.utf8_length(pc.utf8_ltrim(cells, characters="+-0")).fill_null(0)
    short = pc.and_(digits, pc.less_equal(length, INT64_DIGITS))
    unsigned_plus = pc.replace_substring_regex(cells, r"^\+", "")  # Arrow's cast refuses '+5'
    exact = pc.cast(pc.if_else(short, unsigned_plus, pa.scalar(None, pa.string())), pa.int64())
    # via IntegerArray, not to_pandas(): a column with nulls would go through float64
    values = pd.Series(
        pd.arrays.IntegerArray(
            exact.fill_null(0).to_numpy(zero_copy_only=False), exact.is_null().to_numpy(zero_copy_only=False)
        ),
        index=text.index,
    )
    digits_np = digits.to_numpy(zero_copy_only=False)
    long_ = digits_np & ~short.to_numpy(zero_copy_only=False)
    too_large = np.zeros(len(text), dtype=bool)
    for position in np.flatnonzero(long_):  # 19+ digits: rare, so one by one
        value = int(text.iloc[position])
        if -(2**63) <= value < 2**63:
            values.iloc[position] = value
        else:
            too_large[position] = True
    with np.errstate(invalid="ignore"):
        whole = np.isfinite(number) & (number == np.round(number)) & ~digits_np
        in_float = whole & (np.abs(number) <= 2.0**53)
    too_large |= whole & ~in_float
    values[in_float] = number[in_float].astype(np.int64)
    return values, too_large
