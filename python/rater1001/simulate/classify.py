"""Forced-choice emotion labels with planted recall, confusions and demographic accuracy gaps.

P(correct | emotion e, race r, gender g) = sigmoid(c_e + a_r + b_g). The intercepts c_e are solved
so that, averaged over the balanced race x gender cells, the recall of e is the profile's; a_r and
b_g so that accuracy per race / per gender (averaged over the other factors) shows the profile's
gaps around the overall accuracy the recalls imply. A wrong answer is drawn from the
off-diagonal of the confusion row of e (P(predicted | true e, wrong)).
"""
from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.special import expit

SURE = 30.0  # logit used for recall 1 / 0: effectively always / never correct


def _solve_shift(base: np.ndarray, target: float) -> float:
    """Scalar s with mean(sigmoid(base + s)) == target."""
    if target >= 1 - 1e-6:
        return SURE - base.min()
    if target <= 1e-6:
        return -SURE - base.max()
    base = np.ravel(base)
    return optimize.brentq(lambda s: expit(base + s).sum() / base.size - target, -60, 60, xtol=1e-12)


def accuracy_logits(
    recall: np.ndarray,
    race_targets: np.ndarray | None,
    gender_targets: np.ndarray | None,
    n_races: int,
    n_genders: int,
    iterations: int = 60,
) -> np.ndarray:
    """Logit of P(correct) per (emotion, race, gender); targets None = no effect of that factor."""
    n_e = len(recall)
    c = np.zeros(n_e)
    a = np.zeros(n_races)
    b = np.zeros(n_genders)
    overall = float(np.mean(recall))
    # Keep the profile's gaps but centre them on the accuracy the recalls imply.
    rt = None if race_targets is None else race_targets - race_targets.mean() + overall
    gt = None if gender_targets is None else gender_targets - gender_targets.mean() + overall
    for _ in range(iterations if (rt is not None or gt is not None) else 1):
        before = np.concatenate([c, a, b])
        for e in range(n_e):
            c[e] = _solve_shift((a[:, None] + b[None, :]).ravel(), float(recall[e]))
        if rt is not None:
            for r in range(n_races):
                a[r] = _solve_shift(np.clip(c, -SURE, SURE)[:, None] + b[None, :], float(rt[r])) if 0 < rt[r] < 1 else 0.0
        if gt is not None:
            for g in range(n_genders):
                b[g] = _solve_shift(np.clip(c, -SURE, SURE)[:, None] + a[None, :], float(gt[g])) if 0 < gt[g] < 1 else 0.0
        if np.abs(np.concatenate([c, a, b]) - before).max() < 1e-9:
            break
    for e in range(n_e):  # recall is the constraint that must hold exactly
        c[e] = _solve_shift((a[:, None] + b[None, :]).ravel(), float(recall[e]))
    return c[:, None, None] + a[None, :, None] + b[None, None, :]


def wrong_label_cdf(confusion: np.ndarray) -> np.ndarray:
    """Per true emotion, the cumulative distribution of the predicted label given a wrong answer."""
    off = confusion.copy()
    np.fill_diagonal(off, 0.0)
    totals = off.sum(axis=1, keepdims=True)
    n = len(off)
    uniform = (1 - np.eye(n)) / max(n - 1, 1)  # only used where the profile has no confusions
    off = np.where(totals > 0, off / np.where(totals > 0, totals, 1), uniform)
    return np.cumsum(off, axis=1)


def draw_labels(
    rng: np.random.Generator,
    true_idx: np.ndarray,
    race_idx: np.ndarray,
    gender_idx: np.ndarray,
    logits: np.ndarray,
    confusion: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted emotion index per row, and the P(correct) each row was drawn with."""
    p_correct = expit(logits[true_idx, race_idx, gender_idx])
    correct = rng.random(len(true_idx)) < p_correct
    cdf = wrong_label_cdf(confusion)[true_idx]
    wrong = np.minimum((rng.random(len(true_idx))[:, None] > cdf).sum(axis=1), confusion.shape[0] - 1)
    return np.where(correct, true_idx, wrong), p_correct
