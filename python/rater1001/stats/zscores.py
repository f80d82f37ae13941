"""z-scores against the human distribution and the human leave-one-out baseline (paper section
3.4.3, Tables 4d/4e/5d/5e; docs/stats.md).

    z_ij = (x_ij - M_j) / S_j                 S_j the sample SD (ddof=1) of image j's ratings
    W1SD = share of images with |z| <= 1      (1.0 inclusive, as the paper's 1[|z| <= 1.0])

Human LOO: rating y_h of an image with n ratings, sum T and sum of squares Q is scored against the
other n' = n - 1 ratings (T' = T - y_h, Q' = Q - y_h^2) with the closed forms (the SQL twins are
macros/leave_one_out.sql)

    M^(-h)  = T' / n'
    SS^(-h) = (n' Q' - T'^2) / n'              exact on an integer scale; zero below a tolerance
                                               relative to n' Q' (the scale of the ratings)
    S^(-h)  = sqrt(SS^(-h) / (n' - 1))         (needs n >= 3)

A zero SD gives z = NaN: such images are counted (n_zero_sd) and left out of mean |z| and W1SD,
never silently dropped and never given an infinite z. A missing model answer is different: it
counts against the model, as outside 1 SD in W1SD (w1sd_answered_only and n_missing beside).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def zscore(x, mean, sd) -> np.ndarray:
    """z of a value against a reference distribution, elementwise.

    Parameters
    ----------
    x, mean, sd : array_like
        The value (a model's answer, or a human rating), the reference mean M_j and the reference
        sample SD S_j (ddof = 1), broadcast against each other.

    Returns
    -------
    numpy.ndarray
        z, NaN where ``sd`` is 0 or NaN (undefined, never infinite).

    Notes
    -----
    ``z_ij = (x_ij - M_j) / S_j``. A zero SD means every human gave the same value; such images
    are counted (``n_zero_sd``) and left out of the z summaries by :func:`summarise`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    Answer 5 against mean 4 and SD 2 is half an SD above; an SD of 0 gives no z:

    >>> zscore([5.0, 5.0], 4.0, [2.0, 0.0])
    array([0.5, nan])
    """
    x, mean, sd = (np.asarray(a, dtype=float) for a in (x, mean, sd))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), np.nan)


# Relative size below which n' Q' - T'^2 counts as 0: far above double rounding (~1e-16 per
# operation), far below the smallest real spread of any rating scale with at most 1e6 steps.
LOO_REL_TOL = 1e-12


def loo_mean(n, total, y) -> np.ndarray:
    """Mean of an image's other ratings when rating ``y`` is left out (closed form).

    Parameters
    ----------
    n, total : array_like
        Number of ratings of the image and their sum T.
    y : array_like
        The rating left out.

    Returns
    -------
    numpy.ndarray
        ``M^(-h)``; NaN when the image has fewer than 2 ratings.

    Notes
    -----
    ``M^(-h) = (T - y_h) / (n - 1)``. SQL twin: ``loo_mean`` in macros/leave_one_out.sql.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    Ratings (2, 4, 4), T = 10; leaving out a 4 leaves (2, 4), mean 3:

    >>> loo_mean(3, 10, 4)
    array(3.)
    """
    n, total, y = (np.asarray(a, dtype=float) for a in (n, total, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 2, (total - y) / (n - 1), np.nan)


def loo_ss(n, total, total_sq, y) -> np.ndarray:
    """Sum of squared deviations of an image's other ratings when ``y`` is left out.

    Parameters
    ----------
    n, total, total_sq : array_like
        Number of ratings of the image, their sum T and their sum of squares Q.
    y : array_like
        The rating left out.

    Returns
    -------
    numpy.ndarray
        ``SS^(-h)``; NaN when the image has fewer than 2 ratings.

    Notes
    -----
    With ``n' = n - 1``, ``T' = T - y``, ``Q' = Q - y^2``: ``SS^(-h) = (n' Q' - T'^2) / n'``. On an
    integer scale every term is an integer, so a zero SS is exactly 0; the numerator counts as 0
    below ``LOO_REL_TOL * n' Q'`` (a tolerance relative to the size of the ratings).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    Ratings (2, 4, 4): T = 10, Q = 36. Leaving out a 4 leaves (2, 4), whose SS is 1 + 1 = 2:

    >>> loo_ss(3, 10, 36, 4)
    array(2.)
    """
    n, total, total_sq, y = (np.asarray(a, dtype=float) for a in (n, total, total_sq, y))
    k, rest, rest_sq = n - 1, total - y, total_sq - y * y
    scaled = k * rest_sq - rest * rest
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = np.where(scaled <= LOO_REL_TOL * k * rest_sq, 0.0, scaled / k)
        return np.where(n >= 2, ss, np.nan)


def loo_sd(n, total, total_sq, y) -> np.ndarray:
    """Sample SD (ddof = 1) of an image's other ratings when ``y`` is left out.

    Parameters
    ----------
    n, total, total_sq : array_like
        Number of ratings of the image, their sum and their sum of squares.
    y : array_like
        The rating left out.

    Returns
    -------
    numpy.ndarray
        ``S^(-h)``; NaN when the image has fewer than 3 ratings.

    Notes
    -----
    ``S^(-h) = sqrt(SS^(-h) / (n - 2))`` with ``SS^(-h)`` from :func:`loo_ss`. SQL twin:
    ``loo_sd`` in macros/leave_one_out.sql. The z of a human rating against the others of its
    image is ``zscore(y, loo_mean(...), loo_sd(...))``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    Ratings (2, 4, 4), leaving out a 4: the others (2, 4) have SD sqrt(2):

    >>> round(float(loo_sd(3, 10, 36, 4)), 6)
    1.414214
    """
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 3, np.sqrt(loo_ss(n, total, total_sq, y) / (n - 2)), np.nan)


@dataclass(frozen=True)
class ZSummary:
    mean_abs_z: float  # over rows with a defined z; NaN when there is none
    w1sd: float  # share within 1 SD; a missing model answer counts as outside (see w1sd_counting_missing)
    n_images: int  # rows with a defined z (images for a model; ratings for human LOO)
    n_zero_sd: int  # rows whose reference SD was 0 (or undefined), excluded from the two shares
    n_missing: int = 0  # model answers that are missing, counted against the model in w1sd
    w1sd_answered_only: float = float("nan")  # the share over answered images only, shown beside


def w1sd_counting_missing(w1sd_answered, n_scored, n_missing):
    """W1SD with every missing model answer counted as outside 1 SD.

    Parameters
    ----------
    w1sd_answered : array_like
        Share of the scored (answered, z defined) images with ``|z| <= 1``.
    n_scored : array_like
        Number of scored images.
    n_missing : array_like
        Number of images the model did not answer.

    Returns
    -------
    numpy.ndarray
        ``within / (scored + missing)``: 0 when every answer is missing, NaN when there is nothing
        at all.

    Notes
    -----
    ``W1SD = W1SD_answered * n_scored / (n_scored + n_missing)``: the tool's missing-answer policy
    (docs/stats.md, "Missing model answers: one policy"). SQL twin: macro
    ``w1sd_counting_missing`` (macros/zscore_summary.sql).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    8 scored images of which 6 are within 1 SD (0.75), and 2 unanswered: 6 / 10.

    >>> float(w1sd_counting_missing(0.75, 8, 2))
    0.6
    """
    w, n, k = (np.asarray(a, dtype=float) for a in (w1sd_answered, n_scored, n_missing))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n + k > 0, np.where(n > 0, w, 0.0) * n / (n + k), np.nan)


def missing_answers(model, human_sd) -> np.ndarray:
    """Which stimuli are missing answers under the missing-answer policy.

    Parameters
    ----------
    model : array_like
        The model's value per stimulus; NaN where it gave none (never answered or unparsed).
    human_sd : array_like
        The human SD per stimulus; 0 or NaN (one rating) where it has no z.

    Returns
    -------
    numpy.ndarray of bool
        True where the model gave no value and the human SD is > 0.

    Notes
    -----
    A stimulus whose human SD is 0 or undefined has no z whoever answers it, so it is out of W1SD
    answered or not and never a missing answer: the stimuli W1SD is over do not depend on which
    ones the model answered (docs/stats.md, "Missing model answers: one policy"). SQL twin:
    ``n_missing`` of models/marts/zscores/zscore_summary.sql.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3;
    docs/stats.md, "Missing model answers: one policy".

    Examples
    --------
    Unanswered with SD 1 (missing), unanswered with SD 0 (out of W1SD), answered with SD 1.

    >>> missing_answers([float("nan"), float("nan"), 3.0], [1.0, 0.0, 1.0]).tolist()
    [True, False, False]
    """
    model, sd = np.asarray(model, dtype=float), np.asarray(human_sd, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.isnan(model) & (sd > 0)


def summarise(z, threshold: float = 1.0, n_missing: int = 0) -> ZSummary:
    """Mean |z| and W1SD of a set of z-scores.

    Parameters
    ----------
    z : array_like
        z of the answered rows; NaN where the reference SD was 0 (or undefined).
    threshold : float, default 1.0
        Inclusive bound of "within": ``|z| <= threshold``.
    n_missing : int, default 0
        Model answers that are missing (they have no z and count as outside in ``w1sd``).

    Returns
    -------
    ZSummary
        ``mean_abs_z`` and ``w1sd_answered_only`` over rows with a defined z; ``w1sd`` counting
        missing answers as outside (:func:`w1sd_counting_missing`); ``n_images`` (rows with a
        defined z), ``n_zero_sd`` and ``n_missing``.

    Notes
    -----
    ``W1SD = (1/N) sum_j 1[|z_j| <= 1.0]`` and ``mean |z| = (1/N) sum_j |z_j|`` over the N rows with
    a defined z. SQL twin: ``zscore_summary_columns`` (macros/zscore_summary.sql).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4d/4e/5d/5e); docs/stats.md, "z-scores and the human LOO baseline".

    Examples
    --------
    z = 0.5, -1.0 (inclusive: within), 2.0, one undefined, one missing answer: 2 of 3 scored are
    within, 2 of 4 once the missing answer counts; mean |z| = 3.5 / 3.

    >>> s = summarise([0.5, -1.0, 2.0, float("nan")], n_missing=1)
    >>> s.w1sd, s.w1sd_answered_only, round(s.mean_abs_z, 4), s.n_images, s.n_zero_sd
    (0.5, 0.6666666666666666, 1.1667, 3, 1)
    """
    z = np.asarray(z, dtype=float)
    ok = ~np.isnan(z)
    a = np.abs(z[ok])
    answered = float((a <= threshold).mean()) if ok.any() else float("nan")
    return ZSummary(
        float(a.mean()) if ok.any() else float("nan"),
        float(w1sd_counting_missing(answered, ok.sum(), n_missing)),
        int(ok.sum()),
        int((~ok).sum()),
        int(n_missing),
        answered,
    )
