"""Sampling without replacement at scale: distinct positions for many draws at once by Floyd's
algorithm, vectorised over entries (the small-pool and k-human bootstrap draws; docs/stats.md,
"Resampling at scale")."""

from __future__ import annotations

import numpy as np

from .signed_rank import _compiled


def floyd_steps(m, size, rng: np.random.Generator):
    """Distinct positions drawn uniformly without replacement for every entry, by Floyd's
    algorithm.

    Parameters
    ----------
    m : numpy.ndarray of int
        Positions available per entry, [0, m).
    size : array_like of int
        How many to draw per entry (broadcast against m; at most m).
    rng : numpy.random.Generator

    Yields
    ------
    numpy.ndarray
        One array of m's shape per step (max(size) steps); an entry drawing fewer starts later
        and holds -1 until then.

    Notes
    -----
    Floyd: for j = m - s, ..., m - 1 draw t uniform in [0, j]; take t unless already taken, else
    take j. One uniform per drawn position instead of a random key per available one; every
    s-subset is equally likely. Taken positions are the bits of one word when every m <= 64 (the
    usual pool), else compared with the earlier steps.

    References
    ----------
    Bentley & Floyd (1987), "Programming pearls: a sample of brilliance", Communications of the
    ACM 30(9), 754-757; docs/stats.md, "Resampling at scale".

    Examples
    --------
    Drawing all 4 of 4 positions gives each exactly once:

    >>> import numpy as np
    >>> steps = np.stack(list(floyd_steps(np.array([4]), np.array([4]), np.random.default_rng(0))), axis=-1)
    >>> sorted(steps[0].tolist())
    [0, 1, 2, 3]
    """
    m = np.asarray(m, dtype=np.int64)
    size = np.broadcast_to(np.asarray(size, dtype=np.int64), m.shape)
    steps = int(size.max(initial=0))
    yield from floyd_steps_from(m, size, steps, (rng.random(m.shape) for _ in range(steps)))


def floyd_steps_from(m: np.ndarray, size: np.ndarray, steps: int, uniforms):
    """:func:`floyd_steps` on uniforms drawn by the caller.

    Parameters
    ----------
    m, size : numpy.ndarray
        Per entry, the pool size and how many distinct positions to draw (size <= m).
    steps : int
        At least max(size): a slice of the entries keeps the steps of the whole.
    uniforms : iterable of numpy.ndarray
        Step s's uniforms on [0, 1), m's shape each.

    Yields
    ------
    numpy.ndarray
        Step s's position per entry, -1 where the entry draws fewer than ``steps`` positions and
        its draw has not begun.

    Notes
    -----
    Floyd's step s draws t uniformly from [0, j], j = m - steps + s, and takes j instead when t
    was taken before; entries with size < steps begin at step steps - size. Drawing the uniforms
    up front lets a caller run the steps on cache-sized slices of the entries.

    References
    ----------
    Bentley & Floyd (1987), "Programming pearls: a sample of brilliance", CACM 30(9), 754-757.

    Examples
    --------
    >>> import numpy as np
    >>> u = [np.array([0.9]), np.array([0.9])]
    >>> [int(t[0]) for t in floyd_steps_from(np.array([3]), np.array([2]), 2, u)]
    [1, 2]
    """
    late = None if (size == steps).all() else steps - size
    taken = np.zeros(m.shape, dtype=np.uint64) if m.max(initial=0) <= 64 else None
    if m.size and (m == m.flat[0]).all():
        m = m.flat[0]  # one pool size: the candidate range is a number, not an array
    earlier = []
    one = np.uint64(1)
    for s, u in enumerate(uniforms):
        j = m - steps + s  # the candidate range grows to [0, j]
        t = (u * (j + 1)).astype(np.int64)
        if taken is not None:
            t = np.where((taken >> t.astype(np.uint64)) & one, j, t)
        elif earlier:
            t = np.where(np.any([e == t for e in earlier], axis=0), j, t)
        if late is not None:
            t = np.where(s >= late, t, -1)
        if taken is not None:
            taken |= (
                one << t.astype(np.uint64)
                if late is None
                else np.where(t >= 0, one << np.maximum(t, 0).astype(np.uint64), np.uint64(0))
            )
        else:
            earlier.append(t)
        yield t


def draw_positions(m, size, rng: np.random.Generator) -> np.ndarray:
    """:func:`floyd_steps` stacked.

    Parameters
    ----------
    m : array_like of int
        Positions available per entry.
    size : array_like of int
        How many to draw per entry.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int
        Shape (*m.shape, max size); unused slots -1.

    Notes
    -----
    The positions of one entry are distinct and uniform over the size-subsets of [0, m).

    References
    ----------
    Bentley & Floyd (1987); docs/stats.md, "Resampling at scale".

    Examples
    --------
    Three of 3 positions are all of them; three of 5 are distinct:

    >>> import numpy as np
    >>> d = draw_positions(np.array([3, 5]), 3, np.random.default_rng(0))
    >>> sorted(d[0].tolist()), len(set(d[1].tolist()))
    ([0, 1, 2], 3)
    """
    m = np.asarray(m)
    steps = list(floyd_steps(m, size, rng))
    return np.stack(steps, axis=-1) if steps else np.full((*m.shape, 0), -1, dtype=np.int64)


def run_table(values: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's first m values as runs of equal neighbours: what :func:`floyd_sums` reads.

    Parameters
    ----------
    values : numpy.ndarray, shape (rows, width)
        Row r's values at positions 0 .. m_r - 1 (what lies beyond is never read).
    m : numpy.ndarray of int, shape (rows,)

    Returns
    -------
    cum : numpy.ndarray of unsigned int, shape (rows, runs)
        Row r's positions before the end of each of its runs (its last run's end, m_r, repeated
        past its runs).
    code : numpy.ndarray of unsigned int, shape (rows, runs)
        Each run's value as an index into ``levels``.
    levels : numpy.ndarray of float
        The distinct values, sorted.

    Notes
    -----
    Position p of row r holds levels[code[r, e]], e = #{j : cum[r, j] <= p}. Rows listed in value
    order (a pool from value counts) have a run per distinct value: a few bytes per row instead of
    eight per position, so a large study's rows stay in the CPU's cache when read at random.

    References
    ----------
    docs/stats.md, "Resampling at scale".

    Examples
    --------
    >>> import numpy as np
    >>> cum, code, levels = run_table(np.array([[1.0, 1, 3], [2, 2, 0]]), np.array([3, 2]))
    >>> cum.tolist(), code.tolist(), levels.tolist()
    ([[2, 3], [2, 2]], [[0, 2], [1, 0]], [1.0, 2.0, 3.0])
    """
    m = np.asarray(m, dtype=np.int64)
    rows, width = values.shape
    inside = np.arange(width) < m[:, None]
    starts = inside.copy()
    starts[:, 1:] &= values[:, 1:] != values[:, :-1]
    runs = starts.sum(axis=1)
    r, p = np.nonzero(starts)
    runs_max = max(int(runs.max(initial=0)), 1)
    e = np.arange(len(r)) - np.repeat(np.cumsum(runs) - runs, runs)  # run index within its row
    levels, inverse = np.unique(values[r, p], return_inverse=True)
    code = np.zeros((rows, runs_max), dtype=np.min_scalar_type(max(len(levels) - 1, 0)))
    code[r, e] = inverse
    cum = np.repeat(m[:, None], runs_max, axis=1).astype(np.min_scalar_type(int(m.max(initial=0))))
    end = np.append(p[1:], 0)  # a run ends where the next starts, the row's last at m
    last = e + 1 == runs[r]
    end[last] = m[r[last]]
    cum[r, e] = end
    return cum, code, levels.astype(float)


def floyd_sums(rows, m, size, uniforms, runs):
    """Sum and sum of squares of the values at :func:`floyd_steps_from`'s positions, per entry,
    in one compiled pass.

    Parameters
    ----------
    rows : numpy.ndarray of int, shape (entries,)
        The row each entry draws from.
    m, size : numpy.ndarray of int, shape (entries,)
        Positions available and how many to draw per entry (size <= m).
    uniforms : numpy.ndarray of float, shape (steps, entries)
        Step s's uniform of each entry, steps >= max(size).
    runs : tuple
        :func:`run_table` of the rows.

    Returns
    -------
    tuple of numpy.ndarray
        (sum, sum of squares) per entry.

    Notes
    -----
    The positions are :func:`floyd_steps_from`'s to the last bit (the same uniforms, the same
    steps, an entry starting at step steps - size), and so are the sums: each adds its values in
    step order from 0, as adding the steps' arrays did; the run of position t is found by
    counting run ends (a few runs) or by bisection (many).

    References
    ----------
    Bentley & Floyd (1987); docs/stats.md, "Resampling at scale".

    Examples
    --------
    Two of the three values (1, 1, 3) at positions 1 and 2 (uniforms .9, .9: see
    :func:`floyd_steps_from`):

    >>> import numpy as np
    >>> runs = run_table(np.array([[1.0, 1, 3]]), np.array([3]))
    >>> s1, s2 = floyd_sums(np.array([0]), np.array([3]), np.array([2]), np.full((2, 1), 0.9), runs)
    >>> s1.tolist(), s2.tolist()
    ([4.0], [10.0])
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    s1, s2 = np.zeros(len(rows)), np.zeros(len(rows))
    cum, code, levels = runs
    if len(rows) and len(uniforms):
        bits = int(np.max(m, initial=0)) <= 64
        _floyd_sums(
            rows,
            np.ascontiguousarray(m, dtype=np.int64),
            np.ascontiguousarray(size, dtype=np.int64),
            np.ascontiguousarray(uniforms, dtype=np.float64),
            cum,
            code,
            levels,
            bits,
            s1,
            s2,
        )
    return s1, s2


@_compiled
def _floyd_sums(rows, m, size, uniforms, cum, code, levels, bits, s1, s2):  # pragma: no cover - compiled
    steps, n = uniforms.shape
    width = cum.shape[1]
    picks = np.empty(steps, dtype=np.int64)
    one = np.uint64(1)
    for e in range(n):  # an entry's steps in a row: its state stays in registers
        i, late, top = rows[e], steps - size[e], m[e] - steps
        taken = np.uint64(0)
        a1, a2 = 0.0, 0.0
        for s in range(late, steps):
            j = top + s
            t = np.int64(uniforms[s, e] * np.float64(j + 1))
            if bits:
                if (taken >> np.uint64(t)) & one:
                    t = j
                taken |= one << np.uint64(t)
            else:
                for q in range(late, s):
                    if picks[q] == t:
                        t = j
                        break
                picks[s] = t
            if width <= 16:  # count the runs ending at or before t, branch-free
                run = 0
                for q in range(width):
                    run += cum[i, q] <= t
            else:
                lo, hi = 0, width - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    if cum[i, mid] <= t:
                        lo = mid + 1
                    else:
                        hi = mid
                run = lo
            v = levels[code[i, run]]
            a1 += v
            a2 += v * v
        s1[e], s2[e] = a1, a2
