"""Per-emotion calibration of a model's dimensional answers, scored out of sample (beyond the
paper: its 3.4.2 calls a systematic bias "correctable by affine calibration" but never tries it;
docs/ablations.md).

For one condition, dimension and emotion, with human image means M_j and model answers x_j:

    affine       M_j ~ a x_j + b      (ordinary least squares)
    offset-only  M_j ~ x_j + b        (b = mean(M_j - x_j), the Bland-Altman bias)

Folds are BY IDENTITY: the identities are shuffled (seeded) and dealt into k folds, every image of
an identity lands in the fold of its identity, and each fold's images are calibrated with the map
fitted on the other folds. So no face is ever in both fit and score. Calibrated values are clipped
to the rating scale (an answer outside 1-9 is not a rating). When the model's answers in a fit set
are constant the slope is undefined: the affine map falls back to offset-only and says so.

An affine map sends equal answers to equal answers, so within a fold it cannot create distinct
values: a stereotyped condition stays stereotyped (the paper's 5.4 limit); the number of distinct
answers is reported beside every score.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .agreement import bland_altman
from .zscores import summarise, zscore

SEED = 42
METHODS = ("none", "offset", "affine")
STEREOTYPY_NOTE = ("an affine map y' = a x + b sends equal answers to equal answers: it shifts and "
                   "stretches but cannot add distinct values (stereotypy limit, paper 5.4)")


def identity_folds(identity_ids, n_folds: int = 5, seed: int = SEED) -> np.ndarray:
    """Fold number (0..n_folds-1) of each row; all rows of one identity share a fold."""
    ids = pd.Series(identity_ids, dtype="object")
    if ids.isna().any():
        raise ValueError(f"identity_id is missing in row {int(np.flatnonzero(ids.isna())[0])}; folds need it")
    unique = np.array(sorted(ids.unique(), key=str), dtype=object)
    if len(unique) < n_folds:
        raise ValueError(f"{len(unique)} identities cannot fill {n_folds} folds")
    order = np.random.default_rng(seed).permutation(len(unique))
    fold_of = {unique[i]: pos % n_folds for pos, i in enumerate(order)}
    return ids.map(fold_of).to_numpy(dtype=int)


@dataclass(frozen=True)
class LinearMap:
    a: float
    b: float
    method: str  # 'offset' or 'affine'
    note: str | None = None  # set when affine fell back to offset-only


def fit_map(x, y, method: str) -> LinearMap:
    """Map model answers x onto human means y (NaN pairs dropped)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    if len(x) == 0:
        return LinearMap(float("nan"), float("nan"), method, "no images to fit")
    if method == "offset":
        return LinearMap(1.0, float(np.mean(y - x)), "offset")
    if method != "affine":
        raise ValueError(f"method must be 'offset' or 'affine', got {method!r}")
    if len(x) < 3 or np.ptp(x) == 0:
        return LinearMap(1.0, float(np.mean(y - x)), "offset",
                         "model answers constant (or < 3 images) in the fit set: offset-only used")
    a, b = np.polyfit(x, y, 1)
    return LinearMap(float(a), float(b), "affine")


def calibrate_out_of_sample(frame: pd.DataFrame, method: str, folds: np.ndarray,
                            scale: tuple[float, float] | None = None) -> tuple[np.ndarray, pd.DataFrame]:
    """`frame`: one emotion's images with columns model, human_mean. Returns the calibrated answers
    (aligned with frame) and one row per fold with the map used (fold, a, b, method, note)."""
    x = frame["model"].to_numpy(dtype=float)
    y = frame["human_mean"].to_numpy(dtype=float)
    out = np.full(len(x), np.nan)
    maps = []
    for fold in np.unique(folds):
        test = folds == fold
        m = fit_map(x[~test], y[~test], method)
        out[test] = m.a * x[test] + m.b
        maps.append({"fold": int(fold), "a": m.a, "b": m.b, "method": m.method, "note": m.note})
    if scale is not None:
        out = np.clip(out, scale[0], scale[1])
    return out, pd.DataFrame(maps)


def score(model, human_mean, human_sd) -> dict:
    """W1SD (a missing answer counted as outside 1 SD, as every verdict does), mean |z|, MAE, bias
    (M - x), SD_d and the number of distinct answers; n_missing and the answered-only W1SD beside."""
    model = np.asarray(model, dtype=float)
    answered = ~np.isnan(model)
    hm, hs = np.asarray(human_mean, dtype=float), np.asarray(human_sd, dtype=float)
    zs = summarise(zscore(model[answered], hm[answered], hs[answered]), n_missing=int((~answered).sum()))
    ba = bland_altman(human_mean, model)
    finite = model[~np.isnan(model)]
    return {"w1sd": zs.w1sd, "w1sd_answered_only": zs.w1sd_answered_only, "n_missing": zs.n_missing,
            "mean_abs_z": zs.mean_abs_z, "n_scored": zs.n_images, "n_zero_sd": zs.n_zero_sd,
            "mae": ba.mae, "bias": ba.bias, "sd_d": ba.sd_d, "n_unique": int(len(np.unique(np.round(finite, 9))))}


def calibration_table(images: pd.DataFrame, n_folds: int = 5, seed: int = SEED,
                      scale: tuple[float, float] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`images`: one condition x dimension, one row per image with image_id, identity_id, emotion,
    model, human_mean, human_sd. Returns (scores: one row per emotion x method, answers: the
    out-of-sample calibrated answer of every image and method). Folds are drawn once over all
    identities, so an emotion's folds are the same faces for every condition and dimension."""
    folds_all = identity_folds(images["identity_id"], n_folds, seed)
    rows, answers = [], []
    for emotion, idx in images.groupby("emotion", sort=True).indices.items():
        part = images.iloc[idx]
        folds = folds_all[idx]
        for method in METHODS:
            if method == "none":
                values, maps = part["model"].to_numpy(dtype=float), None
            else:
                values, maps = calibrate_out_of_sample(part, method, folds, scale)
            row = {"emotion": emotion, "method": method, **score(values, part["human_mean"], part["human_sd"])}
            if maps is not None:
                row.update({"mean_a": float(maps["a"].mean()), "mean_b": float(maps["b"].mean()),
                            "n_folds": len(maps), "n_folds_offset_fallback": int(maps["note"].notna().sum())})
            rows.append(row)
            answers.append(pd.DataFrame({"image_id": part["image_id"].to_numpy(), "emotion": emotion,
                                         "method": method, "calibrated": values}))
    return pd.DataFrame(rows), pd.concat(answers, ignore_index=True)
