"""Replaceability verdicts against the paper's own inputs and outputs (Tables 4e, 5e -> Table 8)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import REFERENCE
from rater1001.stats import verdict_rules
from rater1001.stats import verdicts as V

TABLES = REFERENCE / "paper_tables"
SEED = Path(__file__).resolve().parents[2] / "seeds" / "verdict_rules.csv"
CELL = re.compile(r"^\s*([0-9.]+)\s*\(([0-9.]+)\)\s*$")


def z_table(name: str, measure: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse a 'mean|z| (W1SD)' table into condition rows and the human LOO baseline rows."""
    t = pd.read_csv(TABLES / name, sep="\t", dtype=str)
    rows, base = [], []
    for _, r in t.iterrows():
        category = r.iloc[0]
        for col in t.columns[1:]:
            m = CELL.match(r[col])
            assert m, f"{name}: cannot parse {r[col]!r} in column {col}"
            z, w = float(m.group(1)), float(m.group(2))
            if col == "Human LOO":
                base.append({"category": category, "measure": measure, "loo_w1sd": w, "loo_mean_abs_z": z})
            else:
                rows.append({"category": category, "measure": measure, "condition_id": col, "w1sd": w, "mean_abs_z": z})
    return pd.DataFrame(rows), pd.DataFrame(base)


def paper_inputs():
    v, vb = z_table("table4e_valence_z_by_emotion.tsv", "valence")
    a, ab = z_table("table5e_arousal_z_by_emotion.tsv", "arousal")
    cond, base = pd.concat([v, a], ignore_index=True), pd.concat([vb, ab], ignore_index=True)
    # Disgust x arousal: both print as 0.69; section 4.3 gives the third decimal (LLaMA 0.691 falls
    # short of the human LOO 0.692), which is what decides the cell. Use the paper's precise values.
    cond.loc[
        (cond.category == "혐오") & (cond.measure == "arousal") & (cond.condition_id == "LLaMA-3.2-11B"), "w1sd"
    ] = 0.691
    base.loc[(base.category == "혐오") & (base.measure == "arousal"), "loo_w1sd"] = 0.692
    return cond, base


def table8() -> pd.DataFrame:
    t = pd.read_csv(TABLES / "table8_verdicts.tsv", sep="\t", dtype=str)
    t = t.rename(columns={t.columns[0]: "category"})
    out = []
    for _, r in t.iterrows():
        for measure in ("Valence", "Arousal"):
            cell = r[measure]
            n = re.search(r"\((\d+)개 모델\)", cell)
            verdict = {"⭐": "partial", "❌": "not_replaceable", "✅": "replaceable", "⚠️": "calibratable"}[
                next(k for k in ("⭐", "❌", "✅", "⚠️") if k in cell)
            ]
            out.append(
                {
                    "category": r["category"],
                    "measure": measure.lower(),
                    "verdict": verdict,
                    "n": int(n.group(1)) if n else 0,
                }
            )
    return pd.DataFrame(out)


def test_paper_w1sd_values_reproduce_table8_valence_and_arousal():
    cond, base = paper_inputs()
    got = V.verdict_matrix(cond, base, rules=verdict_rules.load_rules(SEED)).set_index(["category", "measure"])
    expected = table8()
    assert len(expected) == 12
    for _, e in expected.iterrows():
        cell = got.loc[(e.category, e.measure)]
        assert (cell.verdict, cell.n_conditions_passing) == (e.verdict, e.n), (e.category, e.measure)


def test_partial_cells_name_the_models_of_table8_note2():
    cond, base = paper_inputs()
    got = V.verdict_matrix(cond, base).set_index(["category", "measure"])
    # Table 8 note 2, in the note's own order (descending W1SD).
    assert got.loc[("행복", "valence"), "passing_conditions"] == "Qwen3-VL,Gemma3-27B"
    assert got.loc[("혐오", "arousal"), "passing_conditions"] == "Gemma3-4B,Gemma3-27B,Gemma3-12B"
    assert set(got.loc[("분노", "arousal"), "passing_conditions"].split(",")) == {
        "Gemma3-4B",
        "Gemma3-27B",
        "LLaMA-3.2-11B",
        "Gemma3-12B",
    }


def test_stereotyped_flags_match_the_papers_uniform_response_cells():
    cond, base = paper_inputs()
    got = V.verdict_matrix(cond, base).set_index(["category", "measure"])
    flagged = {k for k, row in got.iterrows() if row.stereotyped}
    # 4.3 / 4.6 note 2: happy and fear arousal (Gemma3, |z| 0.30-0.42) and neutral valence (4.4).
    # Neutral arousal is flagged too: GPT-4o-mini's 0.409 vs 0.762 (ratio 0.54) is as far below the
    # human as Gemma3-12B's fear 0.424 vs 0.801 (0.53), which the paper does call stereotyped.
    assert flagged == {("행복", "arousal"), ("공포", "arousal"), ("중립", "valence"), ("중립", "arousal")}
    assert got.loc[("중립", "arousal"), "stereotyped_conditions"] == "GPT-4o"
    assert set(got.loc[("행복", "arousal"), "stereotyped_conditions"].split(",")) == {"Gemma3-27B", "Gemma3-4B"}


def test_ties_pass_and_strict_majority_decides_replaceable():
    base = dict(loo_w1sd=0.70)
    cells = lambda ws: pd.DataFrame({"condition_id": [f"m{i}" for i in range(len(ws))], "w1sd": ws})
    assert V.dimension_verdict(cells([0.70, 0.1]), **base).n_conditions_passing == 1  # exact tie passes
    assert V.dimension_verdict(cells([0.71, 0.72, 0.1, 0.1]), **base).verdict == "partial"  # 2 of 4
    assert V.dimension_verdict(cells([0.71, 0.72, 0.73, 0.1]), **base).verdict == "replaceable"  # 3 of 4
    assert V.dimension_verdict(cells([0.1, 0.2]), **base).verdict == "not_replaceable"


def test_negative_delta_alpha_blocks_a_pass():
    c = pd.DataFrame({"condition_id": ["a", "b"], "w1sd": [0.9, 0.9], "delta_alpha_pooled": [-0.001, 0.002]})
    out = V.dimension_verdict(c, loo_w1sd=0.7)
    assert (out.n_conditions_passing, out.passing_conditions, out.n_conditions_delta_alpha_below_min) == (1, "b", 1)
    c["delta_alpha_pooled"] = -0.01
    assert V.dimension_verdict(c, loo_w1sd=0.7).verdict == "not_replaceable"


def test_delta_alpha_scope_is_a_declared_rule():
    # The demo's case: per category a condition adds -0.0002 to alpha, pooled over all images it
    # adds +0.004. The paper reports (and gates on) the pooled value; per_category is stricter.
    c = pd.DataFrame(
        {
            "condition_id": ["a", "b", "c"],
            "w1sd": [0.9, 0.9, 0.5],
            "delta_alpha": [-0.0002, 0.001, 0.001],
            "delta_alpha_pooled": [0.004, 0.004, 0.004],
        }
    )
    pooled = V.dimension_verdict(c, loo_w1sd=0.7)
    assert (pooled.verdict, pooled.passing_conditions, pooled.delta_alpha_scope) == ("replaceable", "a,b", "pooled")
    assert "pooled delta alpha >= 0" in pooled.rule
    per = V.dimension_verdict(
        c, loo_w1sd=0.7, rules=dataclasses.replace(verdict_rules.default_rules(), delta_alpha_scope="per_category")
    )
    assert (per.verdict, per.passing_conditions, per.delta_alpha_scope) == ("partial", "b", "per_category")
    # inputs that carry only the other scope's delta alpha are an error, never a silent swap
    with pytest.raises(ValueError, match="pooled delta alpha"):
        V.dimension_verdict(c.drop(columns="delta_alpha_pooled"), loo_w1sd=0.7)


def test_pass_rule_reads_the_margins():
    rules = dataclasses.replace(verdict_rules.default_rules(), w1sd_margin=0.05, delta_alpha_min=0.001)
    r = V.condition_passes([0.74, 0.76, 0.80, 0.80], 0.70, [0.01, 0.01, 0.0005, float("nan")], rules)
    assert r.eligible.tolist() == [True, True, False, True] and r.passes.tolist() == [False, True, False, True]


def test_calibratable_order_is_data_paper_anger_valence():
    """Anger valence (Tables 4a/4e): no model passes, but Gemini-T's bias +2.358 with SD_d 0.45 is
    systematic and its LoA (width 1.76) fits inside +-1 human SD (~1.5). Table 8's order says
    not_replaceable; the 3.4.3 sequential order says calibratable."""
    c = pd.DataFrame(
        {"condition_id": ["Gemini-T", "Qwen3-VL"], "w1sd": [0.06, 0.49], "bias": [2.358, 1.466], "sd_d": [0.45, 0.79]}
    )
    table8_order = V.dimension_verdict(c, loo_w1sd=0.70, human_sd=1.5)
    assert table8_order.verdict == "not_replaceable"
    assert table8_order.calibration_candidates == "Gemini-T"  # Qwen: 1.466/0.79 = 1.86 < 2
    text_order = dataclasses.replace(
        verdict_rules.default_rules(), verdict_order=("replaceable", "partial", "calibratable", "not_replaceable")
    )
    assert V.dimension_verdict(c, loo_w1sd=0.70, human_sd=1.5, rules=text_order).verdict == "calibratable"
