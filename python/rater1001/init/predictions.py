"""The models' answers from the user's predictions files (pure: frames in, frames out): each file's
stimulus key, model key, the dimensions and label named as the human ones, and each condition's
display name and kind. A condition the user computed (a crowd's majority, a panel's mean) is a
model of kind human-proxy here. Rules: docs/init.md, "Predictions"."""

from __future__ import annotations

import re

import pandas as pd

from .. import contract
from .guess import (
    MAX_LEVELS,
    MODEL_HINT,
    RUN_HINT,
    Guess,
    InitError,
    Options,
    Shape,
    condition_slug,
    file_stem,
    pick,
    slug,
    whole_numbers,
)

STIMULUS = "image_id"
KINDS = tuple(contract.CONDITION_KINDS.split("|"))
# A column naming each model in words beside its key (`crowd-majority`: "Majority label of the annotators").
DISPLAY_HINT = re.compile(r"^(display[ _]?name|display|name|description)$", re.I)


def predictions_tables(
    sources: list[tuple[pd.DataFrame, str]],
    shape: Shape,
    stimulus_ids: set[str],
    options: Options,
    stimulus_kind: str,
    inline: tuple[pd.DataFrame, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    """model_conditions and model_predictions from every predictions file, and the dimensions any
    model answered (in the study's order). `inline`: the models of the ratings file itself (HANNA's
    LLM columns); a model a file also holds is taken from the file. A model in two files is refused,
    naming both."""
    tables, answered, seen = [], set(), {}
    for frame, source in sources:
        conditions, rows, dims = _one_file(frame, source, shape, stimulus_ids, options)
        for cid in conditions.condition_id:
            if cid in seen:
                raise InitError(f"{source}: model {cid!r} is also in {seen[cid]}: give each model's answers once")
            seen[cid] = source
        tables.append((conditions, rows))
        answered |= set(dims)
    if inline is not None:
        conditions, rows, dims = _one_file(*inline, shape, stimulus_ids, options)
        given = conditions.condition_id.isin(seen)
        if given.any():
            shape.notes.append(
                f"{', '.join(conditions.condition_id[given])}: answers taken from the predictions file, not the ratings"
            )
        tables.append((conditions[~given], rows[~rows.condition_id.isin(seen)]))
        answered |= set(dims)
    conditions = pd.concat([c for c, _ in tables], ignore_index=True)
    default = "llm" if stimulus_kind == "text" else "vlm"
    conditions["kind"] = condition_kinds(conditions, options.model_kind, default)
    why = "--model-kind" if options.model_kind else f"{stimulus_kind} stimuli, no --model-kind"
    for kind, ids in conditions.groupby("kind", sort=False).condition_id:
        shape.guesses.append(Guess("(models)", ", ".join(ids), "model kind", kind, why))
    rows = pd.concat([r for _, r in tables], ignore_index=True)
    return conditions, rows, tuple(d for d in shape.dimensions if d in answered)


def condition_kinds(conditions: pd.DataFrame, flags: tuple[str, ...], default: str) -> pd.Series:
    """Each condition's kind: `--model-kind KIND` for every model, `--model-kind MODEL=KIND` for one
    (its name in the file or its condition id); otherwise `default`."""
    every, one = default, {}
    for flag in flags:
        model, named, kind = flag.rpartition("=")
        if kind not in KINDS:
            raise InitError(f"--model-kind {flag!r}: {kind!r} is not a kind of condition ({', '.join(KINDS)})")
        if not named:
            every = kind
            continue
        cid = condition_slug(model)
        if cid not in set(conditions.condition_id):
            known = ", ".join(conditions.condition_id)
            raise InitError(f"--model-kind {flag!r}: no model {model!r} in the predictions (models: {known})")
        one[cid] = kind
    return conditions.condition_id.map(lambda cid: one.get(cid, every))


def _one_file(
    frame: pd.DataFrame, source: str, shape: Shape, stimulus_ids: set[str], options: Options
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    keyed = {c: frame[c].map(file_stem).isin(stimulus_ids).mean() for c in frame.columns}
    key = max(keyed, key=keyed.get)
    if keyed[key] == 0:
        raise InitError(f"{source}: no column holds the stimulus ids of the ratings")
    shape.guesses.append(
        Guess(source, key, "stimulus key", STIMULUS, f"{keyed[key]:.0%} of its values are rated stimuli")
    )
    by_name = {slug(c): c for c in frame.columns}
    dims = {}
    for name, column in shape.dimensions.items():
        found = by_name.get(name) or (column if column in frame.columns else None)
        if found:
            dims[name] = found
            shape.guesses.append(Guess(source, found, "model dimension", name, "named as the human rating"))
    label = None
    if shape.category:
        label = by_name.get(shape.category) or (shape.label_col if shape.label_col in frame.columns else None)
        if label:
            shape.guesses.append(Guess(source, label, "model label", shape.category, "named as the human label"))
    used = {key, label, *dims.values()}
    runs = [c for c in frame.columns if c not in used and RUN_HINT.match(c)]
    candidates = [
        c
        for c in frame.columns
        if c not in used
        and c not in runs
        and frame[c].notna().all()
        and 1 <= frame[c].nunique() <= MAX_LEVELS
        and whole_numbers(frame[c]) is None
    ]
    keys = [c for c in candidates if not DISPLAY_HINT.match(c)] or candidates  # a name in words is not the key
    chosen = options.model_col if options.model_col in frame.columns else None
    model, why = pick([chosen] if chosen else keys, MODEL_HINT, "model key", "--model-col", source)
    shape.guesses.append(Guess(source, model, "model key", "condition_id", why))
    models = pd.unique(frame[model])
    display = pd.Series(models, index=models)
    for column in candidates:
        if column != model and DISPLAY_HINT.match(column) and (frame.groupby(model)[column].nunique() == 1).all():
            display = frame.groupby(model, sort=False)[column].first()
            shape.guesses.append(Guess(source, column, "model name", "display_name", "one per model, its name"))
            break
    rows = pd.DataFrame(
        {
            "condition_id": frame[model].map(condition_slug),
            STIMULUS: frame[key].map(file_stem),
            "run_id": frame[runs[0]] if runs else "1",
        }
    )
    for name, column in dims.items():
        rows[name] = frame[column]
    if label:
        rows[shape.category] = frame[label]
    conditions = pd.DataFrame(
        {"condition_id": [condition_slug(m) for m in models], "display_name": display.reindex(models).to_numpy()}
    )
    return conditions, rows, tuple(dims)
