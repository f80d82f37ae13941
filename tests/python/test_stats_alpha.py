"""Krippendorff's alpha: Python closed forms and SQL macros against Krippendorff's published
examples and the `krippendorff` package (independent references)."""

from __future__ import annotations

import json

import duckdb
import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE
from rater1001.stats import alpha as A
from stats_helpers import delta_alpha_interval, reliability_matrix_to_long
from stats_sql import alpha_interval_sql, macros, run

EXAMPLES = json.loads((REFERENCE / "krippendorff_examples.json").read_text())
# Fallback keeps the suite runnable outside this machine: the same data, copied from the file.
CASES = [(name, level, published) for name, ex in EXAMPLES.items() for level, published in ex["alpha"].items()]


def long(name):
    data = np.array(EXAMPLES[name]["reliability_data"], dtype=float)
    return reliability_matrix_to_long(data)


def decimals(published: float) -> int:
    return len(repr(published).split(".")[1])


def sql_alpha(df: pd.DataFrame, level: str, group_by=()) -> pd.DataFrame:
    if level == "interval":
        sql = alpha_interval_sql("ratings", "image_id", "rating", list(group_by))
    else:
        sql = macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level, list(group_by))
    return run(sql, ratings=df)


@pytest.mark.parametrize("name,level,published", CASES)
def test_python_alpha_matches_published_example(name, level, published):
    got = A.alpha(long(name), level)
    assert round(got.alpha, decimals(published)) == pytest.approx(published, abs=1e-12)


@pytest.mark.parametrize("name,level,published", CASES)
def test_sql_coincidence_alpha_matches_published_example(name, level, published):
    got = run(macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level), ratings=long(name))
    assert round(float(got.alpha.iloc[0]), decimals(published)) == pytest.approx(published, abs=1e-12)


def test_units_counted_are_pairable_ones():
    # Krippendorff 2011: unit 12 has one value only, so 11 pairable units and 40 pairable values.
    for res in (A.alpha(long("krippendorff_2011"), "interval"), A.alpha(long("krippendorff_2011"), "nominal")):
        assert (res.n_units, res.n_values) == (11, 40)
    sql = sql_alpha(long("krippendorff_2011"), "interval")
    assert (int(sql.n_units[0]), int(sql.n_values[0])) == (11, 40)


def random_matrix(rng, raters=12, units=40, missing=0.5, values=9):
    data = rng.integers(1, values + 1, size=(raters, units)).astype(float)
    # Give units a shared signal so alpha is not ~0 (a weaker test).
    data = np.clip(data + rng.integers(-2, 3, size=units), 1, values)
    data[rng.random(data.shape) < missing] = np.nan
    return data


@pytest.mark.parametrize("seed", range(4))
def test_all_routes_equal_krippendorff_package_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    data = random_matrix(rng)
    df = reliability_matrix_to_long(data)
    for level in A.LEVELS:
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert A.alpha(df, level).alpha == pytest.approx(ref, abs=1e-10)
        assert float(sql_alpha(df, level).alpha[0]) == pytest.approx(ref, abs=1e-10)
        coinc = run(macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level), ratings=df)
        assert float(coinc.alpha[0]) == pytest.approx(ref, abs=1e-10)


def test_grouped_sql_alpha_equals_per_group_package():
    rng = np.random.default_rng(11)
    frames = []
    for dim in ("valence", "arousal"):
        for emo in ("happy", "sad", "fear"):
            d = reliability_matrix_to_long(random_matrix(rng, raters=8, units=25)).assign(dimension=dim, category=emo)
            frames.append(d)
    df = pd.concat(frames, ignore_index=True)
    df["image_id"] = df["category"] + "_" + df["image_id"].astype(str)
    for level in ("interval", "ordinal", "nominal"):
        got = sql_alpha(df, level, ["dimension", "category"]).set_index(["dimension", "category"]).alpha
        assert len(got) == 6
        for (dim, emo), sub in df.groupby(["dimension", "category"]):
            wide = sub.pivot(index="rater", columns="image_id", values="rating").to_numpy()
            ref = krippendorff.alpha(reliability_data=wide, level_of_measurement=level)
            assert got[(dim, emo)] == pytest.approx(ref, abs=1e-10)


def test_delta_alpha_of_adding_a_full_rater_equals_package():
    rng = np.random.default_rng(3)
    data = random_matrix(rng, raters=30, units=60, missing=0.8)
    model = np.clip(np.nanmean(data, axis=0).round() + 1, 1, 9)  # a biased model who rated every unit
    df = reliability_matrix_to_long(data)
    stats = A.sufficient_statistics(df)
    r = delta_alpha_interval(stats, pd.Series(model, index=range(60)))
    ref_base = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    ref_plus = krippendorff.alpha(reliability_data=np.vstack([data, model]), level_of_measurement="interval")
    assert r.without_extra.alpha == pytest.approx(ref_base, abs=1e-10)
    assert r.with_extra.alpha == pytest.approx(ref_plus, abs=1e-10)
    assert r.delta == pytest.approx(ref_plus - ref_base, abs=1e-10)
    # The SQL route adds the model as rows to the stats relation: same number.
    both = pd.concat([df, pd.DataFrame({"rater": -1, "image_id": range(60), "rating": model})])
    got = run(alpha_interval_sql("ratings", "image_id", "rating"), ratings=both)
    assert float(got.alpha[0]) == pytest.approx(ref_plus, abs=1e-10)


def test_closed_form_is_precise_at_scale():
    # 1,440 units x 50 values on a 1-9 scale: the shifted-moment closed form keeps 1e-10.
    rng = np.random.default_rng(5)
    signal = rng.normal(5, 1.2, 1440)
    data = np.clip(np.round(signal + rng.normal(0, 1.5, (50, 1440))), 1, 9)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    df = reliability_matrix_to_long(data)
    assert A.alpha(df).alpha == pytest.approx(ref, abs=1e-10)
    assert float(sql_alpha(df, "interval").alpha[0]) == pytest.approx(ref, abs=1e-10)


def test_undefined_alpha_is_nan_with_reason_not_a_crash():
    constant = pd.DataFrame({"image_id": [1, 1, 2, 2], "rating": [4, 4, 4, 4]})
    res = A.alpha(constant)
    assert np.isnan(res.alpha) and res.reason == "no variation among pairable values"
    lonely = pd.DataFrame({"image_id": [1, 2, 3], "rating": [1, 5, 9]})  # no unit has 2 values
    res = A.alpha(lonely, "ordinal")
    assert np.isnan(res.alpha) and res.n_units == 0 and res.reason == "fewer than two pairable values"
    sql = sql_alpha(constant, "interval")
    assert sql.alpha.isna()[0] and sql.alpha_null_reason[0] == "no variation among pairable values"
    sql = sql_alpha(lonely, "nominal")
    assert sql.alpha.isna()[0] and sql.alpha_null_reason[0] == "fewer than two pairable values"


def test_sql_and_package_agree_on_a_simulated_study_human_only_and_plus_each_model(small_study):
    """The issue's bar on real landing files: alpha and delta alpha per dimension for human-only
    and for every condition added as one more rater, SQL sufficient statistics vs the package."""
    humans = pd.read_parquet(small_study.raw_table("human_ratings"))
    preds = pd.read_parquet(small_study.raw_table("model_predictions"))
    preds = preds.sort_values("run_id").drop_duplicates(["condition_id", "image_id"])
    images = sorted(humans.image_id.unique())
    for dim in ("valence", "arousal"):
        h = humans[["rater_id", "image_id", dim]].rename(columns={dim: "rating"})
        wide = h.pivot(index="rater_id", columns="image_id", values="rating").reindex(columns=images)
        base_ref = krippendorff.alpha(reliability_data=wide.to_numpy(float), level_of_measurement="interval")
        base_sql = float(run(alpha_interval_sql("r", "image_id", "rating"), r=h).alpha[0])
        assert base_sql == pytest.approx(base_ref, abs=1e-9)
        for cond, p in preds.groupby("condition_id"):
            model_row = p.set_index("image_id")[dim].reindex(images).to_numpy(float)
            ref = krippendorff.alpha(
                reliability_data=np.vstack([wide.to_numpy(float), model_row]), level_of_measurement="interval"
            )
            both = pd.concat([h, p[["image_id", dim]].rename(columns={dim: "rating"}).assign(rater_id=cond)])
            got = float(run(alpha_interval_sql("r", "image_id", "rating"), r=both).alpha[0])
            assert got == pytest.approx(ref, abs=1e-9), (dim, cond)
            delta = delta_alpha_interval(A.sufficient_statistics(h), p.set_index("image_id")[dim]).delta
            assert delta == pytest.approx(ref - base_ref, abs=1e-9)


# Krippendorff 2011's values 1-5 spelt as words: alphabetical order (high < low < medium < very
# high < very low) is not the scale's order, and the ordinal statistic depends on the order.
WORDS = ["very low", "low", "medium", "high", "very high"]


def as_words(name):
    df = long(name)
    return df.assign(rating=df["rating"].map(lambda v: WORDS[int(v) - 1]))


def test_ordinal_alpha_on_labels_uses_the_declared_order():
    published = EXAMPLES["krippendorff_2011"]["alpha"]["ordinal"]
    got = A.alpha(as_words("krippendorff_2011"), "ordinal", order=WORDS)
    assert round(got.alpha, 3) == published == 0.815
    sql = run(
        macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", "ordinal", order=WORDS),
        ratings=as_words("krippendorff_2011"),
    )
    assert float(sql.alpha.iloc[0]) == pytest.approx(got.alpha, abs=1e-12)
    # the declared order comes from the label seed's display_order
    from rater1001.study import FactorLabel, Study

    labels = tuple(FactorLabel("level", w, w, (), 6 - i) for i, w in enumerate(reversed(WORDS)))
    study = Study("s", 1, 5, ("rating",), ("rating",), labels)
    assert A.alpha(as_words("krippendorff_2011"), "ordinal", order=study.levels("level")).alpha == got.alpha


def test_ordinal_alpha_on_labels_without_an_order_is_an_error():
    df = as_words("krippendorff_2011")
    with pytest.raises(ValueError, match="declared level order"):
        A.alpha(df, "ordinal")
    with pytest.raises(ValueError, match=r"'very high'.*not in the declared level order"):
        A.alpha(df, "ordinal", order=WORDS[:3] + ["high"])
    m = macros("alpha_coincidence")
    with pytest.raises(duckdb.Error, match="needs their declared level order"):
        run(m.alpha_coincidence("ratings", "image_id", "rating", "ordinal"), ratings=df)
    with pytest.raises(duckdb.Error, match="very high.*not in the declared level order"):
        run(m.alpha_coincidence("ratings", "image_id", "rating", "ordinal", order=WORDS[:4]), ratings=df)
    # nominal alpha has no order to get wrong
    assert A.alpha(df, "nominal").alpha == pytest.approx(EXAMPLES["krippendorff_2011"]["alpha"]["nominal"], abs=5e-4)
