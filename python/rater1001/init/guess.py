"""Guessing a study's shape from its files: pure functions over frames of text (as the ingest readers
give them: one str column per header, NA = missing). No file is read or written here.

What each guess rests on is in docs/init.md: a column's role follows from how its values vary
(within a stimulus, within a rater, not at all), from its values (whole numbers on a scale, a small
set of labels, long texts, file names) and, to break ties, from its name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

# Names that hint at a role (a tie-breaker only: the values decide first).
STIMULUS_HINT = re.compile(r"stim|item|image|img|story|text_?id|sample|photo|face|doc|question|prompt|trial", re.I)
RATER_HINT = re.compile(
    r"rater|annotat|worker|participant|subject|judge|user|coder|respondent|response_?id|ann_?id|person", re.I
)
MODEL_HINT = re.compile(r"model|condition|system|llm|classifier|engine", re.I)
RUN_HINT = re.compile(r"^(run|run_id|replicate|seed|repeat)$", re.I)
AGE_NAME = re.compile(r"(^|[_ ])age$", re.I)  # age, rater_age, Rater Age: a rater's age in years
IMAGE_FILE = re.compile(r"\.(?:png|jpe?g|gif|bmp|webp|tiff?)$", re.I)
# A set of labels larger than this is not a forced choice a person makes (the bad-input rule).
MAX_LABELS = 50
# A stimulus factor or rater attribute with more levels than this is an id or a note, not a slice.
MAX_LEVELS = 30
# Plausible rating scales: whole numbers from 0 or 1 up to at most 100.
MAX_SCALE = 100


class InitError(ValueError):
    """A user's files (or flags) do not give a study shape: the message names the file, the column
    and what was seen. Nothing has been written when it is raised."""


@dataclass(frozen=True)
class Guess:
    """One row of the table `init` prints: a column, the role given to it, the study's name for it,
    and why."""

    source: str  # file name
    column: str
    role: str
    name: str
    why: str


@dataclass
class Options:
    """What the flags settle (None / empty: guess)."""

    stimulus_col: str | None = None
    rater_col: str | None = None
    label_col: str | None = None
    dimensions: tuple[str, ...] = ()  # COLUMN or NAME=COLUMN
    audit: tuple[str, ...] = ()  # stimulus columns that are audit factors (others: not analysed)
    category: str | None = None  # stimulus column holding the intended category
    identity_col: str | None = None  # stimulus column naming whose face (source) a stimulus shows
    rater_attributes: tuple[str, ...] = ()
    model_col: str | None = None
    ignore: tuple[str, ...] = ()
    scale: tuple[int, int] | None = None
    name: str = "my-study"
    model_kind: tuple[str, ...] = ()  # KIND (every model) or MODEL=KIND


@dataclass
class Shape:
    """The study's shape as guessed, with the rows of the 'why' table."""

    layout: str  # long | wide | counts
    stimulus_col: str
    rater_col: str | None  # None: raters numbered (wide) or one per vote (counts)
    label_col: str | None = None  # ratings column (long) of the forced-choice label
    category: str | None = None  # the category factor's name
    category_truth: str | None = None  # stimulus column with the intended category (None: majority)
    dimensions: dict[str, str] = field(default_factory=dict)  # name -> ratings column (long)
    scale: tuple[int, int] = (1, 5)
    factors: dict[str, str] = field(default_factory=dict)  # audit factor name -> stimulus column
    rater_attributes: dict[str, str] = field(default_factory=dict)  # name -> rater column
    age_col: str | None = None
    text_col: str | None = None
    file_col: str | None = None
    ids_are_files: bool = False  # stimulus key values are image file names (id = the stem)
    value_cols: tuple[str, ...] = ()  # wide: one column per stimulus; counts: one per label
    stimulus_level: list[str] = field(default_factory=list)  # long columns fixed within a stimulus
    rater_level: list[str] = field(default_factory=list)  # long columns fixed within a rater
    guesses: list[Guess] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def slug(text: str) -> str:
    """A column name as the study may use it: lower-case letters, digits and _ (a factor name). A
    field flattened from a JSON record is named by its last part (`other_info.source` -> `source`)."""
    text = str(text).strip()
    last = text.rsplit(".", 1)[-1]
    out = re.sub(r"[^a-z0-9]+", "_", (last if re.search(r"[A-Za-z]", last) else text).lower()).strip("_")
    if not out or not out[0].isalpha():
        out = f"c_{out}" if out else "column"
    return out


def condition_slug(text: str) -> str:
    """A model's name as a condition id (`Beluga-13B` -> `beluga-13b`)."""
    return re.sub(r"[^a-z0-9.]+", "-", str(text).strip().lower()).strip("-") or "model"


def file_stem(value: str) -> str:
    """An image file name without its extension (`fer0028639.png` -> `fer0028639`); other values as given."""
    return IMAGE_FILE.sub("", value) if isinstance(value, str) else value


def whole_numbers(values: pd.Series) -> np.ndarray | None:
    """The values as integers when every present value is a whole number, else None."""
    present = values.dropna()
    if present.empty:
        return None
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or not np.all(np.isfinite(numbers)) or not np.all(numbers == np.round(numbers)):
        return None
    return numbers.to_numpy(dtype=float).astype(np.int64)


def numeric(values: pd.Series) -> np.ndarray | None:
    present = values.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    if present.empty or numbers.isna().any():
        return None
    return numbers.to_numpy(dtype=float)


def is_free_text(values: pd.Series) -> bool:
    present = values.dropna().astype(str)
    return not present.empty and present.str.len().mean() > 30 and present.str.contains(" ").mean() > 0.5


def scale_of(observed: dict[str, np.ndarray], source: str) -> tuple[int, int]:
    """The study's one scale from every rating column's values: from 0 when a 0 was given, else 1,
    up to the largest value given (a scale whose top nobody used reads one short: --scale)."""
    for column, values in observed.items():
        if values.min() < 0 or values.max() > MAX_SCALE:
            raise InitError(
                f"{source}: column {column!r} holds ratings from {values.min()} to {values.max()}: outside any "
                f"plausible rating scale (whole numbers from 0 or 1 up to {MAX_SCALE}); pass --ignore {column!r} "
                "if it is not a rating"
            )
    low = 0 if min(v.min() for v in observed.values()) == 0 else 1
    high = max(int(v.max()) for v in observed.values())
    return low, max(high, low + 1)


def check_scale(observed: dict[str, np.ndarray], scale: tuple[int, int], source: str) -> None:
    for column, values in observed.items():
        outside = values[(values < scale[0]) | (values > scale[1])]
        if len(outside):
            raise InitError(
                f"{source}: column {column!r} holds {len(outside)} rating(s) outside the scale "
                f"{scale[0]}-{scale[1]} (e.g. {outside[0]})"
            )


def rating_values(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    """A rating column's values; a column of numbers that are not whole is refused by name."""
    values = whole_numbers(frame[column])
    if values is None:
        numbers = numeric(frame[column])
        seen = frame[column].dropna().astype(str).unique()[:3]
        what = "numbers that are not whole" if numbers is not None else "values that are not numbers"
        raise InitError(
            f"{source}: column {column!r} holds {what} ({', '.join(map(repr, seen))}): a human rating is a whole "
            f"number on the study's scale; pass --ignore {column!r} if it is not a rating"
        )
    return values


def pick(candidates: list[str], hint: re.Pattern | None, role: str, flag: str, source: str) -> tuple[str, str]:
    """One column among candidates: the only one, or the only one whose name fits the hint.
    Otherwise stop and name them (the flag settles it)."""
    if len(candidates) == 1:
        return candidates[0], "the only column that fits"
    hinted = [c for c in candidates if hint is not None and hint.search(c)]
    if len(hinted) == 1:
        return hinted[0], "its name"
    if not candidates:
        raise InitError(f"{source}: no column can be the {role}; name it with {flag} COLUMN")
    raise InitError(
        f"{source}: the {role} is ambiguous: {', '.join(map(repr, hinted or candidates))} all fit; "
        f"choose one with {flag} COLUMN"
    )


def _flag_column(frame: pd.DataFrame, column: str | None, flag: str, source: str) -> str | None:
    if column is not None and column not in frame.columns:
        raise InitError(f"{source}: {flag} {column!r}: no such column (columns: {', '.join(frame.columns)})")
    return column


def detect_layout(frame: pd.DataFrame, options: Options, stimulus_ids: set[str] | None, source: str) -> str:
    """long (one row per stimulus x rater), wide (one row per rater, one column per stimulus) or
    counts (one row per stimulus, one column per label holding how many raters chose it)."""
    if stimulus_ids:
        named = [c for c in frame.columns if c in stimulus_ids]
        if len(named) >= 2:
            return "wide"
    if count_columns(frame, options):
        return "counts"
    if options.rater_col and options.stimulus_col:
        return "long"
    if key_pairs(frame, options):
        return "long"
    return "wide"


PAIR_NAME = re.compile(r"^(.*?)[ _-]?([12ab])$", re.I)


def pairwise_columns(frame: pd.DataFrame) -> tuple[str, str] | None:
    """Two text columns named alike but for a final 1/2 or a/b (`response1`, `response2`;
    `output_1`, `output_2`): a row is a pair of answers to compare, a judge study's file, not
    ratings of stimuli. None when no two columns are of that kind."""
    pairs = answer_column_pairs(frame)
    return pairs[0] if pairs else None


def answer_column_pairs(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """Every two columns of the kind `pairwise_columns` looks for, in file order."""
    texts = {}
    for c in frame.columns:
        match = PAIR_NAME.match(str(c))
        if match and whole_numbers(frame[c]) is None and numeric(frame[c]) is None and frame[c].nunique() > MAX_LEVELS:
            texts.setdefault(match.group(1).lower(), {})[match.group(2).lower()] = c
    found = []
    for sides in texts.values():
        for a, b in (("1", "2"), ("a", "b")):
            if a in sides and b in sides:
                found.append((sides[a], sides[b]))
    return found


def positional_key(frame: pd.DataFrame, options: Options, stimulus_ids: set[str] | None) -> str | None:
    """The stimulus column of a long table that does not say who rated (a row per rating, the rater
    known only by the row's position within its stimulus: EmoBank's `id,V,A,D`), or None. It is the
    one column that is not answers (not numbers, not free text), repeated, and either holds the ids
    of --stimuli (a sheet's column unique per row), or is named by --stimulus-col, or has more values than a rater attribute could
    (a wide file's one attribute column, a row per rater, has few)."""
    if options.rater_col or key_pairs(frame, options):
        return None
    keys = [
        c
        for c in frame.columns
        if c not in options.ignore
        and frame[c].notna().all()
        and not frame[c].is_unique
        and whole_numbers(frame[c]) is None
        and not is_free_text(frame[c])
    ]
    if options.stimulus_col:
        keys = [c for c in keys if c == options.stimulus_col]
    if len(keys) != 1 or any(RATER_HINT.search(c) for c in frame.columns):
        return None
    key = keys[0]
    named = options.stimulus_col == key or (stimulus_ids is not None and frame[key].isin(stimulus_ids).all())
    return key if named or frame[key].nunique() > MAX_LEVELS else None


def count_columns(frame: pd.DataFrame, options: Options) -> list[str]:
    """Columns of vote counts: two or more columns of non-negative whole numbers whose sum is the
    same on every row (each stimulus's raters, split by what they chose), beside a column unique
    per row that names no rater. Empty when the file is not of that layout."""
    if options.rater_col or len(frame) < 3:
        return []
    unique = [
        c for c in frame.columns if frame[c].notna().all() and frame[c].is_unique and whole_numbers(frame[c]) is None
    ]
    if not unique or any(RATER_HINT.search(c) for c in unique):  # a row per rater: a wide file
        return []
    counts = []
    for c in frame.columns:
        if c in options.ignore or c in unique:
            continue
        v = whole_numbers(frame[c])
        if v is not None and len(v) == len(frame) and v.min() >= 0:
            counts.append(c)
    if len(counts) < 2:
        return []
    totals = frame[counts].astype(float).sum(axis=1)
    return counts if totals.nunique() == 1 and totals.iloc[0] > 1 else []


def key_pairs(frame: pd.DataFrame, options: Options) -> list[tuple[str, str]]:
    """Pairs of columns that together name each row once while neither does alone: the stimulus and
    rater keys of a long table. Two columns of whole numbers beside a column unique per row and
    named like a rater are two stimuli's ratings in a wide file (a row per rater): not offered."""
    repeated = [
        c
        for c in frame.columns
        if c not in options.ignore
        and frame[c].notna().all()
        and not frame[c].is_unique
        and frame[c].nunique() > 1
        and not is_free_text(frame[c])  # ids are neither sentences nor fractions
        and (numeric(frame[c]) is None or whole_numbers(frame[c]) is not None)
    ]
    numbers = {c for c in repeated if whole_numbers(frame[c]) is not None}
    row_key = any(
        frame[c].notna().all() and frame[c].is_unique and RATER_HINT.search(c)
        for c in frame.columns
        if c not in options.ignore
    )
    # each column factorized once: DataFrame.duplicated(subset) walks every column per call, which
    # made this cubic in the columns of a wide file (a hundred face columns: 6 CPU s)
    codes = {c: pd.factorize(frame[c])[0].astype(np.int64) for c in repeated}
    pairs = []
    for i, a in enumerate(repeated):
        for b in repeated[i + 1 :]:
            if row_key and {a, b} <= numbers and not {a, b} & {options.stimulus_col, options.rater_col}:
                continue
            pair_codes = codes[a] * (int(codes[b].max()) + 1) + codes[b]
            if len(np.unique(pair_codes)) == len(frame):
                pairs.append((a, b))
    return pairs


def varies_within(frame: pd.DataFrame, column: str, key: str) -> bool:
    return bool((frame.groupby(key, sort=False)[column].nunique(dropna=True) > 1).any())
