"""Distinctive terms (Monroe, Colaresi & Quinn 2008): the log-odds with an informative Dirichlet prior
against a brute-force loop over the paper's formula, against statsmodels' 2 x 2 log odds ratio on the
table with the prior's pseudo-counts, and the tokeniser on Korean reasons."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rater1001.stats.terms import log_odds_dirichlet, tokenize
from rater1001.stats.welch import score_difference
from statsmodels.stats.contingency_tables import Table2x2

WORDS = st.sampled_from(["공감", "형식적", "위로", "비슷하다", "맥락", "자연스럽다", "번역체", "구체적"])


def brute_force(group: Counter, rest: Counter, prior: Counter, a0: float) -> dict:
    """Monroe et al. (2008) eqs. 16 and 20, term by term."""
    n_i, n_j, n_p = sum(group.values()), sum(rest.values()), sum(prior.values())
    out = {}
    for w in set(group) | set(rest):
        a = a0 * prior[w] / n_p
        d = math.log((group[w] + a) / (n_i + a0 - group[w] - a)) - math.log((rest[w] + a) / (n_j + a0 - rest[w] - a))
        var = 1 / (group[w] + a) + 1 / (rest[w] + a)
        out[w] = (d, d / math.sqrt(var))
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(WORDS, min_size=1, max_size=40),
    st.lists(WORDS, min_size=1, max_size=40),
    st.floats(min_value=1.0, max_value=2000.0),
)
def test_log_odds_equals_the_formula_term_by_term(words_i, words_j, a0):
    assume(len(set(words_i) | set(words_j)) > 1)  # one term alone leaves nothing to be distinctive against
    group, rest = Counter(words_i), Counter(words_j)
    got = log_odds_dirichlet(group, rest, group + rest, a0).set_index("term")
    expected = brute_force(group, rest, group + rest, a0)
    assert set(got.index) == set(expected)
    for w, (d, z) in expected.items():
        assert got.loc[w, "log_odds"] == pytest.approx(d, rel=1e-9, abs=1e-12)
        assert got.loc[w, "z"] == pytest.approx(z, rel=1e-9, abs=1e-12)
    assert list(got.z) == sorted(got.z, reverse=True)


def test_log_odds_is_the_odds_ratio_of_the_table_with_pseudo_counts():
    group = Counter({"형식적": 30, "위로": 25, "공감": 5, "맥락": 40})
    rest = Counter({"형식적": 4, "위로": 6, "공감": 50, "맥락": 60})
    a0 = 300.0
    got = log_odds_dirichlet(group, rest, group + rest, a0).set_index("term")
    n_i, n_j, prior = sum(group.values()), sum(rest.values()), group + rest
    for w in group:
        a = a0 * prior[w] / sum(prior.values())
        table = Table2x2(np.array([[group[w] + a, n_i + a0 - group[w] - a], [rest[w] + a, n_j + a0 - rest[w] - a]]))
        assert got.loc[w, "log_odds"] == pytest.approx(table.log_oddsratio, rel=1e-10)
    assert list(got.index[:2]) == ["형식적", "위로"]  # over-used in the group
    assert got.loc["공감", "z"] < 0  # under-used


def test_the_prior_keeps_a_term_seen_once_from_ranking_first():
    """The reason for the prior: without it a term seen once in the group only tops the list."""
    group = Counter({"형식적": 40, "드문말": 1, "맥락": 60})
    rest = Counter({"형식적": 5, "맥락": 80})
    ranked = log_odds_dirichlet(group, rest, group + rest, 500.0)
    assert ranked.loc[0, "term"] == "형식적"
    assert ranked.set_index("term").loc["드문말", "z"] < ranked.set_index("term").loc["형식적", "z"]


def test_tokenize_keeps_korean_words_and_drops_positions():
    assert tokenize("응답 2은 '힘내세요.' 같은 형식적 위로에 그친다. Tie!") == [
        "응답",
        "힘내세요",
        "같은",
        "형식적",
        "위로에",
        "그친다",
        "tie",
    ]
    assert tokenize("１축： 응답 １, 정이 깊다") == ["응답", "정이", "깊다"]  # NFKC: full-width digits are digits
    assert tokenize(None) == [] and tokenize("") == []


def test_score_difference_is_welchs_t_interval():
    a, b = [1, 1, 0.5, 0, 1, 0.5, 1], [0, 0.5, 0, 0, 1, 0]
    got = score_difference(a, b)
    ma, mb, va, vb = np.mean(a), np.mean(b), np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    from scipy.stats import t

    assert got.difference == pytest.approx(ma - mb)
    assert got.ci_low == pytest.approx(ma - mb - t.ppf(0.975, df) * se)
    assert got.ci_high == pytest.approx(ma - mb + t.ppf(0.975, df) * se)
    assert got.p_value == pytest.approx(2 * t.sf(abs(ma - mb) / se, df))
    assert math.isnan(score_difference([1], [0, 1]).difference)
