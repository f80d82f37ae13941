"""The Alternative Annotator Test at rating-study scale: the decision step of stats.alt_test from
per-annotator outcome counts (docs/ablations.md).

stats.alt_test.alt_test takes raw labels and a Python scoring callback; at paper scale (1,000
raters x 72 images, 8 conditions x 2 dimensions x 2 scorings x 7 emotion groups) its per-instance
loop takes ~25 s per (condition, dimension) on this machine. The per-instance comparison
W^h_i = [s_h >= s_f], W^f_i = [s_f >= s_h] is a scan of individual ratings, so it runs in SQL
(models/marts/alt_test/alt_test_rater_outcomes.sql); what is left per annotator is the count of
instances where the human won outright (W^h - W^f = +1), tied (0) or lost (-1). Those counts fix
the vector W^h - W^f up to order, so this module rebuilds it and runs the very same scipy
one-sample t-test (H1: mean < epsilon), the same Benjamini-Yekutieli step
and omega / rho / pass rule (stats.alt_test.decide), vectorised over
annotators with equal instance counts. tests/python/test_marts_ablations.py checks the result
against stats.alt_test.alt_test itself on a small study.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .alt_test import decide


def annotator_p_values(n_human_better, n_tie, n_model_better, epsilon: float) -> np.ndarray:
    """One-sided one-sample t-test p of mean(W^h - W^f) < epsilon for each annotator, from counts
    of +1 / 0 / -1 differences (scipy.stats.ttest_1samp on the rebuilt vectors, as alt_test)."""
    plus, zero, minus = (np.asarray(a, dtype=int) for a in (n_human_better, n_tie, n_model_better))
    n = plus + zero + minus
    p = np.full(len(n), np.nan)
    for size in np.unique(n[n >= 2]):
        rows = np.flatnonzero(n == size)
        pos = np.arange(size)
        # row i: -1 for its first minus[i] entries, then 0s, then +1s (order does not matter to a t-test)
        diff = np.where(pos < minus[rows, None], -1.0, np.where(pos < (minus + zero)[rows, None], 0.0, 1.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant rows: -inf/+inf/NaN as in alt_test
            p[rows] = stats.ttest_1samp(diff, epsilon, axis=1, alternative="less").pvalue
    return p


def alt_test_from_counts(per_annotator: pd.DataFrame, *, epsilon: float, q: float = 0.05,
                         min_instances_per_human: int = 30, p_values: np.ndarray | None = None,
                         weight: str | None = None, per_annotator_frame: bool = True) -> dict:
    """`per_annotator`: one row per annotator with n_human_better, n_tie, n_model_better.
    Returns omega (winning rate), rho (advantage probability), passed (omega >= 0.5),
    n_annotators_tested / skipped, and the per-annotator frame with p_value and rejected.
    `p_values` (aligned with the rows) may be passed when already computed for this epsilon.
    `weight` names a column of how many annotators have the row's counts: annotators with equal
    counts have equal p-values and decisions, so a study of 100,000 raters passes a few hundred
    rows (the outcome counts take few distinct values). per_annotator_frame=False leaves the
    per-annotator frame out (None): a mart looping over a thousand groups needs only the totals."""
    plus = per_annotator["n_human_better"].to_numpy(dtype=int)
    zero = per_annotator["n_tie"].to_numpy(dtype=int)
    minus = per_annotator["n_model_better"].to_numpy(dtype=int)
    n = plus + zero + minus
    tested = n >= min_instances_per_human
    p = np.full(len(n), np.nan)
    if p_values is not None:
        p[tested] = np.asarray(p_values, dtype=float)[tested]
    else:
        p[tested] = annotator_p_values(plus[tested], zero[tested], minus[tested], epsilon)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_w_model = (zero + minus) / n
    w = None if weight is None else per_annotator[weight].to_numpy(dtype=np.int64)
    rejected, omega, rho = decide(p, mean_w_model, tested, q, weight=w)
    per = (per_annotator.assign(n_instances=n, p_value=p, mean_w_model=mean_w_model, rejected=rejected)
           if per_annotator_frame else None)
    count = np.ones(len(n), dtype=np.int64) if w is None else w
    n_tested, n_skipped = int(count[tested].sum()), int(count[~tested].sum())
    if n_tested == 0:
        return {"winning_rate": np.nan, "advantage_probability": np.nan, "passed": False, "n_annotators_tested": 0,
                "n_annotators_skipped": n_skipped, "per_annotator": per,
                "note": f"no annotator has at least {min_instances_per_human} instances"}
    return {"winning_rate": omega, "advantage_probability": rho, "passed": omega >= 0.5,
            "n_annotators_tested": n_tested, "n_annotators_skipped": n_skipped,
            "per_annotator": per, "note": None}
