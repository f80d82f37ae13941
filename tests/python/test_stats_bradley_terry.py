"""rater1001.stats.bradley_terry against Davidson's two-player closed form, logistic regression
(Bradley-Terry without ties), planted strengths, separation and an optimiser that stops."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from rater1001.stats import bradley_terry


def _comparisons(i, j, outcomes):
    return pd.DataFrame({"item_i": i, "item_j": j, "outcome": outcomes})


def test_davidson_two_players_closed_form():
    """Two players are a saturated trinomial: pi_A/pi_B = W/L and nu = T/sqrt(W L)."""
    W, L, T = 12, 5, 7
    comps = _comparisons(["A"] * (W + L + T), ["B"] * (W + L + T), ["i"] * W + ["j"] * L + ["tie"] * T)
    fit = bradley_terry.bradley_terry_davidson(comps, reference="B")
    a = fit.strengths.set_index("item").loc["A"]
    assert a["log_strength"] == pytest.approx(math.log(W / L), abs=1e-6)
    assert fit.tie_parameter == pytest.approx(T / math.sqrt(W * L), rel=1e-5)
    assert fit.strengths.set_index("item").loc["B", "log_strength"] == 0.0


def test_bradley_terry_without_ties_equals_logistic_regression():
    rng = np.random.default_rng(4)
    truth = {"P": 0.0, "K": 0.4, "H": -0.6, "M": -1.2}
    items = list(truth)
    rows = []
    for _ in range(1500):
        i, j = rng.choice(items, 2, replace=False)
        p = 1 / (1 + math.exp(-(truth[i] - truth[j])))
        rows.append((i, j, "i" if rng.random() < p else "j"))
    comps = pd.DataFrame(rows, columns=["item_i", "item_j", "outcome"])
    fit = bradley_terry.bradley_terry_davidson(comps, reference="P")
    free = [x for x in items if x != "P"]
    X = np.column_stack([(comps["item_i"] == x).astype(float) - (comps["item_j"] == x).astype(float) for x in free])
    ref = sm.Logit((comps["outcome"] == "i").astype(float), X).fit(disp=0)
    got = fit.strengths.set_index("item")
    assert fit.tie_parameter == 0.0
    np.testing.assert_allclose(got.loc[free, "log_strength"], ref.params, atol=1e-5)
    np.testing.assert_allclose(got.loc[free, "se"], ref.bse, rtol=1e-3)


def test_davidson_recovers_planted_strengths_and_tie_parameter():
    rng = np.random.default_rng(11)
    truth = {"P": 0.0, "K": 0.5, "H": -0.5, "Q": -1.0}
    nu = 0.8
    items = list(truth)
    rows = []
    for _ in range(6000):
        i, j = rng.choice(items, 2, replace=False)
        wi, wj = math.exp(truth[i]), math.exp(truth[j])
        wt = nu * math.sqrt(wi * wj)
        rows.append((i, j, rng.choice(["i", "j", "tie"], p=np.array([wi, wj, wt]) / (wi + wj + wt))))
    fit = bradley_terry.bradley_terry_davidson(
        pd.DataFrame(rows, columns=["item_i", "item_j", "outcome"]), reference="P"
    )
    got = fit.strengths.set_index("item")
    for item, value in truth.items():
        if item == "P":
            continue
        assert got.loc[item, "ci_low"] < value < got.loc[item, "ci_high"], item
        assert abs(got.loc[item, "log_strength"] - value) < 4 * got.loc[item, "se"]
    assert fit.tie_parameter == pytest.approx(nu, abs=0.1)


def test_bradley_terry_reports_separated_items_instead_of_infinity():
    comps = _comparisons(["K", "K", "M", "M"], ["P", "P", "P", "P"], ["i", "tie", "j", "j"])
    got = bradley_terry.bradley_terry_davidson(comps, reference="P").strengths.set_index("item")
    assert np.isnan(got.loc["M", "log_strength"]) and "no wins and no ties" in got.loc["M", "note"]
    assert np.isfinite(got.loc["K", "log_strength"])


def test_bradley_terry_that_does_not_converge_reports_null_strengths(monkeypatch):
    """An optimiser that stops early (here: returns its start, flagged unsuccessful) leaves a
    gradient far from 0: every strength but the reference's is NULL with the reason."""
    from scipy import optimize as scipy_optimize

    comps = pd.DataFrame(
        {
            "item_i": ["P"] * 30 + ["K"] * 30,
            "item_j": ["K"] * 30 + ["Q"] * 30,
            "outcome": ["i"] * 22 + ["j"] * 6 + ["tie"] * 2 + ["i"] * 20 + ["j"] * 10,
        }
    )
    assert bradley_terry.bradley_terry_davidson(comps, reference="P").converged
    stopped = lambda fun, x0, **kw: scipy_optimize.OptimizeResult(
        x=np.asarray(x0, float), success=False, message="stopped", fun=fun(x0, *kw["args"])
    )
    monkeypatch.setattr(bradley_terry.optimize, "minimize", stopped)
    fit = bradley_terry.bradley_terry_davidson(comps, reference="P")
    table = fit.strengths.set_index("item")
    assert not fit.converged and math.isnan(fit.tie_parameter)
    assert table.loc["P", "log_strength"] == 0.0
    for item in ("K", "Q"):
        assert math.isnan(table.loc[item, "log_strength"]) and "did not converge (stopped" in table.loc[item, "note"]
