"""Dimensional agreement: Pearson with reasons, Bland-Altman, folded-normal MAE, and the human MAE
baselines of Table S8, each against an independent computation (their SQL twins: test_twins.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from rater1001.stats import agreement as G
from stats_helpers import folded_normal_mae


def test_pearson_equals_numpy_and_gives_reasons():
    rng = np.random.default_rng(0)
    h, x = rng.normal(5, 1, 50), rng.normal(5, 1, 50)
    assert G.pearson(h, x).r == pytest.approx(np.corrcoef(h, x)[0, 1], abs=1e-12)
    const = G.pearson(h, np.full(50, 9.0))  # GPT-4o-mini's happy valence (Table 4b dash)
    assert math.isnan(const.r) and const.reason == "model gives one constant value (SD 0)"
    assert G.pearson(np.full(5, 3.0), x[:5]).reason == "human means are constant (SD 0)"
    x_missing = x.copy()
    x_missing[:48] = np.nan
    assert G.pearson(h, x_missing).reason == "fewer than 3 images with both values"


def test_bland_altman_equals_direct_formulas():
    rng = np.random.default_rng(1)
    h = rng.uniform(1, 9, 200)
    x = h - 1.3 + rng.normal(0, 0.7, 200)
    x[[3, 17]] = np.nan  # a condition that skipped two images
    ba = G.bland_altman(h, x)
    d = (h - x)[~np.isnan(x)]
    assert (ba.n, ba.n_missing) == (198, 2)
    assert ba.bias == pytest.approx(d.mean()) and ba.sd_d == pytest.approx(d.std(ddof=1))
    assert ba.loa_upper - ba.loa_lower == pytest.approx(2 * 1.96 * d.std(ddof=1))
    assert ba.systematicity == pytest.approx(abs(d.mean()) / d.std(ddof=1))
    assert ba.mae == pytest.approx(np.abs(d).mean())


def test_systematicity_is_the_same_in_bland_altman_and_the_verdicts():
    # A pure offset (SD_d 0, bias 1) is +inf everywhere; no difference at all is undefined everywhere.
    cases = {
        "offset": (np.array([5.0, 6, 7]), np.array([4.0, 5, 6])),
        "equal": (np.array([5.0, 6, 7]),) * 2,
        "noisy": (np.array([5.0, 6, 7, 3]), np.array([4.0, 5.5, 6, 1])),
    }
    for k, (h, x) in cases.items():
        ba = G.bland_altman(h, x)
        assert G.systematicity(ba.bias, ba.sd_d) == ba.systematicity or (np.isnan(ba.systematicity) and k == "equal")
    assert G.bland_altman(*cases["offset"]).systematicity == math.inf
    # an offset of 1.5 whose differences carry a rounding residue (SD_d 2.6e-16) is still a pure offset
    residue = G.bland_altman(np.array([0.0, 0.0, -3.44]), np.array([-1.5, -1.5, -3.44 - 1.5]))
    assert 0 < residue.sd_d < 1e-15 and residue.systematicity == math.inf


def test_one_pearson_serves_the_judge_marts_too():
    from rater1001.marts import judge as judge_marts

    assert judge_marts.pearson is G.pearson
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=30), rng.normal(size=30)
    r = G.pearson(a, b)
    from scipy import stats as sps

    ref = sps.pearsonr(a, b)
    assert (r.r, r.p_value) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-12)


def test_folded_normal_approximation_is_the_s4_formula():
    # S4: MAE ~ sqrt(bias^2 + (2/pi) SD_d^2). Table S5's Gemini row (1.280, 1.617) prints 1.82.
    # (Six of S5's eight printed values do not follow the printed formula, e.g. GPT-4o-mini's
    # 1.018 / 1.596 gives 1.63, not 1.58; docs/stats.md records this. We implement the formula.)
    assert round(G.mae_approximation(1.280, 1.617), 2) == 1.82
    assert G.mae_approximation(-0.3, 1.2) == pytest.approx(math.sqrt(0.09 + 2 / math.pi * 1.44), abs=1e-15)


def test_exact_folded_normal_mean_equals_simulation_and_approximation_limits():
    rng = np.random.default_rng(2)
    for bias, sd in [(0.0, 1.0), (0.5, 1.4), (-2.0, 0.5)]:
        sim = np.abs(rng.normal(bias, sd, 1_000_000)).mean()
        assert folded_normal_mae(bias, sd) == pytest.approx(sim, abs=0.003)
    # The S4 shortcut is exact at bias 0 and for |bias| >> SD.
    assert G.mae_approximation(0, 1.3) == pytest.approx(folded_normal_mae(0, 1.3), abs=1e-12)
    assert G.mae_approximation(5, 0.2) == pytest.approx(folded_normal_mae(5, 0.2), abs=0.005)


def test_human_mae_baselines_equal_brute_force():
    rng = np.random.default_rng(3)
    images = [rng.integers(1, 10, int(rng.integers(2, 12))) for _ in range(30)]
    loo, pairs = [], []
    for y in images:
        for h in range(len(y)):
            loo.append(abs(y[h] - np.delete(y, h).mean()))
        pairs += [abs(a - b) for a, b in itertools.combinations(y, 2)]
    counts = np.array([np.bincount(y, minlength=10)[1:] for y in images])
    n = counts.sum(axis=1)
    mean = np.array([y.mean() for y in images])
    assert G.human_loo_mae(n, mean, counts) == pytest.approx(np.mean(loo), abs=1e-12)
    assert G.human_pairwise_mae(counts) == pytest.approx(np.mean(pairs), abs=1e-12)
