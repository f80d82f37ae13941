"""rater1001.stats.verdict_rules: the rule values live only in the seed; a bad seed, a bad level rule
or a missing one is an error naming its file, row and value."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import verdict_rules
from rater1001.stats.verdict_rules import condition_names

SEED = Path(__file__).resolve().parents[2] / "seeds" / "verdict_rules.csv"


def test_rule_values_live_only_in_the_seed():
    # No default in the code can drift from the seed: VerdictRules declares none, and a seed that
    # leaves a parameter out is an error naming it.
    assert all(f.default is dataclasses.MISSING for f in dataclasses.fields(verdict_rules.VerdictRules))
    assert verdict_rules.default_rules() == verdict_rules.load_rules(SEED)
    assert (verdict_rules.default_rules().delta_alpha_scope, verdict_rules.default_rules().w1sd_margin) == (
        "pooled",
        0.0,
    )


def test_a_seed_without_a_parameter_is_an_error(tmp_path):
    p = tmp_path / "rules.csv"
    p.write_text("".join(l for l in SEED.read_text().splitlines(keepends=True) if not l.startswith("w1sd_margin")))
    with pytest.raises(ValueError, match=r"rules.csv: parameter\(s\) \['w1sd_margin'\] are not declared"):
        verdict_rules.load_rules(p)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("share(pass)", "need a comparison"),
        ("all(pass) > 0.5", "takes no comparison"),
        ("most(pass)", "cannot read clause"),
        ("any(kappa >= strict)", "neither a number nor a numeric parameter"),
    ],
)
def test_a_bad_level_rule_names_its_row(tmp_path, text, message):
    p = tmp_path / "rules.csv"
    lines = [
        l
        if not l.startswith("classification_when_model_dependent,")
        else f'classification_when_model_dependent,"{text}",classification,x,y\n'
        for l in SEED.read_text().splitlines(keepends=True)
    ]
    p.write_text("".join(lines))
    row = next(i for i, l in enumerate(lines, start=1) if l.startswith("classification_when_model_dependent"))
    with pytest.raises(ValueError, match=rf"rules.csv: row {row}: classification_when_model_dependent: .*{message}"):
        verdict_rules.load_rules(p)


def test_a_level_without_its_rule_or_a_rule_without_its_level_is_an_error(tmp_path):
    p = tmp_path / "rules.csv"
    text = SEED.read_text()
    p.write_text(
        "".join(l for l in text.splitlines(keepends=True) if not l.startswith("classification_when_calibratable"))
    )
    with pytest.raises(ValueError, match="lists 'calibratable' but no classification_when_calibratable row"):
        verdict_rules.load_rules(p)
    p.write_text(text + "classification_when_partial,any(pass),classification,x,y\n")
    with pytest.raises(ValueError, match="level 'partial' is not in classification_verdict_order"):
        verdict_rules.load_rules(p)
    p.write_text(
        text.replace("classification_when_not_replaceable,always", "classification_when_not_replaceable,none(pass)")
    )
    with pytest.raises(ValueError, match="must be 'always'"):
        verdict_rules.load_rules(p)


def test_bad_seed_is_reported_with_file_row_and_value(tmp_path):
    p = tmp_path / "rules.csv"
    p.write_text("parameter,value\nkappa_pass,high\n")
    with pytest.raises(ValueError, match=r"rules.csv: row 2: parameter 'kappa_pass' needs a number, got 'high'"):
        verdict_rules.load_rules(p)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["m1", "m2", "m10", "b", "Z"]),
            st.one_of(st.sampled_from([0.0, -0.0, 0.5, 0.7, 1.0]), st.just(float("nan"))),
            st.booleans(),
        ),
        max_size=9,
    )
)
def test_condition_names_are_the_mask_sorted_best_first_as_pandas_sorts(rows):
    # oracle: pandas' sort_values, largest first with NULLs last, ties by condition_id
    frame = pd.DataFrame(rows, columns=["condition_id", "w1sd", "named"])
    expected = frame[frame["named"].astype(bool)].sort_values(["w1sd", "condition_id"], ascending=[False, True])
    assert condition_names(frame, frame["named"].astype(bool), "w1sd") == ",".join(expected["condition_id"].astype(str))
