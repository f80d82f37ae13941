"""Two published layouts made plain (pure): cells that hold a list of values, one per stimulus (HANNA:
a row per story generator), and a row per stimulus whose columns are named who x dimension
(`Human 1 CH`, `Beluga-13B CH 1`): the dimension is the name part that, swapped for another, names
another column."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pandas as pd

from .guess import slug, whole_numbers

TOKEN = re.compile(r"[ _]+")


def _as_list(value) -> list | None:
    if not isinstance(value, str) or not value.startswith("["):
        return None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, list) else None


def explode_lists(frame: pd.DataFrame) -> tuple[pd.DataFrame, str | None, str | None]:
    """A frame whose cells (but for a key column) are lists of one length per row: one row per list
    position, stimulus `<key>-<position>`. Returns (frame, stimulus column, note), or the frame as it
    was and None, None."""
    lists = [c for c in frame.columns if frame[c].notna().all() and frame[c].map(_as_list).notna().all()]
    keys = [c for c in frame.columns if c not in lists and frame[c].notna().all() and frame[c].is_unique]
    if len(lists) < 2 or len(keys) != 1:
        return frame, None, None
    parsed = {c: frame[c].map(_as_list) for c in lists}
    lengths = pd.DataFrame({c: parsed[c].map(len) for c in lists})
    if not (lengths.nunique(axis=1) == 1).all():
        return frame, None, None
    key = keys[0]
    rows = []
    for i, row_key in enumerate(frame[key]):
        for k in range(lengths.iloc[i, 0]):
            rows.append(
                {
                    "stimulus": f"{slug(row_key)}-{k + 1}",
                    key: row_key,
                    **{c: _text(parsed[c].iloc[i][k]) for c in lists},
                }
            )
    note = (
        f"each cell holds a list, one value per stimulus: stimulus <{key}>-<position> "
        f"({len(rows)} stimuli from {len(frame)} rows)"
    )
    return pd.DataFrame(rows, dtype=object).astype("str"), "stimulus", note


def _text(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def who_by_dimension(columns: list[str]) -> dict[str, tuple[str, str]]:
    """column -> (who, dimension code), for the columns named by a who and one of a set of codes that
    every who has (the largest such set); {} when no name is of that kind."""
    groups: dict[tuple[int, tuple], dict[str, str]] = defaultdict(dict)
    for c in columns:
        tokens = TOKEN.split(c.strip())
        for i, token in enumerate(tokens):
            groups[(i, tuple(tokens[:i] + ["*"] + tokens[i + 1 :]))][token] = c
    by_codes: dict[frozenset, dict[str, tuple[str, str]]] = defaultdict(dict)
    for (_, blanked), members in groups.items():
        if len(members) >= 2:
            who = " ".join(t for t in blanked if t != "*")
            for code, column in members.items():
                by_codes[frozenset(members)][column] = (who, code)
    best = max(by_codes.values(), key=len, default={})
    whos = {w for w, _ in best.values()}
    return best if len(whos) >= 2 and len(best) >= 4 else {}


def split_humans_and_models(frame: pd.DataFrame, named: dict[str, tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Whos whose every rating is a whole number are human raters; the others (means of sampled
    answers, as LLM ratings often are) are models."""
    whole = defaultdict(lambda: True)
    for column, (who, _) in named.items():
        whole[who] &= whole_numbers(frame[column]) is not None
    humans = sorted(w for w, ok in whole.items() if ok)
    return humans, sorted(w for w, ok in whole.items() if not ok)


def melt_who(frame: pd.DataFrame, named: dict, whos: list[str], stimulus: str, dims: dict[str, str], who_col: str):
    """One row per stimulus x who, a column per dimension (named as the study names it)."""
    out = []
    for who in whos:
        part = pd.DataFrame({stimulus: frame[stimulus].to_numpy(), who_col: who})
        for column, (w, code) in named.items():
            if w == who:
                part[dims.get(code, slug(code))] = frame[column].to_numpy()
        out.append(part)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=[stimulus, who_col])
