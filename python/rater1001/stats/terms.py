"""Distinctive terms of one group of texts against the others: the weighted log-odds ratio with an
informative Dirichlet prior (Monroe, Colaresi & Quinn 2008, "Fightin' Words", section 3.5).

For a term w, the group's counts y_w^i (total n^i), the other texts' counts y_w^j (total n^j) and a
prior alpha_w (total alpha_0):

    delta_w = log((y_w^i + alpha_w) / (n^i + alpha_0 - y_w^i - alpha_w))
            - log((y_w^j + alpha_w) / (n^j + alpha_0 - y_w^j - alpha_w))
    var(delta_w) ~= 1 / (y_w^i + alpha_w) + 1 / (y_w^j + alpha_w)
    z_w = delta_w / sqrt(var(delta_w))

The informative prior is the whole corpus's term shares scaled to alpha_0 pseudo-counts
(alpha_w = alpha_0 * y_w / n), which shrinks rare terms towards "not distinctive" instead of
ranking a term seen once in one group first. delta_w is the log odds ratio of the 2 x 2 table
[[y_w^i + alpha_w, n^i + alpha_0 - y_w^i - alpha_w], [y_w^j + alpha_w, n^j + alpha_0 - y_w^j - alpha_w]].
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import numpy as np
import pandas as pd

DEFAULT_PRIOR_TOTAL = 500.0
_TOKEN = re.compile(r"\w+")


def tokenize(text: str | None) -> list[str]:
    """Words of a text after NFKC normalisation and case folding.

    Parameters
    ----------
    text : str or None
        A judge's reason (or any text); None or empty gives no words.

    Returns
    -------
    list of str
        The words (``\\w+`` runs) in order. A word that starts with a digit is dropped: in a
        judge's reason it names a position ("응답 2은", "1번"), not content.

    Notes
    -----
    No morphological analysis: a Korean word keeps its particle (공감을 and 공감이 are two
    terms), so counts are of surface forms.

    References
    ----------
    Unicode Standard Annex #15, normalization form NFKC; the lab log's pairwise judge study, the
    judges' reasons (docs/judge.md).

    Examples
    --------
    >>> tokenize("공감을 잘 했다. 응답 2은 Empathy!")
    ['공감을', '잘', '했다', '응답', 'empathy']
    """
    if not text:
        return []
    return [w for w in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()) if not w[0].isdigit()]


def log_odds_dirichlet(
    group: Counter, rest: Counter, prior: Counter | None = None, prior_total: float = DEFAULT_PRIOR_TOTAL
) -> pd.DataFrame:
    """Weighted log-odds ratio of each term, one group of texts against the rest, with an
    informative Dirichlet prior.

    Parameters
    ----------
    group, rest : collections.Counter
        Term counts of the group's texts and of the other texts.
    prior : collections.Counter, optional
        Term counts that set the prior's shares; defaults to group + rest (the whole corpus).
    prior_total : float, default 500
        alpha_0, the prior's total pseudo-count.

    Returns
    -------
    pandas.DataFrame
        term, n_group, n_rest, prior (alpha_w), log_odds (delta_w), se, z; sorted by z, most
        distinctive of ``group`` first. A term outside the prior (alpha_w = 0 with a zero count)
        has no finite estimate and is left out.

    Notes
    -----
    alpha_w = alpha_0 y_w / n over the prior's counts;
    delta_w = log((y_w^i + alpha_w) / (n^i + alpha_0 - y_w^i - alpha_w))
    - log((y_w^j + alpha_w) / (n^j + alpha_0 - y_w^j - alpha_w)),
    se_w = sqrt(1 / (y_w^i + alpha_w) + 1 / (y_w^j + alpha_w)), z_w = delta_w / se_w.

    References
    ----------
    Monroe, Colaresi & Quinn (2008), "Fightin' Words: Lexical feature selection and evaluation for
    identifying the content of political conflict", Political Analysis 16(4), section 3.5; the
    lab log's pairwise judge study, the judges' reasons (docs/judge.md).

    Examples
    --------
    Group (a: 3, b: 1) against rest (a: 1, b: 3), a uniform prior of 2 pseudo-counts (alpha = 1
    each): delta_a = log(4 / 2) - log(2 / 4) = 2 log 2, se = sqrt(1/4 + 1/2), z = 1.600755:

    >>> from collections import Counter
    >>> r = log_odds_dirichlet(Counter(a=3, b=1), Counter(a=1, b=3), prior=Counter(a=1, b=1), prior_total=2.0)
    >>> print(r[["term", "log_odds", "se", "z"]].round(6).to_string(index=False))
    term  log_odds       se         z
       a  1.386294 0.866025  1.600755
       b -1.386294 0.866025 -1.600755
    """
    prior = prior if prior is not None else group + rest
    terms = sorted(set(group) | set(rest))
    cols = ["term", "n_group", "n_rest", "prior", "log_odds", "se", "z"]
    if not terms:
        return pd.DataFrame(columns=cols)
    n_prior = float(sum(prior.values()))
    y_i = np.array([group.get(t, 0) for t in terms], float)
    y_j = np.array([rest.get(t, 0) for t in terms], float)
    alpha = prior_total * np.array([prior.get(t, 0) for t in terms], float) / n_prior
    n_i, n_j = y_i.sum(), y_j.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = np.log((y_i + alpha) / (n_i + prior_total - y_i - alpha)) - np.log(
            (y_j + alpha) / (n_j + prior_total - y_j - alpha)
        )
        se = np.sqrt(1.0 / (y_i + alpha) + 1.0 / (y_j + alpha))
    out = pd.DataFrame(
        {
            "term": terms,
            "n_group": y_i.astype(int),
            "n_rest": y_j.astype(int),
            "prior": alpha,
            "log_odds": delta,
            "se": se,
            "z": delta / se,
        }
    )
    # A term outside the prior has alpha 0 and no finite estimate on one side: not ranked.
    out = out[np.isfinite(out["z"])]
    return out.sort_values(["z", "term"], ascending=[False, True], ignore_index=True)
