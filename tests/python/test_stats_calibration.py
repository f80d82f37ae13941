"""rater1001.stats.calibration: identity folds never split a face, affine and offset maps recover
planted distortions out of sample (parameter recovery), constant answers fall back with a note."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import calibration


def _images(n_ids=40, categories=("happy", "sad"), seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_ids):
        for e in categories:
            rows.append(
                {
                    "image_id": f"id{i}-{e}",
                    "identity_id": f"id{i}",
                    "category": e,
                    "human_mean": rng.normal(6 if e == "happy" else 4, 0.8),
                    "human_sd": 1.2,
                }
            )
    return pd.DataFrame(rows)


def test_folds_keep_every_identity_in_one_fold_and_are_balanced():
    ids = np.repeat([f"p{i}" for i in range(23)], 6)
    folds = calibration.identity_folds(ids, n_folds=5, seed=3)
    per_id = pd.Series(folds).groupby(ids).nunique()
    assert (per_id == 1).all()
    sizes = pd.Series(folds).groupby(ids).first().value_counts()
    assert sizes.max() - sizes.min() <= 1 and len(sizes) == 5


def test_affine_distortion_is_recovered_exactly_out_of_sample():
    img = _images()
    # model answers are an exact affine distortion of the human mean, different per category
    a0 = img["category"].map({"happy": 0.5, "sad": 2.0})
    b0 = img["category"].map({"happy": 3.0, "sad": -4.0})
    img["model"] = a0 * img["human_mean"] + b0
    scores, answers = calibration.calibration_table(img, n_folds=5)
    aff = scores[scores.method == "affine"].set_index("category")
    assert aff.loc["happy", "mean_a"] == pytest.approx(2.0) and aff.loc["happy", "mean_b"] == pytest.approx(-6.0)
    assert aff.loc["sad", "mean_a"] == pytest.approx(0.5) and aff.loc["sad", "mean_b"] == pytest.approx(2.0)
    assert aff["mae"].max() < 1e-9 and (aff["w1sd"] == 1.0).all()
    before = scores[scores.method == "none"].set_index("category")
    assert (before["mae"] > 0.3).all() and before.loc["sad", "w1sd"] < 1


def test_offset_recovers_a_planted_bias_and_scores_are_out_of_sample():
    img = _images(n_ids=60, seed=1)
    rng = np.random.default_rng(2)
    img["model"] = img["human_mean"] - img["category"].map({"happy": -1.5, "sad": 2.0}) + rng.normal(0, 0.3, len(img))
    scores, answers = calibration.calibration_table(img, n_folds=4, seed=11)
    off = scores[scores.method == "offset"].set_index("category")
    se = 0.3 / np.sqrt(60)
    assert abs(off.loc["happy", "mean_b"] - (-1.5)) < 4 * se and abs(off.loc["sad", "mean_b"] - 2.0) < 4 * se
    # independent check of out-of-sample: recompute one image's calibrated value from the other folds
    folds = calibration.identity_folds(img["identity_id"], 4, 11)
    sad = img[img.category == "sad"].reset_index(drop=True)
    f_sad = folds[img.category.to_numpy() == "sad"]
    target = sad.iloc[0]
    train = sad[f_sad != f_sad[0]]
    expected = target["model"] + (train["human_mean"] - train["model"]).mean()
    got = answers[(answers.image_id == target["image_id"]) & (answers.method == "offset")]["calibrated"].item()
    assert got == pytest.approx(expected)
    assert (
        abs(off.loc["sad", "bias"]) < 0.1 < abs(scores.set_index(["category", "method"]).loc[("sad", "none"), "bias"])
    )


def test_constant_answers_fall_back_to_offset_and_keep_one_value():
    img = _images(n_ids=20, categories=("happy",))
    img["model"] = 9.0
    scores, answers = calibration.calibration_table(img, n_folds=5, scale=(1, 9))
    aff = scores[scores.method == "affine"].iloc[0]
    assert aff["n_folds_offset_fallback"] == 5
    # one value per fold at most: an affine map cannot add distinct values within a fold
    folds = calibration.identity_folds(img["identity_id"], 5)
    vals = answers[answers.method == "affine"]["calibrated"].to_numpy()
    assert all(len(np.unique(vals[folds == f])) == 1 for f in range(5))
    assert answers["calibrated"].between(1, 9).all()


def test_fit_map_is_ordinary_least_squares():
    rng = np.random.default_rng(4)
    x = rng.normal(5, 1, 200)
    y = 0.7 * x + 1.1 + rng.normal(0, 0.2, 200)
    m = calibration.fit_map(x, y, "affine")
    X = np.column_stack([x, np.ones_like(x)])
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    assert (m.a, m.b) == pytest.approx(tuple(coef))
    with pytest.raises(ValueError, match="method"):
        calibration.fit_map(x, y, "isotonic")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(float("nan"))), max_size=8))
def test_mean_of_the_fold_maps_is_pandas_mean_skipping_nan(values):
    # calibration_table averages the fold maps without a frame: exactly what Series.mean gives
    got, expected = calibration._mean_skipna(values), pd.Series(values, dtype=float).mean()
    assert (np.isnan(got) and np.isnan(expected)) or got == expected


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.booleans())
def test_calibration_table_is_each_category_calibrated_on_its_own(seed, n_folds, constant):
    # the table from arrays equals the composition its docstring names: per category (sorted),
    # each method's calibrate_out_of_sample then score, the answers concatenated in that order
    img = _images(n_ids=12, categories=("sad", "happy", "angry"), seed=seed)
    img["model"] = 5.0 if constant else np.round(img["human_mean"] + 0.5, 1)
    img.loc[img.index[::7], "model"] = np.nan
    scores, answers = calibration.calibration_table(img, n_folds=n_folds, seed=seed, scale=(1, 9))
    folds = calibration.identity_folds(img["identity_id"], n_folds, seed)
    rows, pieces = [], []
    for category in sorted(img["category"].unique()):
        at = (img["category"] == category).to_numpy()
        part = img[at]
        for method in calibration.METHODS:
            if method == "none":
                values, maps = part["model"].to_numpy(float), None
            else:
                values, maps = calibration.calibrate_out_of_sample(part, method, folds[at], (1, 9))
            row = {"category": category, "method": method}
            row.update(vars(calibration.score(values, part["human_mean"], part["human_sd"])))
            if maps is not None:
                row.update(mean_a=maps["a"].mean(), mean_b=maps["b"].mean(), n_folds=len(maps))
                row["n_folds_offset_fallback"] = int(maps["note"].notna().sum())
            rows.append(row)
            pieces.append(pd.DataFrame({"image_id": part["image_id"], "method": method, "calibrated": values}))
    expected = pd.DataFrame(rows)
    pd.testing.assert_frame_equal(scores[expected.columns], expected, check_dtype=False, rtol=0, atol=0)
    expected_answers = pd.concat(pieces, ignore_index=True)
    assert answers["image_id"].tolist() == expected_answers["image_id"].tolist()
    assert answers["method"].tolist() == expected_answers["method"].tolist()
    np.testing.assert_array_equal(answers["calibrated"].to_numpy(float), expected_answers["calibrated"].to_numpy(float))
