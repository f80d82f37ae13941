"""Small rater pools (paper Limitation 12: does adding a model help or hurt a small pool?;
docs/ablations.md).

Each image keeps only k of its human ratings, drawn without replacement; then human interval alpha
and alpha with each model condition added as one more rater are computed from the per-image
sufficient statistics (stats.alpha_sums.unit_terms and alpha_from_sums, the formula's one home, for
every replicate of a block at once).
Repeated `replicates` times from one seeded generator. In every replicate the images are also
resampled with replacement (resample_images=True, the default), so the reported percentile
interval covers both which raters a study of that size would have had and which images; with
resample_images=False it covers the rater draw only. Seed policy: per k in the given order and
per block of replicates, first the image draws (integers), then the k (or the m - k left out)
ratings of every drawn image by Floyd's algorithm (stats.floyd_sampling); docs/stats.md, "Resampling at
scale".

Input is the per-image value counts (image, value, count): the multiset of an image's ratings is
all a without-replacement draw needs, so no rater identities enter. Images with fewer than k
ratings are left out at that k and counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .alpha_sums import alpha_from_sums, extra_rater_term_sums, unit_terms, with_extra_rater
from .floyd_sampling import draw_positions, floyd_sums, run_table
from .signed_rank import _compiled

SEED = 42
DEFAULT_KS = (2, 3, 5, 10, 20, 50)


def padded_ratings(
    value_counts: pd.DataFrame, unit: str = "image_id", value: str = "value", count: str = "n"
) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's ratings as a NaN-padded matrix, from a long value-count frame.

    Parameters
    ----------
    value_counts : pandas.DataFrame
        One row per (unit, value) with how many ratings gave it.
    unit, value, count : str
        Column names (default image_id, value, n).

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray)
        (units sorted, U x max_m matrix of each unit's ratings in value order, packed left and
        NaN-padded).

    Raises
    ------
    ValueError
        A count that is negative or not whole, naming the unit and the count.

    Notes
    -----
    Row u holds value v repeated n_uv times; the multiset of an image's ratings is all a
    without-replacement draw needs, so no rater identities enter.

    References
    ----------
    docs/ablations.md (small pools).

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"image_id": ["i1", "i1", "i2"], "value": [1, 3, 2], "n": [2, 1, 1]})
    >>> units, ratings = padded_ratings(vc)
    >>> units.tolist(), ratings.tolist()
    (['i1', 'i2'], [[1.0, 1.0, 3.0], [2.0, nan, nan]])
    """
    vc = value_counts[[unit, value, count]].dropna()
    if (vc[count] < 0).any() or (vc[count] % 1 != 0).any():
        bad = vc[(vc[count] < 0) | (vc[count] % 1 != 0)].iloc[0]
        raise ValueError(f"value count must be a non-negative integer; {unit}={bad[unit]!r} has {bad[count]!r}")
    vc = vc[vc[count] > 0]
    # The units are hashed, and only the distinct ones sorted; the rows are then ordered by integer
    # codes. Sorting the rows by their keys compared strings row against row, which at 100x (1.5
    # million rows) cost seconds and grew faster than the rows (docs/performance.md).
    inverse, units = pd.factorize(vc[unit], sort=True)
    values = vc[value].to_numpy(dtype=float)
    order = np.lexsort((values, inverse))
    inverse, values = inverse[order], values[order]
    n = vc[count].to_numpy(dtype=np.int64)[order]
    m = np.bincount(inverse, weights=n, minlength=len(units)).astype(np.int64)
    out = np.full((len(units), int(m.max()) if len(m) else 0), np.nan)
    # written run by run in one compiled pass: arrays of one entry per rating (a unit, a position,
    # a value; 10 million at 100x) were each fresh memory the size of the long table
    _fill_runs(out, inverse, n, values)
    return np.asarray(units), out


@_compiled
def _fill_runs(out, unit, n, values):  # pragma: no cover - compiled
    position, last = 0, -1
    for r in range(len(unit)):
        if unit[r] != last:
            position, last = 0, unit[r]
        for q in range(n[r]):
            out[unit[r], position + q] = values[r]
        position += n[r]


CELLS = 1 << 22  # replicates x images x drawn positions per block
ROW_CELLS = 1 << 14  # replicates x images whose alphas are taken together


@dataclass(frozen=True)
class Pool:
    """A NaN-padded U x max_m rating matrix (packed left) as what every draw from it needs: each
    unit's ratings as runs of equal values (stats.floyd_sampling.run_table), count and totals."""

    runs: tuple  # (cum, code, levels) of floyd_sampling.run_table
    width: int  # max_m, the padded matrix's columns
    m: np.ndarray  # ratings per unit
    total: np.ndarray
    total_sq: np.ndarray

    @classmethod
    def of(cls, ratings: np.ndarray) -> Pool:
        filled = np.nan_to_num(np.asarray(ratings, dtype=float))
        m = (~np.isnan(ratings)).sum(axis=1)
        return cls(run_table(filled, m), filled.shape[1], m, filled.sum(axis=1), (filled**2).sum(axis=1))


def subset_sums(pool: Pool, rows, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Sum and sum of squares of k ratings of each unit, drawn without replacement.

    Parameters
    ----------
    pool : Pool
        The padded ratings with their per-unit counts and totals.
    rows : array_like of int
        Units (index array of any shape into the pool; each needs >= k ratings), drawn
        independently for every entry.
    k : int
        Ratings per unit.
    rng : numpy.random.Generator

    Returns
    -------
    tuple of numpy.ndarray
        (sum, sum of squares) of the drawn ratings, shaped like ``rows``.

    Notes
    -----
    Where k is more than half a unit's ratings, the m - k left out are drawn instead and
    subtracted from the unit's totals (same distribution, fewer draws). Accumulated step by step:
    never materialises rows x max_m, nor rows x k.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Limitation 12; docs/ablations.md (small pools).

    Examples
    --------
    k = 2 of unit (4, 5) is the whole unit, exactly (9, 41); 2 of (1, 2, 3) is one of the pairs
    (1, 2), (1, 3), (2, 3):

    >>> import numpy as np
    >>> s1, s2 = subset_sums(Pool.of(np.array([[1.0, 2, 3], [4, 5, np.nan]])), np.array([0, 1]), 2,
    ...                      np.random.default_rng(0))
    >>> (float(s1[1]), float(s2[1])), (float(s1[0]), float(s2[0])) in {(3.0, 5.0), (4.0, 10.0), (5.0, 13.0)}
    ((9.0, 41.0), True)
    """
    rows = np.asarray(rows, dtype=np.int64)
    m = pool.m[rows].ravel()
    left_out = k > m - k
    size = np.where(left_out, m - k, k)
    # floyd_steps' uniforms, drawn up front (the same stream: one array per step); the steps then
    # run compiled entry by entry, reading each unit's runs (a few bytes) not its row
    uniform = rng.random((int(size.max(initial=0)), len(m)))
    s1, s2 = floyd_sums(rows.ravel(), m, size, uniform, pool.runs)
    s1 = np.where(left_out, pool.total[rows.ravel()] - s1, s1)
    s2 = np.where(left_out, pool.total_sq[rows.ravel()] - s2, s2)
    return s1.reshape(rows.shape), s2.reshape(rows.shape)


def subsample(ratings: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k of each row's ratings, drawn without replacement.

    Parameters
    ----------
    ratings : numpy.ndarray, shape (U, max_m)
        Packed left and NaN-padded, as :func:`padded_ratings` gives them; every row needs >= k.
    k : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (U, k)

    Notes
    -----
    Row u takes the positions :func:`draw_positions` draws from its m_u ratings.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Limitation 12; docs/ablations.md (small pools).

    Examples
    --------
    Two of (4, 5) are both; two of (1, 2, 3) are two distinct ones:

    >>> import numpy as np
    >>> s = subsample(np.array([[1.0, 2, 3], [4, 5, np.nan]]), 2, np.random.default_rng(0))
    >>> sorted(s[1].tolist()), len(set(s[0].tolist())), set(s[0].tolist()) <= {1.0, 2.0, 3.0}
    ([4.0, 5.0], 2, True)
    """
    picks = draw_positions((~np.isnan(ratings)).sum(axis=1), k, rng)
    return np.take_along_axis(ratings, picks, axis=1)


def _interval(values: np.ndarray, level: float) -> tuple[float, float, float]:
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return float(v.mean()), float(lo), float(hi)


def _replicate_alphas(pool, x_all, eligible, k, replicates, rng, resample_images, centre):
    """(replicates,) human alpha and (replicates, C) alpha with each condition, a block of
    replicates at a time: draw the images (with replacement) and k ratings of each, then alpha
    from the summed unit_terms (stats.alpha)."""
    n, c = len(eligible), x_all.shape[1]
    base, plus = np.full(replicates, np.nan), np.full((replicates, c), np.nan)
    if n == 0:
        return base, plus
    block = max(1, CELLS // (n * max(min(k, pool.width - k), 1)))
    # a condition's answers contiguous: the images drawn at random read one small column (an
    # array of the images' rows would bring a cache line per image and condition)
    x_cols = np.ascontiguousarray(x_all.T)
    rows = max(1, ROW_CELLS // n)
    for start in range(0, replicates, block):
        b = min(block, replicates - start)
        units = eligible[rng.integers(0, n, size=(b, n))] if resample_images else np.broadcast_to(eligible, (b, n))
        total, total_sq = subset_sums(pool, units, k, rng)
        # then a few replicates at a time: their arrays stay in the CPU's cache across the
        # conditions (a replicate's sums are its row's, whichever rows are summed with it)
        for r in range(0, b, rows):
            z, out = slice(r, r + rows), slice(start + r, start + min(r + rows, b))
            _alphas(k, total[z], total_sq[z], units[z], x_cols, centre, base[out], plus[out])
    return base, plus


def _alphas(k, total, total_sq, units, x_cols, centre, base, plus):
    """Fill base (human alpha) and plus (alpha with each condition) of the replicates whose k
    drawn ratings per unit sum to total and total_sq."""
    m = np.full(total.shape, float(k))
    terms = unit_terms(m, total, total_sq, centre)
    sums = [t.sum(axis=-1) for t in terms]
    base[:] = alpha_from_sums(*sums)
    for j, x_col in enumerate(x_cols):
        x = x_col[units]
        if k >= 2:  # every unit pairable: only the rated units' terms change
            plus[:, j] = alpha_from_sums(*extra_rater_term_sums(k, terms, sums, x, centre))
        else:
            pooled = with_extra_rater(m, total, total_sq, x)
            plus[:, j] = alpha_from_sums(*(t.sum(axis=-1) for t in unit_terms(*pooled, centre)))


def small_pool_alpha(
    ratings: np.ndarray,
    model: pd.DataFrame | None = None,
    ks=DEFAULT_KS,
    replicates: int = 200,
    seed: int = SEED,
    resample_images: bool = True,
    level: float = 0.95,
) -> pd.DataFrame:
    """Human alpha and delta alpha of each model when every image keeps only k human ratings.

    Parameters
    ----------
    ratings : numpy.ndarray, shape (U, max_m)
        Padded human ratings (:func:`padded_ratings`).
    model : pandas.DataFrame, optional
        U x C model answers aligned with the rows (columns = condition ids; NaN = no answer).
    ks : iterable of int, default (2, 3, 5, 10, 20, 50)
        Pool sizes; images with fewer than k ratings are left out at that k and counted.
    replicates : int, default 200
    seed : int, default 42
    resample_images : bool, default True
        Also resample the images with replacement in every replicate (the interval then covers
        which raters and which images); False covers the rater draw only.
    level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per (k, condition): human_alpha, alpha_with_model, delta_alpha (replicate mean
        and percentile interval each), share_delta_positive, n_images, n_images_excluded, and
        the settings.

    Notes
    -----
    Per replicate: k ratings of every (drawn) image without replacement, then interval alpha
    with and without the model from the summed :func:`rater1001.stats.alpha_sums.unit_terms`;
    delta = alpha(k humans + model) - alpha(k humans). With k = every image's full pool and no
    image resampling each replicate is the closed-form delta alpha.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Limitation 12; Krippendorff (2011); docs/ablations.md (small pools).

    Examples
    --------
    The full pool of units (1, 2) and (3, 4) without image resampling is the closed form: alpha
    .7, and a model answering the unit means 1.5 and 3.5 gives .821429 (see
    :func:`rater1001.stats.alpha.delta_alpha`):

    >>> import numpy as np, pandas as pd
    >>> r = small_pool_alpha(np.array([[1.0, 2], [3, 4]]), pd.DataFrame({"m": [1.5, 3.5]}), ks=[2],
    ...                      replicates=5, resample_images=False).to_dict("records")[0]
    >>> r["human_alpha"], round(r["alpha_with_model"], 6), round(r["delta_alpha"], 6), r["share_delta_positive"]
    (0.7, 0.821429, 0.121429, 1.0)
    """
    model = pd.DataFrame(index=range(len(ratings))) if model is None else model
    x_all = model.to_numpy(dtype=float)
    m_all = (~np.isnan(ratings)).sum(axis=1)
    centre = float(np.nanmean(ratings)) if m_all.sum() else 0.0  # any constant: for precision only
    pool = Pool.of(ratings)
    rng = np.random.default_rng(seed)
    rows = []
    for k in ks:
        eligible = np.flatnonzero(m_all >= k)
        base, plus = _replicate_alphas(pool, x_all, eligible, k, replicates, rng, resample_images, centre)
        delta = plus - base[:, None]
        h_mean, h_lo, h_hi = _interval(base, level)
        common = {
            "k": k,
            "n_images": len(eligible),
            "n_images_excluded": int(len(m_all) - len(eligible)),
            "replicates": replicates,
            "seed": seed,
            "resample_images": resample_images,
            "human_alpha": h_mean,
            "human_alpha_lo": h_lo,
            "human_alpha_hi": h_hi,
        }
        if x_all.shape[1] == 0:
            rows.append({**common, "condition_id": None})
        for c, cond in enumerate(model.columns):
            a_mean, a_lo, a_hi = _interval(plus[:, c], level)
            d_mean, d_lo, d_hi = _interval(delta[:, c], level)
            ok = ~np.isnan(delta[:, c])
            rows.append(
                {
                    **common,
                    "condition_id": cond,
                    "alpha_with_model": a_mean,
                    "alpha_with_model_lo": a_lo,
                    "alpha_with_model_hi": a_hi,
                    "delta_alpha": d_mean,
                    "delta_alpha_lo": d_lo,
                    "delta_alpha_hi": d_hi,
                    "share_delta_positive": float((delta[ok, c] > 0).mean()) if ok.any() else float("nan"),
                }
            )
    return pd.DataFrame(rows)
