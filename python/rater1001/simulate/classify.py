"""Forced-choice emotion labels with planted recall, confusions and demographic accuracy gaps.

P(correct | emotion e, race r, gender g) = sigmoid(c_e + a_r + b_g). The intercepts c_e are solved
so that, averaged over the balanced race x gender cells, the recall of e is the profile's; a_r and
b_g so that accuracy per race / per gender (averaged over the other factors) shows the profile's
gaps around the overall accuracy the recalls imply. A wrong answer is drawn from the
off-diagonal of the confusion row of e (P(predicted | true e, wrong)).

Model conditions (not the human raters, not the FER baselines) draw *which* faces they get right
from a per-image difficulty shared by all conditions: in each (emotion, race, gender) cell the
expected number of correct answers (sum of P(correct), stochastically rounded) goes to the faces
with the highest ease = -sqrt(w) * difficulty + sqrt(1 - w) * own noise (w = the condition's
`difficulty_weight`). Two reasons: the paper's cell-level accuracies (Tables 3, 7, 7a) are then
met without the binomial noise of independent draws (a 480-face race slice has a 2.5 pp SD,
as large as the race gaps Table 7 compares), and the faces one model misses tend to be the faces
the others miss (a low-intensity sad face reads as neutral to most models). The wrong labels of
each emotion are then shared out by the confusion row (largest remainder), so Table 3a's
precision is met the same way.
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
                a[r] = (
                    _solve_shift(np.clip(c, -SURE, SURE)[:, None] + b[None, :], float(rt[r])) if 0 < rt[r] < 1 else 0.0
                )
        if gt is not None:
            for g in range(n_genders):
                b[g] = (
                    _solve_shift(np.clip(c, -SURE, SURE)[:, None] + a[None, :], float(gt[g])) if 0 < gt[g] < 1 else 0.0
                )
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


def correct_by_ease(rng: np.random.Generator, cell: np.ndarray, p_correct: np.ndarray, ease: np.ndarray) -> np.ndarray:
    """Per cell, the round(sum of P(correct)) rows with the highest ease are correct; the rounding
    is stochastic (floor + Bernoulli(fraction)) so the expected count is exact."""
    cells, inverse = np.unique(cell, return_inverse=True)
    expected = np.bincount(inverse, weights=p_correct, minlength=len(cells))
    k = np.floor(expected + 1e-9) + (rng.random(len(cells)) < expected - np.floor(expected + 1e-9))
    order = np.lexsort((-ease, inverse))  # by cell, easiest first
    first = np.searchsorted(inverse[order], np.arange(len(cells)))
    rank = np.empty(len(cell), dtype=np.int64)
    rank[order] = np.arange(len(cell)) - first[inverse[order]]
    return rank < k[inverse]


def wrong_labels_by_share(
    rng: np.random.Generator, true_idx: np.ndarray, wrong: np.ndarray, confusion: np.ndarray
) -> np.ndarray:
    """Wrong labels whose counts per true emotion follow the confusion row's off-diagonal shares
    (largest remainder), in random order; rows that are not wrong keep -1."""
    cdf = wrong_label_cdf(confusion)
    shares = np.diff(np.concatenate([np.zeros((len(cdf), 1)), cdf], axis=1), axis=1)
    out = np.full(len(true_idx), -1)
    for e in np.unique(true_idx[wrong]):
        rows = np.flatnonzero(wrong & (true_idx == e))
        quota = shares[e] * len(rows)
        counts = np.floor(quota).astype(int)
        counts[np.argsort(-(quota - counts), kind="stable")[: len(rows) - counts.sum()]] += 1
        out[rows] = rng.permutation(np.repeat(np.arange(len(counts)), counts))
    return out


def draw_labels(
    rng: np.random.Generator,
    true_idx: np.ndarray,
    race_idx: np.ndarray,
    gender_idx: np.ndarray,
    logits: np.ndarray,
    confusion: np.ndarray,
    difficulty: np.ndarray | None = None,
    difficulty_weight: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted emotion index per row, and the P(correct) each row was drawn with. Without
    `difficulty` each row is an independent Bernoulli draw; with it (one value per row) the correct
    rows per (emotion, race, gender) cell follow the shared difficulty (see the module doc)."""
    p_correct = expit(logits[true_idx, race_idx, gender_idx])
    if difficulty is None:
        correct = rng.random(len(true_idx)) < p_correct
    else:
        w = float(np.clip(difficulty_weight, 0.0, 1.0))
        ease = -np.sqrt(w) * np.asarray(difficulty, float) + np.sqrt(1 - w) * rng.standard_normal(len(true_idx))
        n_r, n_g = logits.shape[1], logits.shape[2]
        correct = correct_by_ease(rng, (true_idx * n_r + race_idx) * n_g + gender_idx, p_correct, ease)
        return np.where(correct, true_idx, wrong_labels_by_share(rng, true_idx, ~correct, confusion)), p_correct
    cdf = wrong_label_cdf(confusion)[true_idx]
    wrong = np.minimum((rng.random(len(true_idx))[:, None] > cdf).sum(axis=1), confusion.shape[0] - 1)
    return np.where(correct, true_idx, wrong), p_correct
