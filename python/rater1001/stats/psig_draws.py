"""The draws of the bootstrap p_sig as signed-rank codes (stats.bootstrap.p_sig; docs/stats.md,
"Resampling at scale"), reading what is kept per image in memory order.

A drawn (image, uniform) pair picks position floor(u x humans) of the image's humans listed in
value order; that position belongs to the first of the image's (image, value) entries whose
cumulative count exceeds it (a row of a few counts per image, not a slot per human). The draws
of several replicates are packed into one integer each and sorted together
(:func:`drawn_draws`), so that the pass that finds their entries (:func:`drawn_entries`) reads
each image's counts in image order once for all of them, and each condition's pass over its
codes (:func:`drawn_codes`, a row of the conditions x entries table) reads them in the same
order: the per-image tables of a large study do not fit the CPU's cache, and read at random once
per replicate and condition they cost more per draw the larger it is.
"""

from __future__ import annotations

import numpy as np

from .signed_rank import _compiled


def drawn_draws(
    img: np.ndarray, u: np.ndarray, humans: np.ndarray, sort: bool, out: np.ndarray | None = None
) -> np.ndarray:
    """Each drawn (image, uniform) pair as one integer (image, position, replicate), in order.

    Parameters
    ----------
    img : numpy.ndarray of int, shape (rows, draws)
        Drawn images, one row per replicate.
    u : numpy.ndarray of float, shape (rows, draws)
        One uniform on [0, 1) per draw.
    humans : numpy.ndarray of int, shape (images,)
        Humans per image.
    sort : bool
        Sort them (by image, then position, then replicate), so that what is read per image is
        read in memory order by :func:`drawn_codes`.
    out : numpy.ndarray of int64, optional
        Where to write them (a reused buffer costs no page faults; a fresh one does).

    Returns
    -------
    numpy.ndarray of int64, shape (rows x draws,)
        ((image << position bits) | position) << replicate bits | replicate, position =
        floor(u x humans) (the float product truncated, as NumPy's ``(u * humans[img])
        .astype(int64)``); :func:`drawn_entries` reads them.

    Notes
    -----
    A replicate's order does not matter to its test, so the draws of several replicates can be
    sorted together; the replicate rides in the low bits.

    References
    ----------
    docs/stats.md, "Resampling at scale".

    Examples
    --------
    Replicate 0 draws image 1 (position 0 of 2), replicate 1 image 0 (position 2 of 3): with
    2 position bits and 1 replicate bit, (0 << 2 | 2) << 1 | 1 = 5 and (1 << 2 | 0) << 1 | 0 = 8:

    >>> import numpy as np
    >>> drawn_draws(np.array([[1], [0]]), np.array([[0.2], [0.9]]), np.array([3, 2]), True).tolist()
    [5, 8]
    """
    rows, n = img.shape
    p_bits, r_bits = _bits(int(humans.max(initial=1))), _bits(rows)
    if _bits(len(humans)) + p_bits + r_bits > 62:
        raise ValueError(f"{len(humans)} images x {int(humans.max())} humans x {rows} replicates do not fit one int64")
    out = np.empty(rows * n, dtype=np.int64) if out is None else out
    if out.size:
        _pack(img, u, humans, p_bits, r_bits, out)
        if sort:
            out.sort()
    return out


def _bits(count: int) -> int:
    """Bits that hold 0 .. count - 1."""
    return max(1, int(count - 1).bit_length())


@_compiled
def _pack(img, u, humans, p_bits, r_bits, out):  # pragma: no cover - compiled
    rows, n = img.shape
    for r in range(rows):
        for j in range(n):
            i = img[r, j]
            p = np.int64(u[r, j] * np.float64(humans[i]))
            out[r * n + j] = (((np.int64(i) << p_bits) | p) << r_bits) | r


def drawn_entries(
    draws: np.ndarray,
    rows: int,
    humans: np.ndarray,
    cum: np.ndarray | None,
    width: int,
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The entry each draw picks and where its code goes among its replicate's.

    Parameters
    ----------
    draws : numpy.ndarray of int64
        :func:`drawn_draws` of ``rows`` replicates.
    rows : int
        Replicates.
    humans : numpy.ndarray of int, shape (images,)
        Humans per image (as given to :func:`drawn_draws`).
    cum : numpy.ndarray of int, shape (images, width), optional
        Each image's cumulative count of humans over its entries (values in order); None when
        every entry is one human (position p is entry p).
    width : int
        Entries per image (image i's j-th entry is i x width + j).
    out : tuple of two numpy.ndarray of int64, optional
        Where to write entry and slot.

    Returns
    -------
    entry, slot : numpy.ndarray of int64, shape like draws
        Draw d picks entry[d] and is the (slot[d] mod draws per replicate)-th draw of replicate
        slot[d] // draws per replicate: :func:`drawn_codes` puts its code at slot[d].

    Notes
    -----
    Position p of image i is entry i x width + #{j : cum_ij <= p}: the same entry as listing the
    image's humans one slot each and taking slot p.

    References
    ----------
    docs/stats.md, "Resampling at scale".

    Examples
    --------
    Image 0 has 2 humans of its first value and 3 of its second, image 1 one human; replicate 0
    draws image 0 at u = .5 (position 2: entry 1), replicate 1 image 1 (entry 2 x 1 + 0):

    >>> import numpy as np
    >>> humans, cum = np.array([5, 1]), np.array([[2, 5], [1, 1]])
    >>> d = drawn_draws(np.array([[0], [1]]), np.array([[0.5], [0.3]]), humans, True)
    >>> [x.tolist() for x in drawn_entries(d, 2, humans, cum, 2)]
    [[1, 2], [0, 1]]
    """
    entry, slot = (np.empty(len(draws), dtype=np.int64), np.empty(len(draws), dtype=np.int64)) if out is None else out
    if len(draws):
        p_bits, r_bits = _bits(int(humans.max(initial=1))), _bits(rows)
        _locate(
            draws,
            p_bits,
            r_bits,
            np.empty((0, 0), np.int32) if cum is None else cum,
            width,
            len(draws) // rows,
            entry,
            slot,
        )
    return entry, slot


@_compiled
def _locate(draws, p_bits, r_bits, cum, width, n, entry, slot):  # pragma: no cover - compiled
    taken = np.zeros(np.int64(1) << r_bits, dtype=np.int64)
    r_mask, p_mask = (np.int64(1) << r_bits) - 1, (np.int64(1) << p_bits) - 1
    counted = cum.shape[0] > 0
    for d in range(len(draws)):
        key = draws[d]
        r, cell = key & r_mask, key >> r_bits
        i, p = cell >> p_bits, cell & p_mask
        e = 0
        if counted:
            while cum[i, e] <= p:
                e += 1
        else:
            e = p
        entry[d] = i * width + e
        slot[d] = r * n + taken[r]
        taken[r] += 1


def drawn_codes(
    codes: np.ndarray, entry: np.ndarray, slot: np.ndarray, rows: int, out: np.ndarray | None = None
) -> np.ndarray:
    """One condition's codes of a block's draws, a row per replicate.

    Parameters
    ----------
    codes : numpy.ndarray of int32, shape (entries,)
        The condition's signed code of each entry.
    entry, slot : numpy.ndarray of int
        :func:`drawn_entries` of the block's draws.
    rows : int
        Replicates.
    out : numpy.ndarray of int32, optional
        Where to write them (rows x draws per replicate).

    Returns
    -------
    numpy.ndarray of int32, shape (rows, draws per replicate)
        out.flat[slot[d]] = codes[entry[d]].

    Notes
    -----
    The codes are read in the draws' order: in image order, memory order, when they were sorted.

    References
    ----------
    docs/stats.md, "Resampling at scale".

    Examples
    --------
    >>> import numpy as np
    >>> drawn_codes(np.array([10, 11, 12], dtype=np.int32), np.array([1, 2]), np.array([0, 1]), 2).tolist()
    [[11], [12]]
    """
    shape = (rows, len(entry) // max(rows, 1))
    out = np.empty(shape, dtype=np.int32) if out is None else out.reshape(shape)
    if out.size:
        _place(codes, entry, slot, out.reshape(-1))
    return out


@_compiled
def _place(codes, entry, slot, out):  # pragma: no cover - compiled
    for d in range(len(entry)):
        out[slot[d]] = codes[entry[d]]
