"""Per-category calibration of a model's dimensional answers, scored out of sample (beyond the
paper: its 3.4.2 calls a systematic bias "correctable by affine calibration" but never tries it;
docs/ablations.md).

For one condition, dimension and category, with human image means M_j and model answers x_j:

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

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .agreement import bland_altman
from .zscores import missing_answers, summarise, zscore

SEED = 42
METHODS = ("none", "offset", "affine")
STEREOTYPY_NOTE = (
    "an affine map y' = a x + b sends equal answers to equal answers: it shifts and "
    "stretches but cannot add distinct values (stereotypy limit, paper 5.4)"
)


def identity_folds(identity_ids, n_folds: int = 5, seed: int = SEED) -> np.ndarray:
    """Deal identities into cross-validation folds; every row of an identity shares its fold.

    Parameters
    ----------
    identity_ids : array_like
        Identity of each row (image); a missing identity is an error naming the row.
    n_folds : int, default 5
    seed : int, default 42

    Returns
    -------
    numpy.ndarray of int
        Fold (0 .. n_folds - 1) of each row.

    Notes
    -----
    The sorted identities are shuffled with ``numpy.random.default_rng(seed)`` and dealt round
    robin, so fold sizes (in identities) differ by at most one and no face is in both the fit and
    the score of a fold.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.2
    (a systematic bias "correctable by affine calibration") and 5.4 (stereotypy);
    docs/ablations.md.

    Examples
    --------
    Four identities in two folds: two each, and both rows of "a" together.

    >>> f = identity_folds(["a", "a", "b", "c", "d"], n_folds=2)
    >>> bool(f[0] == f[1]), np.bincount(f[1:]).tolist()
    (True, [2, 2])
    """
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
    """Fit a map from model answers onto human means.

    Parameters
    ----------
    x, y : array_like
        Model answers and human image means; NaN pairs dropped.
    method : {'offset', 'affine'}

    Returns
    -------
    LinearMap
        ``a``, ``b`` of ``y ~ a x + b`` and the method used; ``note`` says when the affine map fell
        back to offset-only (constant answers or fewer than 3 images) or nothing could be fitted.

    Notes
    -----
    offset: ``a = 1``, ``b = mean(y - x)`` (the Bland-Altman bias); affine: ordinary least squares,
    ``a = cov(x, y) / var(x)``, ``b = mean(y) - a mean(x)``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.2
    (a systematic bias "correctable by affine calibration") and 5.4 (stereotypy);
    docs/ablations.md.

    Examples
    --------
    >>> m = fit_map([1, 2, 3], [3, 5, 7], "affine")
    >>> round(m.a, 6), round(m.b, 6), m.method
    (2.0, 1.0, 'affine')
    >>> fit_map([1, 2], [2, 4], "offset")
    LinearMap(a=1.0, b=1.5, method='offset', note=None)
    """
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
        return LinearMap(
            1.0,
            float(np.mean(y - x)),
            "offset",
            "model answers constant (or < 3 images) in the fit set: offset-only used",
        )
    a, b = np.polyfit(x, y, 1)
    return LinearMap(float(a), float(b), "affine")


def calibrate_out_of_sample(
    frame: pd.DataFrame, method: str, folds: np.ndarray, scale: tuple[float, float] | None = None
) -> tuple[np.ndarray, pd.DataFrame]:
    """Calibrate each fold's answers with the map fitted on the other folds.

    Parameters
    ----------
    frame : pandas.DataFrame
        One category's images with columns ``model`` and ``human_mean``.
    method : {'offset', 'affine'}
    folds : numpy.ndarray of int
        Fold of each row (:func:`identity_folds`).
    scale : (float, float), optional
        Rating scale; calibrated answers are clipped to it.

    Returns
    -------
    (numpy.ndarray, pandas.DataFrame)
        Calibrated answers aligned with ``frame``, and one row per fold with the map used
        (fold, a, b, method, note).

    Notes
    -----
    ``x'_j = a_(-k) x_j + b_(-k)`` for image j in fold k, the map fitted without fold k
    (:func:`fit_map`), then clipped to the scale.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.2
    (a systematic bias "correctable by affine calibration") and 5.4 (stereotypy);
    docs/ablations.md.

    Examples
    --------
    The model rates 1 lower everywhere; fitted on the other fold, the offset is 1 and calibration
    gives the human means back (the last answer is clipped to the scale's 9):

    >>> frame = pd.DataFrame({"model": [1, 2, 3, 8.5], "human_mean": [2, 3, 4, 9.5]})
    >>> values, maps = calibrate_out_of_sample(frame, "offset", np.array([0, 0, 1, 1]), scale=(1, 9))
    >>> values.tolist(), maps["b"].tolist()
    ([2.0, 3.0, 4.0, 9.0], [1.0, 1.0])
    """
    out, maps = _calibrate(
        frame["model"].to_numpy(dtype=float), frame["human_mean"].to_numpy(dtype=float), method, folds, scale
    )
    return out, pd.DataFrame(
        [{"fold": fold, "a": m.a, "b": m.b, "method": m.method, "note": m.note} for fold, m in maps]
    )


def _calibrate(x: np.ndarray, y: np.ndarray, method: str, folds: np.ndarray, scale) -> tuple[np.ndarray, list]:
    """calibrate_out_of_sample on arrays: the calibrated answers and [(fold, LinearMap), ...]."""
    out = np.full(len(x), np.nan)
    maps = []
    for fold in np.unique(folds):
        test = folds == fold
        m = fit_map(x[~test], y[~test], method)
        out[test] = m.a * x[test] + m.b
        maps.append((int(fold), m))
    if scale is not None:
        out = np.clip(out, scale[0], scale[1])
    return out, maps


def _mean_skipna(values: list[float]) -> float:
    """The mean of the finite values as pandas' Series.mean takes it (NaN set to 0 and summed,
    over their count); NaN when there is none."""
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    count = int(ok.sum())
    return float(np.where(ok, v, 0.0).sum() / count) if count else float("nan")


@dataclass(frozen=True)
class CalibrationScore:
    """Scores of one category's answers (fields in the marts' column order)."""

    w1sd: float  # a missing answer counts as outside 1 SD
    w1sd_answered_only: float
    n_missing: int
    mean_abs_z: float
    n_scored: int
    n_zero_sd: int
    mae: float
    bias: float  # M - x
    sd_d: float
    n_unique: int  # distinct answers


def score(model, human_mean, human_sd) -> CalibrationScore:
    """Score one category's answers (raw or calibrated) against the human distribution.

    Parameters
    ----------
    model, human_mean, human_sd : array_like
        Aligned per-image model answer (NaN = missing), human mean and human SD.

    Returns
    -------
    CalibrationScore
        ``w1sd`` (a missing answer counted as outside 1 SD, as every verdict does),
        ``w1sd_answered_only``, ``n_missing``, ``mean_abs_z``, ``n_scored``, ``n_zero_sd``,
        ``mae``, ``bias`` (M - x), ``sd_d`` and ``n_unique`` (distinct answers).

    Notes
    -----
    ``z_j = (x_j - M_j) / S_j`` summarised by :func:`rater1001.stats.zscores.summarise`; MAE, bias
    and SD_d from :func:`rater1001.stats.agreement.bland_altman`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.2
    (a systematic bias "correctable by affine calibration") and 5.4 (stereotypy);
    docs/ablations.md.

    Examples
    --------
    z = 0 and 2 for the two answers, one missing: W1SD 1 / 3; d = (0, -1): bias -0.5, MAE 0.5.

    >>> r = score([5.0, 6.0, float("nan")], [5, 5, 5], [1.0, 0.5, 1.0])
    >>> round(r.w1sd, 6), r.w1sd_answered_only, r.bias, r.mae, r.n_unique
    (0.333333, 0.5, -0.5, 0.5, 2)
    """
    model = np.asarray(model, dtype=float)
    hm, hs = np.asarray(human_mean, dtype=float), np.asarray(human_sd, dtype=float)
    missing = missing_answers(model, hs)
    # an unanswered stimulus of human SD 0 is not missing: its z is NaN, counted in n_zero_sd
    zs = summarise(zscore(model[~missing], hm[~missing], hs[~missing]), n_missing=int(missing.sum()))
    ba = bland_altman(human_mean, model)
    finite = model[~np.isnan(model)]
    return CalibrationScore(
        zs.w1sd,
        zs.w1sd_answered_only,
        zs.n_missing,
        zs.mean_abs_z,
        zs.n_images,
        zs.n_zero_sd,
        ba.mae,
        ba.bias,
        ba.sd_d,
        int(len(np.unique(np.round(finite, 9)))),
    )


def calibration_table(
    images: pd.DataFrame, n_folds: int = 5, seed: int = SEED, scale: tuple[float, float] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Out-of-sample calibration of one condition x dimension, per category and method.

    Parameters
    ----------
    images : pandas.DataFrame
        One row per image with image_id, identity_id, category, model, human_mean, human_sd.
    n_folds : int, default 5
    seed : int, default 42
    scale : (float, float), optional
        Rating scale to clip calibrated answers to.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        scores: one row per category x method ('none', 'offset', 'affine') with :func:`score`'s
        columns and, for the calibrated methods, mean_a, mean_b, n_folds and
        n_folds_offset_fallback; answers: the calibrated answer of every image and method.

    Notes
    -----
    Folds are drawn once over all identities (:func:`identity_folds`), so a category's folds are
    the same faces for every condition and dimension; each method is
    :func:`calibrate_out_of_sample` then :func:`score`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.2
    (a systematic bias "correctable by affine calibration") and 5.4 (stereotypy);
    docs/ablations.md.

    Examples
    --------
    A model 1 below the humans on every image: offset calibration removes the whole error; the
    affine map, fitted on 2 images per fold, falls back to offset-only and says so.

    >>> images = pd.DataFrame({"image_id": range(4), "identity_id": list("abcd"), "category": "sad",
    ...                        "model": [2.0, 3, 4, 5], "human_mean": [3.0, 4, 5, 6], "human_sd": 1.0})
    >>> scores, answers = calibration_table(images, n_folds=2)
    >>> scores[["method", "mae", "w1sd", "n_folds_offset_fallback"]]
       method  mae  w1sd  n_folds_offset_fallback
    0    none  1.0   1.0                      NaN
    1  offset  0.0   1.0                      0.0
    2  affine  0.0   1.0                      2.0
    """
    folds_all = identity_folds(images["identity_id"], n_folds, seed)
    # the columns as arrays once; a category's rows are positions in them
    image_id = images["image_id"].to_numpy()
    x_all, mean_all, sd_all = (images[c].to_numpy(dtype=float) for c in ("model", "human_mean", "human_sd"))
    rows, pieces = [], []
    for category, idx in images.groupby("category", sort=True).indices.items():
        folds, x, human_mean = folds_all[idx], x_all[idx], mean_all[idx]
        for method in METHODS:
            if method == "none":
                values, maps = x, None
            else:
                values, maps = _calibrate(x, human_mean, method, folds, scale)
            row = {"category": category, "method": method, **asdict(score(values, human_mean, sd_all[idx]))}
            if maps is not None:
                row.update(
                    {
                        "mean_a": _mean_skipna([m.a for _, m in maps]),
                        "mean_b": _mean_skipna([m.b for _, m in maps]),
                        "n_folds": len(maps),
                        "n_folds_offset_fallback": sum(m.note is not None for _, m in maps),
                    }
                )
            rows.append(row)
            pieces.append((idx, category, method, values))
    answers = pd.DataFrame(
        {
            "image_id": np.concatenate([image_id[idx] for idx, *_ in pieces]) if pieces else image_id[:0],
            "category": [c for idx, c, _, _ in pieces for _ in range(len(idx))],
            "method": [m for idx, _, m, _ in pieces for _ in range(len(idx))],
            "calibrated": np.concatenate([v for *_, v in pieces]) if pieces else np.array([], dtype=float),
        }
    )
    return pd.DataFrame(rows), answers
