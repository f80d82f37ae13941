"""A rule's failing rows and their reasons, as ingest records them (validate.py, judge_rules.py)
and quotes them (readers.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Failure:
    column: str  # a column name, or the key columns joined by ',' for key rules
    rule: str  # required, type:int, scale_integer, factor:emotion, unique_key, foreign_key:stimuli, ...
    rows: np.ndarray  # 0-based positions of the failing rows
    messages: np.ndarray  # one reason text per failing row, naming column, value and rule


def _fail(failures: list[Failure], column: str, rule: str, mask, text: pd.Series, message) -> None:
    """Record rows where mask holds; message is a str or a Series aligned with text."""
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return
    shown = shorten(text[mask].fillna(""))
    detail = message[mask] if isinstance(message, pd.Series) else message
    messages = column + "='" + shown + "': " + detail + f" [{rule}]"
    failures.append(Failure(column, rule, np.flatnonzero(mask), messages.to_numpy(dtype=object)))


SHOWN_CHARACTERS = 80  # of a value quoted in a reason; the rejected file keeps the whole value


def shorten(text: pd.Series) -> pd.Series:
    """Values as quoted in reasons and the summary: a 5 MB cell is cut, saying how long it was."""
    length = text.str.len()
    long_ = (length > SHOWN_CHARACTERS).to_numpy()
    if not long_.any():
        return text
    cut = text.str.slice(0, SHOWN_CHARACTERS) + "... (" + length.astype("Int64").astype("str") + " characters)"
    return text.where(~long_, cut)


def _joined(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Key values as text: 'v' for one column, '(v1, v2)' for several (vectorised concatenation)."""
    parts = [frame[c].astype("str") for c in columns]
    if len(parts) == 1:
        return parts[0]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + ", " + part
    return "(" + joined + ")"
