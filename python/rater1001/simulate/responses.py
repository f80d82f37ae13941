"""What a simulated model run leaves behind besides its answers: the raw text of every step (in
the Supplement S2 formats, written the way the parse path implies), thinking traces and counts."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd


def label_text(rng: np.random.Generator, labels: np.ndarray, aliases: dict[str, list[str]]) -> list[str]:
    """The label as a model writes it: mostly the canonical word, sometimes capitalised or a noun form."""
    roll = rng.random(len(labels))
    out = []
    for lab, r in zip(labels, roll):
        if r < 0.08:
            out.append(lab.capitalize())
        elif r < 0.12 and aliases.get(lab):
            out.append(aliases[lab][0])
        else:
            out.append(lab)
    return out


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def raw_responses(strategy: str, labels: list[str], val: np.ndarray, aro: np.ndarray, path: np.ndarray) -> list[str]:
    """JSON list of each step's raw text, written the way the parse path implies."""
    out = []
    for lab, v, a, how in zip(labels, val, aro, path):
        if how == "failed":
            steps = ["I'm sorry, I can't determine the emotional state of the person in this image."]
        elif strategy == "context-carry":
            parts = [("emotion", f'"{lab}"'), ("valence", _fmt(v)), ("arousal", _fmt(a))]
            steps = [_step_text(k, val_text, how) for k, val_text in parts]
        else:
            if how == "regex":
                steps = [f"Emotion: {lab}\nValence: {_fmt(v)}\nArousal: {_fmt(a)}"]
            else:
                body = f'{{"emotion": "{lab}", "valence": {_fmt(v)}, "arousal": {_fmt(a)}}}'
                steps = [f"```json\n{body}\n```" if how == "fenced" else body]
        out.append(json.dumps(steps, ensure_ascii=False))
    return out


def _step_text(key: str, value_text: str, how: str) -> str:
    if how == "regex":
        return f"{key.capitalize()}: {value_text.strip(chr(34))}"
    body = f'{{"{key}": {value_text}}}'
    return f"```json\n{body}\n```" if how == "fenced" else body


_THOUGHTS = (
    "Looking at the eyebrows, they seem slightly drawn together.",
    "The corners of the mouth are turned down a little.",
    "The eyes are wide open and the upper lids are raised.",
    "There is some tension around the nose and upper lip.",
    "The cheeks are raised, which usually goes with a genuine smile.",
    "The forehead is smooth, there is no obvious muscle activation.",
    "Could this be sadness rather than a neutral face? The lips are pressed.",
    "The gaze is direct and the jaw looks relaxed.",
    "Let me compare with the typical prototypes of each category.",
    "The expression is subtle, so I should be careful about the intensity.",
    "Valence depends on how pleasant the expression looks overall.",
    "Arousal should reflect how activated or calm the person appears.",
)


def thinking_corpus(rng: np.random.Generator, n_chars: int) -> str:
    parts, total = [], 0
    while total < n_chars:
        s = _THOUGHTS[rng.integers(len(_THOUGHTS))]
        parts.append(s)
        total += len(s) + 1
    return " ".join(parts)


def thinking(rng, catalog_row, prof, profiles, cid, labels, true_emotions, correct, steps):
    """Thinking token counts and trace text for conditions that think (None, None otherwise)."""
    thinks = bool(catalog_row.get("thinking")) and str(catalog_row.get("thinking")).lower() not in ("false", "0", "nan")
    per_step = float(prof.get("thinking_tokens_per_step", 0) or 0)
    rows = profiles.thinking[profiles.thinking["condition_id"] == cid].set_index("emotion")
    n = len(labels)
    if not thinks and per_step <= 0:
        return None, None
    wrong_ratio = np.where(correct, 1.0, float(prof.get("wrong_thinking_ratio", 1.0) or 1.0))
    noise = np.exp(rng.normal(-(0.25**2) / 2, 0.25, n))  # mean-one multiplicative noise
    text_chars = None
    if len(rows):
        mean_len = rows["mean_length"].reindex(true_emotions).to_numpy(float)
        length = mean_len * wrong_ratio * noise
        unit = rows["unit"].iloc[0]
        if unit == "tokens":
            tokens = np.round(length)
            text_chars = np.round(length * 4)
        else:
            text_chars = np.round(length)
            tokens = (
                np.round(per_step * steps * length / np.nanmean(mean_len)) if per_step > 0 else np.round(length / 4)
            )
    else:
        tokens = np.round(per_step * steps * wrong_ratio * noise)
    include = str(catalog_row.get("include_thoughts")).lower() in ("true", "1")
    text = None
    if include and text_chars is not None:
        corpus = thinking_corpus(rng, int(text_chars.max()) + 2000)
        starts = rng.integers(0, 2000, n)
        text = _traces(corpus, labels, starts, text_chars)
    return tokens.astype("int64"), text


TRACES_AT_ONCE = 10_000  # rows whose trace text exists as Python strings at one time


def _traces(corpus: str, labels, starts, chars) -> pd.Series:
    """Each row's trace: a passage of the corpus and the conclusion. Made as Python strings a block
    of rows at a time and stored as the text column pandas would make of them: at 100x a thinking
    condition's traces are 1.5 GB, which as one list of strings was held twice over."""
    blocks = [
        pd.Series(
            [
                corpus[s : s + max(int(c) - 40, 0)] + f" So the expression is most likely {lab}."
                for lab, s, c in zip(
                    labels[i : i + TRACES_AT_ONCE], starts[i : i + TRACES_AT_ONCE], chars[i : i + TRACES_AT_ONCE]
                )
            ],
            dtype="str",
        )
        for i in range(0, len(labels), TRACES_AT_ONCE)
    ]
    return pd.concat(blocks, ignore_index=True) if blocks else pd.Series([], dtype="str")
