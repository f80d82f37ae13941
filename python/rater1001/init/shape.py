"""From the user's frames to the study's shape and its five landing tables (pure: frames in, frames
out). Every layout is first made long (one row per stimulus x rater), then each column is given a
role by how it varies; docs/init.md has the rules."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .guess import (
    AGE_NAME,
    IMAGE_FILE,
    MAX_LABELS,
    MAX_LEVELS,
    RATER_HINT,
    STIMULUS_HINT,
    Guess,
    InitError,
    Options,
    Shape,
    check_scale,
    count_columns,
    detect_layout,
    file_stem,
    is_free_text,
    key_pairs,
    pairwise_columns,
    pick,
    positional_key,
    rating_values,
    scale_of,
    slug,
    varies_within,
    whole_numbers,
)
from .matrix import explode_lists, melt_who, split_humans_and_models, who_by_dimension
from .predictions import predictions_tables

STIMULUS = "image_id"
RATER = "rater_id"


@dataclass
class Proposal:
    shape: Shape
    tables: dict[str, pd.DataFrame]  # contract table -> rows as text
    labels: pd.DataFrame  # factor, label, label_ko, aliases, display_order
    kind: str  # image | text
    model_dimensions: tuple[str, ...] = ()


def propose(
    ratings: pd.DataFrame,
    source: str,
    options: Options,
    stimuli: list[tuple[pd.DataFrame, str]] | tuple[pd.DataFrame, str] | None = None,
    raters: tuple[pd.DataFrame, str] | None = None,
    predictions: list[tuple[pd.DataFrame, str]] | tuple[pd.DataFrame, str] | None = None,
) -> Proposal:
    stimuli = [stimuli] if isinstance(stimuli, tuple) else list(stimuli or [])
    predictions = [predictions] if isinstance(predictions, tuple) else list(predictions or [])
    for flag, column in (("--stimulus-col", options.stimulus_col), ("--rater-col", options.rater_col)):
        if column is not None and column not in ratings.columns:
            raise InitError(f"{source}: {flag} {column!r}: no such column (columns: {', '.join(ratings.columns)})")
    ratings = ratings.drop(columns=[c for c in options.ignore if c in ratings.columns])
    if pair := pairwise_columns(ratings):
        raise InitError(
            f"{source}: columns {pair[0]!r} and {pair[1]!r} hold two answers per row to compare: a pairwise judge "
            "study's file, not ratings of stimuli (init reads it as one from an array of records or a table: "
            f"docs/init.md, 'A judge study'); if they are not answers to compare, pass --ignore {pair[1]!r}"
        )
    ratings, listed, listed_note = explode_lists(ratings)
    named = who_by_dimension(list(ratings.columns)) if not (options.rater_col or options.label_col) else {}
    if named and (listed or _keyed_by_stimulus(ratings, named, options)):
        long, shape, inline = _from_who_by_dimension(ratings, source, options, named, listed)
        if listed_note:
            shape.notes.insert(0, listed_note)
        inline = (inline, source) if inline is not None else None
        return _finish(long, shape, source, options, stimuli, raters, predictions, inline)
    stimulus_keys = {v for frame, _ in stimuli for c in frame for v in frame[c].dropna()} or None
    layout = detect_layout(ratings, options, stimulus_keys, source)
    sheet_keys = {v for frame, _ in stimuli for c in frame if frame[c].is_unique for v in frame[c].dropna()}
    if layout == "wide" and (positional := positional_key(ratings, options, sheet_keys or None)):
        long, shape = _from_positions(ratings, source, positional)
        return _finish(long, shape, source, options, stimuli, raters, predictions)
    long, shape = {"long": _from_long, "wide": _from_wide, "counts": _from_counts}[layout](ratings, source, options)
    return _finish(long, shape, source, options, stimuli, raters, predictions)


def _keyed_by_stimulus(frame: pd.DataFrame, named: dict, options: Options) -> bool:
    """Rows are stimuli (not a survey's respondents): a key unique per row is named like a stimulus
    or by --stimulus-col, and none like a rater."""
    unique = [c for c in frame.columns if c not in named and frame[c].notna().all() and frame[c].is_unique]
    stimulus = options.stimulus_col in unique or any(STIMULUS_HINT.search(c) for c in unique)
    return stimulus and not any(RATER_HINT.search(c) for c in unique)


def _finish(long, shape, source, options, stimuli, raters, predictions, inline=None) -> Proposal:
    files = None
    if long[STIMULUS].astype(str).str.contains(IMAGE_FILE).all():
        shape.ids_are_files = True
        files = long.drop_duplicates(STIMULUS).set_index(long[STIMULUS].drop_duplicates().map(file_stem))[STIMULUS]
        long[STIMULUS] = long[STIMULUS].map(file_stem)
        shape.notes.append("the stimulus ids are image file names: the id is the name without its extension")
    _classify(long, shape, source, options)
    stimulus_table = _stimulus_table(long, shape, source, options, stimuli, files)
    rater_table = _rater_table(long, shape, raters, options)
    human = long[[RATER, STIMULUS]].copy()
    for name, column in shape.dimensions.items():
        human[name] = long[column]
    if shape.category is not None:
        human[shape.category] = long[shape.label_col]
    tables = {"stimuli": stimulus_table, "raters": rater_table, "human_ratings": human}
    labels = _labels(shape, stimulus_table, rater_table, human)
    kind = "text" if "text" in stimulus_table.columns else "image"
    # No predictions yet: a model added later (ingest, infer) is compared on every dimension.
    model_dims: tuple[str, ...] = tuple(shape.dimensions)
    if options.model_kind and not (predictions or inline):
        raise InitError(f"--model-kind {options.model_kind[0]!r}: no model answers to give it to (--predictions FILE)")
    if predictions or inline:
        ids = set(stimulus_table[STIMULUS])
        conditions, rows, model_dims = predictions_tables(predictions, shape, ids, options, kind, inline)
        tables["model_conditions"], tables["model_predictions"] = conditions, rows
    return Proposal(shape, tables, labels, kind, model_dims)


# ------------------------------------------------------------------------------------- layouts


def _from_long(frame: pd.DataFrame, source: str, options: Options) -> tuple[pd.DataFrame, Shape]:
    s, r = options.stimulus_col, options.rater_col
    why_s = why_r = "named by flag"
    if s is None or r is None:
        pairs = [p for p in key_pairs(frame, options) if all(x in p for x in (s, r) if x is not None)]
        oriented = []
        for a, b in pairs:
            for stim, rater in ((a, b), (b, a)):
                if (s is None or stim == s) and (r is None or rater == r):
                    oriented.append((stim, rater))
        hinted = [(x, y) for x, y in oriented if STIMULUS_HINT.search(x) and RATER_HINT.search(y)]
        choice = hinted if len(hinted) == 1 else oriented
        if not choice:
            raise InitError(
                f"{source}: no column can be the rater key: no two columns name each row once "
                "(a long table has one row per stimulus x rater; a wide one, one row per rater); "
                "name the keys with --stimulus-col and --rater-col"
            )
        if len(choice) > 1:
            shown = "; ".join(f"stimulus {x!r} x rater {y!r}" for x, y in choice)
            raise InitError(
                f"{source}: the stimulus and rater keys are ambiguous ({shown}); choose with --stimulus-col "
                "and --rater-col"
            )
        (s, r) = choice[0]
        why_s = why_r = "with the other key, names each row once" + (" (and its name)" if hinted else "")
    shape = Shape(layout="long", stimulus_col=s, rater_col=r)
    shape.guesses += [
        Guess(source, s, "stimulus key", STIMULUS, why_s),
        Guess(source, r, "rater key", RATER, why_r),
    ]
    long = frame.rename(columns={s: STIMULUS, r: RATER})
    return long, shape


def _from_positions(frame: pd.DataFrame, source: str, stimulus: str) -> tuple[pd.DataFrame, Shape]:
    """A long table that does not say who rated (EmoBank: `id,V,A,D`): the k-th row of a stimulus
    is rater `rater<k>`, the k-th rating of every stimulus (docs/init.md)."""
    shape = Shape(layout="positional", stimulus_col=stimulus, rater_col=None)
    position = frame.groupby(stimulus, sort=False).cumcount() + 1
    shape.guesses += [
        Guess(source, stimulus, "stimulus key", STIMULUS, "repeated, the only column that is not answers"),
        Guess(source, "(row within the stimulus)", "rater key", RATER, "no column names the rater"),
    ]
    shape.notes.append(
        f"no column names the rater: the k-th row of a stimulus is rater<k> (rater1 to rater{position.max()}), "
        "the k-th rating of every stimulus"
    )
    long = frame.rename(columns={stimulus: STIMULUS}).assign(**{RATER: "rater" + position.astype(str)})
    return long, shape


def _from_who_by_dimension(
    frame: pd.DataFrame, source: str, options: Options, named: dict, listed: str | None
) -> tuple[pd.DataFrame, Shape, pd.DataFrame | None]:
    """A row per stimulus, a column per who x dimension: whole-number whos are the human raters
    (the long table), the others models (their predictions, beside any --predictions file's)."""
    unique = [c for c in frame.columns if c not in named and frame[c].notna().all() and frame[c].is_unique]
    stimulus, why = (
        (listed, "made from the list positions")
        if listed
        else pick(
            [options.stimulus_col] if options.stimulus_col else unique,
            STIMULUS_HINT,
            "stimulus key",
            "--stimulus-col",
            source,
        )
    )
    codes = dict(reversed(_named(d)) for d in options.dimensions)  # code -> name
    humans, models = split_humans_and_models(frame, named)
    shape = Shape(layout="wide", stimulus_col=stimulus, rater_col=None, value_cols=tuple(named))
    shape.guesses.append(Guess(source, stimulus, "stimulus key", STIMULUS, why))
    for code in sorted({c for _, c in named.values()}):
        name = codes.get(code, slug(code))
        shape.dimensions[name] = name
        shape.guesses.append(Guess(source, f"* {code} *", "dimension", name, "a name part every rater and model has"))
    shape.guesses.append(Guess(source, ", ".join(humans), "raters", RATER, "whole numbers only"))
    if models:
        shape.guesses.append(Guess(source, ", ".join(models), "models", "condition_id", "not whole numbers"))
    others = frame[[c for c in frame.columns if c not in named]]
    long = melt_who(frame, named, humans, stimulus, codes, RATER).merge(others, on=stimulus, how="left")
    long = long.rename(columns={stimulus: STIMULUS})
    inline = melt_who(frame, named, models, stimulus, codes, "model") if models else None
    return long, shape, inline


def _from_counts(frame: pd.DataFrame, source: str, options: Options) -> tuple[pd.DataFrame, Shape]:
    counts = count_columns(frame, options)
    unique = [
        c
        for c in frame.columns
        if c not in counts and frame[c].notna().all() and frame[c].is_unique and whole_numbers(frame[c]) is None
    ]
    stim, why = pick(
        [options.stimulus_col] if options.stimulus_col else unique,
        STIMULUS_HINT,
        "stimulus key",
        "--stimulus-col",
        source,
    )
    chosen = [c for c in counts if whole_numbers(frame[c]).sum() > 0]
    unused = [c for c in counts if c not in chosen]
    category = options.label_col or "label"
    shape = Shape(layout="counts", stimulus_col=stim, rater_col=None, value_cols=tuple(chosen))
    total = int(frame[counts].astype(float).sum(axis=1).iloc[0])
    shape.guesses += [
        Guess(source, stim, "stimulus key", STIMULUS, f"one per row ({why})"),
        Guess(
            source,
            ", ".join(chosen),
            "label counts",
            category,
            f"whole numbers summing to {total} on every row: how many raters chose each label",
        ),
    ]
    if unused:
        shape.notes.append(f"{', '.join(unused)}: no rater chose it anywhere in the file, so it is not a label")
    shape.notes.append(
        f"the file counts votes, not who cast them: each vote is a rater of its own (<stimulus>-v<k>), "
        f"{total} per stimulus"
    )
    rest = [c for c in frame.columns if c not in counts and c != stim]
    rows = []
    votes = frame[chosen].astype(float).astype(np.int64).to_numpy()
    for i, stimulus in enumerate(frame[stim].to_numpy()):
        k = 0
        for j, label in enumerate(chosen):
            for _ in range(votes[i, j]):
                k += 1
                rows.append((stimulus, f"{file_stem(stimulus)}-v{k:02d}", label, i))
    long = pd.DataFrame(rows, columns=[STIMULUS, RATER, category, "_row"])
    long = long.join(frame[rest], on="_row").drop(columns="_row")
    shape.label_col = category
    return long, shape


def _from_wide(frame: pd.DataFrame, source: str, options: Options) -> tuple[pd.DataFrame, Shape]:
    """One row per rater: the stimulus columns are the largest group of columns holding the same
    kind of answer (whole numbers, or labels from one small set); the rest describe the rater."""
    groups: dict[str, list[str]] = {"numbers": [], "labels": []}
    for c in frame.columns:
        values = frame[c].dropna()
        if values.empty or c in (options.rater_col, options.stimulus_col) or AGE_NAME.search(c):
            continue  # a column named ...age is the rater's age, not a stimulus
        if whole_numbers(values) is not None:
            groups["numbers"].append(c)
        elif values.nunique() <= MAX_LABELS and not is_free_text(values):
            groups["labels"].append(c)
    if options.label_col and not options.dimensions:  # answers coded 0/1 are labels when so named
        few = [c for c in groups["numbers"] if frame[c].nunique() <= MAX_LABELS]
        groups = {"labels": groups["labels"] + few, "numbers": []}
    kind, columns = max(groups.items(), key=lambda kv: len(kv[1]))
    if kind == "labels":
        columns = _shared_vocabulary(frame, columns)
    columns = _one_mapping(columns)
    if len(columns) < 2:
        raise InitError(
            f"{source}: no column can be the rater key, and the file is not a wide table either (no two columns "
            "hold answers of the same kind); a long table needs one row per stimulus x rater: name the keys "
            "with --stimulus-col and --rater-col"
        )
    others = [c for c in frame.columns if c not in columns]
    unique = [c for c in others if frame[c].notna().all() and frame[c].is_unique]
    by_stimulus = options.stimulus_col in unique or (
        not options.rater_col
        and any(STIMULUS_HINT.search(c) for c in unique)
        and not any(RATER_HINT.search(c) for c in unique)
    )
    value = (options.dimensions[0].split("=")[0] if options.dimensions else "rating") if kind == "numbers" else None
    value = value or options.label_col or "label"
    if by_stimulus:
        return _from_by_stimulus(frame, source, options, columns, unique, kind, value)
    shape = Shape(layout="wide", stimulus_col="(column names)", rater_col=None, value_cols=tuple(columns))
    if options.rater_col or unique:
        rater, why = pick(
            [options.rater_col] if options.rater_col else unique, RATER_HINT, "rater key", "--rater-col", source
        )
        ids = frame[rater]
        shape.rater_col = rater
        shape.guesses.append(Guess(source, rater, "rater key", RATER, f"one per row ({why})"))
    else:
        width = len(str(len(frame)))
        ids = pd.Series([f"r{i:0{width}d}" for i in range(1, len(frame) + 1)], index=frame.index)
        shape.notes.append(
            f"no column names the rater: each of the {len(frame)} rows is a rater, numbered r{1:0{width}d} to "
            f"r{len(frame)} in file order"
        )
        shape.guesses.append(Guess(source, "(row number)", "rater key", RATER, "no column is unique per row"))
    shape.guesses.append(
        Guess(
            source,
            f"{columns[0]} .. {columns[-1]} ({len(columns)})",
            "stimulus columns",
            STIMULUS,
            f"{kind} of one kind",
        )
    )
    wide = frame.assign(**{RATER: ids.to_numpy()})
    long = wide.melt(
        id_vars=[RATER, *[c for c in others if c != shape.rater_col]],
        value_vars=columns,
        var_name=STIMULUS,
        value_name=value,
    ).dropna(subset=[value])
    if kind == "numbers":
        shape.dimensions[slug(value)] = value
    else:
        shape.label_col = value
    return long.reset_index(drop=True), shape


def _from_by_stimulus(
    frame: pd.DataFrame, source: str, options: Options, columns: list[str], unique: list[str], kind: str, value: str
) -> tuple[pd.DataFrame, Shape]:
    """One row per stimulus, one column per rater (a coding matrix; a JSON record's mapping of
    annotators to answers): the column names, less their common prefix, are the rater ids."""
    stimulus, why = pick(
        [options.stimulus_col] if options.stimulus_col in unique else unique,
        STIMULUS_HINT,
        "stimulus key",
        "--stimulus-col",
        source,
    )
    parent = columns[0].rsplit(".", 1)[0] + "." if "." in columns[0] else ""
    prefix = parent if all(c.startswith(parent) for c in columns) else ""
    raters = {c: c[len(prefix) :] or c for c in columns}
    shape = Shape(layout="wide", stimulus_col=stimulus, rater_col=None, value_cols=tuple(columns))
    shape.guesses += [
        Guess(source, stimulus, "stimulus key", STIMULUS, f"one per row ({why})"),
        Guess(
            source,
            f"{columns[0]} .. {columns[-1]} ({len(columns)})",
            "rater columns",
            RATER,
            f"{kind} of one kind; the rater is the column name" + (f" less {prefix!r}" if prefix else ""),
        ),
    ]
    others = [c for c in frame.columns if c not in columns and c != stimulus]
    long = (
        frame.rename(columns={stimulus: STIMULUS, **raters})
        .melt(id_vars=[STIMULUS, *others], value_vars=list(raters.values()), var_name=RATER, value_name=value)
        .dropna(subset=[value])
    )
    if kind == "numbers":
        shape.dimensions[slug(value)] = value
    else:
        shape.label_col = value
    return long.reset_index(drop=True), shape


def _one_mapping(columns: list[str]) -> list[str]:
    """Of answer columns flattened from a JSON record (`annotations.Ann7`), those of the largest
    mapping: its keys are the raters; a record's other fields are not answers."""
    parents: dict[str, list[str]] = {}
    for c in columns:
        if "." in c:
            parents.setdefault(c.rsplit(".", 1)[0], []).append(c)
    largest = max(parents.values(), key=len, default=[])
    return largest if len(largest) >= 2 else columns


def _shared_vocabulary(frame: pd.DataFrame, columns: list[str]) -> list[str]:
    """The largest group of label columns linked by labels they share: the stimuli's answers, apart
    from rater attributes (gender, country) whose values no answer uses."""
    groups: list[tuple[set, list[str]]] = []
    for c in columns:
        values = set(frame[c].dropna())
        linked = [g for g in groups if g[0] & values]
        merged = (values.union(*(g[0] for g in linked)), [x for g in linked for x in g[1]] + [c])
        groups = [g for g in groups if not any(g is l for l in linked)] + [merged]
    return max(groups, key=lambda g: len(g[1]))[1]


# ------------------------------------------------------------------------------------ columns


def _classify(long: pd.DataFrame, shape: Shape, source: str, options: Options) -> None:
    """Give each remaining column of the long frame its role by how it varies."""
    keys = {STIMULUS, RATER, shape.label_col, *shape.dimensions.values()}
    label_candidates, dimension_cols = [], {}
    requested = dict(_named(d) for d in options.dimensions)
    for c in long.columns:
        if c in keys:
            continue
        values = long[c]
        if values.nunique() <= 1:
            shape.notes.append(
                f"{c}: one value everywhere ({values.dropna().iloc[0] if values.notna().any() else 'empty'}), left out"
            )
            continue
        if not varies_within(long, c, STIMULUS):
            shape.stimulus_level.append(c)
        elif not varies_within(long, c, RATER) and shape.layout not in ("counts", "positional"):
            shape.rater_level.append(c)
        elif requested and c not in requested.values() and whole_numbers(values) is not None:
            shape.notes.append(f"{c}: whole numbers, not among the --dimension columns, left out")
        elif whole_numbers(values) is not None or c in requested.values():
            dimension_cols[c] = rating_values(long, c, source)
        elif is_free_text(values):
            shape.notes.append(f"{c}: free text ({values.nunique()} different answers), left out")
        else:
            label_candidates.append(c)
    for name, column in requested.items():
        if name not in shape.dimensions and column not in dimension_cols and column not in shape.dimensions.values():
            raise InitError(f"{source}: --dimension {column!r}: no such rating column")
    if shape.label_col is None:
        if options.label_col:
            if options.label_col not in long.columns:
                raise InitError(f"{source}: --label-col {options.label_col!r}: no such column")
            label_candidates = [options.label_col]
        if len(label_candidates) > 1:
            raise InitError(
                f"{source}: the label column is ambiguous: {', '.join(map(repr, label_candidates))} all vary "
                "within a stimulus; choose one with --label-col COLUMN (and --ignore the others)"
            )
        if label_candidates:
            shape.label_col = label_candidates[0]
            shape.guesses.append(
                Guess(source, shape.label_col, "label", slug(shape.label_col), "text varying within a stimulus")
            )
    if shape.label_col is not None:
        n = long[shape.label_col].nunique()
        if n > MAX_LABELS:
            seen = ", ".join(map(repr, long[shape.label_col].dropna().unique()[:3]))
            raise InitError(
                f"{source}: column {shape.label_col!r} holds {n} different labels ({seen}, ...): too many for a "
                f"forced choice (at most {MAX_LABELS}); pass --ignore {shape.label_col!r} if it is not the label"
            )
        shape.category = slug(shape.label_col)
    for column in dimension_cols:
        name = next((n for n, c in requested.items() if c == column), slug(column))
        shape.dimensions[name] = column
        shape.guesses.append(Guess(source, column, "dimension", name, "whole numbers varying within a stimulus"))
    observed = {c: rating_values(long, c, source) for c in shape.dimensions.values()}
    if observed:
        shape.scale = options.scale or scale_of(observed, source)
        check_scale(observed, shape.scale, source)
        low, high = shape.scale
        seen = f"{min(v.min() for v in observed.values())}-{max(v.max() for v in observed.values())}"
        why = "from --scale" if options.scale else f"ratings seen {seen}"
        shape.guesses.append(Guess(source, ", ".join(observed), "scale", f"{low}-{high}", why))
    elif options.scale:
        shape.scale = options.scale


def _named(text: str) -> tuple[str, str]:
    name, _, column = text.partition("=")
    return (slug(name), column) if column else (slug(text), text)


def _stimulus_table(
    long: pd.DataFrame,
    shape: Shape,
    source: str,
    options: Options,
    stimuli: list[tuple[pd.DataFrame, str]],
    files: pd.Series | None,
) -> pd.DataFrame:
    first = long.drop_duplicates(STIMULUS).set_index(STIMULUS)
    table = pd.DataFrame(index=pd.Index(first.index, name=STIMULUS))
    described = [(c, first[c], source) for c in shape.stimulus_level]
    for frame, stim_source in stimuli:
        ids = set(table.index)
        overlap = {c: frame[c].isin(ids).mean() for c in frame.columns}
        key = max(overlap, key=overlap.get)
        if overlap[key] == 0:
            raise InitError(f"{stim_source}: no column holds the stimulus ids of {source} (e.g. {next(iter(ids))!r})")
        shape.guesses.append(
            Guess(stim_source, key, "stimulus key", STIMULUS, f"{overlap[key]:.0%} of its values are rated stimuli")
        )
        frame = frame.drop(columns=[c for c in options.ignore if c in frame.columns]).drop_duplicates(key)
        frame = frame.set_index(key).reindex(table.index)
        if options.identity_col == key:  # each stimulus its own identity
            described.append((key, pd.Series(table.index, index=table.index), stim_source))
        described += [(c, frame[c], stim_source) for c in frame.columns]
    labels = set(long[shape.label_col].dropna().str.casefold()) if shape.label_col else set()
    audit = dict(_named(a) for a in options.audit)  # NAME=COLUMN or COLUMN
    for column, values, where in described:
        present = values.dropna()
        n = present.nunique()
        if column == options.identity_col:
            table["identity_id"] = values
            shape.guesses.append(Guess(where, column, "identity", "identity_id", "named by flag"))
            continue
        if n <= 1:
            continue
        if present.astype(str).str.contains(IMAGE_FILE).all() and shape.file_col is None:
            shape.file_col = column
            table["file_path"] = values
            shape.guesses.append(Guess(where, column, "file path", "file_path", "image file names"))
        elif is_free_text(present) and shape.text_col is None:
            shape.text_col = column
            table["text"] = values
            shape.guesses.append(Guess(where, column, "stimulus text", "text", "long texts, one per stimulus"))
        elif is_free_text(present):  # a post and its reply: the stimulus is both, in file order
            table["text"] = _join_texts(table["text"], values)
            shape.guesses.append(
                Guess(
                    where,
                    column,
                    "stimulus text",
                    "text",
                    f"long texts too: after {shape.text_col}, a line --- between",
                )
            )
        elif n <= MAX_LEVELS and n < len(present):
            truth = labels and set(present.str.casefold()) <= labels
            if truth and shape.category_truth is None and options.category in (None, column):
                shape.category_truth = column
                table[shape.category] = values
                shape.guesses.append(
                    Guess(where, column, "category (intended)", shape.category, "its values are labels raters chose")
                )
            elif options.audit and column not in audit.values():
                shape.notes.append(f"{column}: a stimulus factor not among --audit, left out")
            else:
                name = next((key for key, c in audit.items() if c == column), slug(column))
                shape.factors[name] = column
                table[name] = values
                shape.guesses.append(Guess(where, column, "audit factor", name, f"{n} levels, fixed per stimulus"))
        else:
            shape.notes.append(f"{column}: {n} different values, one per stimulus or so: an id or a note, left out")
    if options.identity_col and "identity_id" not in table:
        raise InitError(f"--identity-col {options.identity_col!r}: no such column of the stimuli")
    if shape.label_col and shape.category_truth is None:
        table[shape.category] = _majority(long, shape.label_col, shape)
    if files is not None and "file_path" not in table:
        table["file_path"] = files.reindex(table.index)
    return table.reset_index()


TEXT_SEPARATOR = "\n---\n"


def _join_texts(first: pd.Series, then: pd.Series) -> pd.Series:
    """Two text columns as one text: each present part, a line `---` between."""
    both = first.notna() & then.notna()
    return first.where(~both, first + TEXT_SEPARATOR + then).fillna(then)


def _majority(long: pd.DataFrame, label: str, shape: Shape) -> pd.Series:
    """Each stimulus's most chosen label (its category where no intended one is given); a tie goes
    to the label listed first, and is counted in the notes."""
    order = {v: i for i, v in enumerate(pd.unique(long[label].dropna()))}
    counts = long.groupby([STIMULUS, label], sort=False).size().rename("n").reset_index()
    counts["order"] = counts[label].map(order)
    counts = counts.sort_values([STIMULUS, "n", "order"], ascending=[True, False, True])
    top = counts.drop_duplicates(STIMULUS).set_index(STIMULUS)
    tied = (counts.groupby(STIMULUS)["n"].apply(lambda n: (n == n.max()).sum() > 1)).sum()
    shape.notes.append(
        f"{shape.category} of a stimulus: its raters' most chosen label (no column gives an intended one)"
        + (f"; {tied} ties went to the label listed first" if tied else "")
    )
    return top[label]


def _rater_table(
    long: pd.DataFrame, shape: Shape, raters: tuple[pd.DataFrame, str] | None, options: Options
) -> pd.DataFrame:
    wanted = dict(_named(a) for a in options.rater_attributes)  # NAME=COLUMN or COLUMN
    first = long.drop_duplicates(RATER).set_index(RATER)
    table = pd.DataFrame(index=pd.Index(first.index, name=RATER))
    described = [(c, first[c], "ratings") for c in shape.rater_level]
    if raters is not None:
        frame, where = raters
        ids = set(table.index)
        # the ratings may spell a rater with a prefix the rater file leaves out (Ann7 and 7)
        prefix = os.path.commonprefix([str(i) for i in ids]).rstrip("0123456789")
        overlap = {c: frame[c].isin(ids).mean() for c in frame.columns}
        key = max(overlap, key=overlap.get)
        if overlap[key] == 0 and prefix:
            prefixed = {c: (prefix + frame[c].astype(str)).isin(ids).mean() for c in frame.columns}
            key = max(prefixed, key=prefixed.get)
            if prefixed[key] > 0:
                frame = frame.assign(**{key: prefix + frame[key].astype(str)})
                overlap[key] = prefixed[key]
                shape.notes.append(f"{where}: its {key!r} values are the raters' ids less the prefix {prefix!r}")
        if overlap[key] == 0:
            raise InitError(f"{where}: no column holds the rater ids of the ratings (e.g. {next(iter(ids))!r})")
        shape.guesses.append(Guess(where, key, "rater key", RATER, f"{overlap[key]:.0%} of its values are raters"))
        frame = frame.drop_duplicates(key).set_index(key).reindex(table.index)
        described += [(c, frame[c], where) for c in frame.columns]
    for column, values, where in described:
        present = values.dropna()
        n = present.nunique()
        ages = whole_numbers(present)
        if AGE_NAME.search(column) and ages is not None and ages.min() > 0 and ages.max() < 130:
            table["age"] = values
            shape.age_col = column
            shape.guesses.append(Guess(where, column, "age (years)", "age", "whole numbers 1-129 named ...age"))
        elif options.rater_attributes and column not in wanted.values():
            shape.notes.append(f"{column}: a rater column not among --rater-attribute, left out")
        elif 2 <= n <= MAX_LEVELS and n < len(present):
            name = next((key for key, c in wanted.items() if c == column), slug(column))
            shape.rater_attributes[name] = column
            table[name] = values
            shape.guesses.append(Guess(where, column, "rater attribute", name, f"{n} levels, fixed per rater"))
        else:
            shape.notes.append(f"{column}: not a rater attribute ({n} different values), left out")
    return table.reset_index()


def _labels(shape: Shape, stimuli: pd.DataFrame, raters: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """The label seed: each factor's and attribute's levels as seen. The canonical label is the value
    in lower case (its spelling in the file is kept as an alias where it differs)."""
    rows = []
    sets = []
    if shape.category:
        values = pd.concat([human[shape.category], stimuli[shape.category]])
        if shape.layout == "counts":
            values = pd.Series(shape.value_cols)
        sets.append((shape.category, values))
    sets += [(name, stimuli[name]) for name in shape.factors]
    sets += [(name, raters[name]) for name in shape.rater_attributes]
    for factor, values in sets:
        seen = list(pd.unique(values.dropna()))
        if shape.layout != "counts":
            numbers = whole_numbers(pd.Series(seen))
            seen = sorted(seen, key=(lambda v: float(v)) if numbers is not None else str.casefold)
        canonical = [str(v).lower() for v in seen]
        if len(set(canonical)) < len(canonical):
            canonical = [str(v) for v in seen]
        for order, (label, spelled) in enumerate(zip(canonical, seen), start=1):
            rows.append((factor, label, "", spelled if spelled != label else "", order))
    return pd.DataFrame(rows, columns=["factor", "label", "label_ko", "aliases", "display_order"])
