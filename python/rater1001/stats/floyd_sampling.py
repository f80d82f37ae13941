"""Sampling without replacement at scale: distinct positions for many draws at once by Floyd's
algorithm, vectorised over entries (the small-pool and k-human bootstrap draws; docs/stats.md,
"Resampling at scale")."""

from __future__ import annotations

import numpy as np


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
