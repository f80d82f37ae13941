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
    """Words of a text after NFKC normalisation and case folding. A word that starts with a digit
    is dropped: in a judge's reason it names a position ("응답 2은", "1번"), not content. No
    morphological analysis: a Korean word keeps its particle (공감을, 공감이 are two terms)."""
    if not text:
        return []
    return [w for w in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()) if not w[0].isdigit()]


def log_odds_dirichlet(group: Counter, rest: Counter, prior: Counter | None = None,
                       prior_total: float = DEFAULT_PRIOR_TOTAL) -> pd.DataFrame:
    """One row per term seen in either side: counts, delta (log-odds ratio), its standard error and
    z, sorted by z (most distinctive of `group` first). `prior` defaults to group + rest."""
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
        delta = (np.log((y_i + alpha) / (n_i + prior_total - y_i - alpha))
                 - np.log((y_j + alpha) / (n_j + prior_total - y_j - alpha)))
        se = np.sqrt(1.0 / (y_i + alpha) + 1.0 / (y_j + alpha))
    out = pd.DataFrame({"term": terms, "n_group": y_i.astype(int), "n_rest": y_j.astype(int), "prior": alpha,
                        "log_odds": delta, "se": se, "z": delta / se})
    # A term outside the prior has alpha 0 and no finite estimate on one side: not ranked.
    out = out[np.isfinite(out["z"])]
    return out.sort_values(["z", "term"], ascending=[False, True], ignore_index=True)
