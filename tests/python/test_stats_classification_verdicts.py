"""rater1001.stats.classification_verdicts: the levels on tiny inputs, as data, the paper's Table 8
classification column from its recalls, and the aggregates."""

from __future__ import annotations

import dataclasses

import pandas as pd
from conftest import REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import classification_verdicts, verdict_rules

TABLES = REFERENCE / "paper_tables"


def within(k):
    return pd.DataFrame({"condition_id": [f"m{i}" for i in range(len(k))], "kappa_within": k})


def test_classification_levels_on_tiny_inputs():
    """The seed's rows on four conditions, by hand: all pass -> calibratable; 3 of 4 (a strict
    majority, not all) -> model_dependent; 2 of 4 or fewer -> not_replaceable; ties pass."""
    v = classification_verdicts.classification_verdict
    assert v(within([0.80, 0.9, 0.95, 1.0])).verdict == "calibratable"
    dep = v(within([0.9, 0.85, 0.81, 0.79]))
    assert (dep.verdict, dep.n_conditions_passing, dep.passing_conditions) == ("model_dependent", 3, "m0,m1,m2")
    assert dep.model_dependent is False  # note 1 literally needs another condition below .40
    assert v(within([0.9, 0.85, 0.81, 0.3])).model_dependent is True
    half = v(within([0.9, 0.85, 0.5, 0.3]))
    assert (half.verdict, half.model_dependent) == ("not_replaceable", True)
    assert v(within([0.1, 0.2])).verdict == "not_replaceable"
    assert v(within([])).verdict == "not_replaceable"
    assert "model_dependent: share(pass) > replaceable_min_share" in dep.rule


def test_classification_levels_are_data(tmp_path):
    """Note 1 read literally as a row: some pass and another below kappa_fail."""
    literal = dataclasses.replace(
        verdict_rules.default_rules(),
        classification_verdict_order=("model_dependent", "not_replaceable"),
        classification_levels=(
            ("model_dependent", "any(pass) and any(kappa_within < kappa_fail)"),
            ("not_replaceable", "always"),
        ),
    )
    assert classification_verdicts.classification_verdict(within([0.9, 0.3]), literal).verdict == "model_dependent"
    assert classification_verdicts.classification_verdict(within([0.9, 0.5]), literal).verdict == "not_replaceable"
    # one-vs-rest kappa instead of the within-category one: another column, same engine
    ovr = dataclasses.replace(verdict_rules.default_rules(), classification_statistic="kappa")
    c = within([0.9, 0.9]).assign(kappa=[0.9, 0.5])
    assert classification_verdicts.classification_verdict(c, ovr).verdict == "not_replaceable"
    assert classification_verdicts.classification_verdict(c).verdict == "calibratable"


def table8_classification() -> pd.Series:
    t = pd.read_csv(TABLES / "table8_verdicts.tsv", sep="\t", dtype=str)
    words = {"보정 필요": "calibratable", "모델 의존": "model_dependent", "대체 불가": "not_replaceable"}
    return pd.Series([next(v for k, v in words.items() if k in cell) for cell in t["범주 분류"]], index=t.iloc[:, 0])


def test_paper_recall_reproduces_table8_classification_column():
    """Table 3's recalls (six categories) -> kappa_within -> the seed's levels -> Table 8's first
    column, all six cells (happy / neutral calibratable, fear / anger model dependent, disgust /
    sad not replaceable)."""
    from rater1001.stats.kappa import kappa_within

    recall = pd.read_csv(TABLES / "table3_recall_by_emotion.tsv", sep="\t", index_col=0).drop(columns="Human")
    expected = table8_classification()
    assert len(expected) == 6
    flagged = set()
    for category, row in recall.iterrows():
        c = pd.DataFrame({"condition_id": row.index, "kappa_within": kappa_within(row.to_numpy(), 6)})
        got = classification_verdicts.classification_verdict(c)
        assert got.verdict == expected[category], category
        flagged |= {category} if got.model_dependent else set()
    assert flagged == {"분노", "혐오"}  # note 1 read literally: not Table 8's fear, and disgust too
    # the same rows on the one-vs-rest kappa (from Tables 3 / 3a) do not give Table 8: neutral's
    # absorbed sad faces put 5 of 8 below .80 (docs/stats.md)
    precision = pd.read_csv(TABLES / "table3a_precision_by_emotion.tsv", sep="\t", index_col=0).drop(columns="Human")
    r, p = recall.loc["중립"], precision.loc["중립"]
    tp, fp = 240 * r, 240 * r / p - 240 * r
    po = (1440 - fp - (240 - tp)) / 1440
    pe = (tp + fp) / 1440 * (1 / 6) + (1 - (tp + fp) / 1440) * (5 / 6)
    ovr = pd.DataFrame({"condition_id": r.index, "kappa": (po - pe) / (1 - pe), "kappa_within": 1.0})
    rules = dataclasses.replace(verdict_rules.default_rules(), classification_statistic="kappa")
    assert classification_verdicts.classification_verdict(ovr, rules).verdict == "not_replaceable"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12),
    st.floats(0, 1, allow_nan=False),
    st.floats(0, 1, allow_nan=False),
)
def test_aggregates_count_the_conditions(values, threshold, share):
    """Each aggregate against its definition over the conditions, counted by hand."""
    c = pd.DataFrame({"x": values})
    passes = c["x"] >= threshold
    k = sum(v >= threshold for v in values)
    held = lambda text: classification_verdicts.level_holds(
        verdict_rules.parse_level_rule(text, {"t": threshold}), c, passes
    )  # noqa: E731
    assert held("all(pass)") == (k == len(values))
    assert held("any(pass)") == (k > 0)
    assert held("none(pass)") == (k == 0)
    assert held("any(not pass)") == (k < len(values))
    assert held(f"share(pass) > {share!r}") == (k / len(values) > share)
    assert held("count(x < t) >= 2") == (sum(v < threshold for v in values) >= 2)
    assert held("any(pass) and any(not pass)") == (0 < k < len(values))
