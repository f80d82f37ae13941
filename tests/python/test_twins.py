"""The SQL twins (docs/architecture.md, "SQL twins"): the table there names each Python function and
its macro; this file runs both on the same generated inputs and asserts they are equal, one parity
test per row, and checks the macros against the same independent references as their Python twins
(published examples, the `krippendorff` package, brute force). A row without a parity test, or a
parity test without its row, fails."""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path

import duckdb
import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rater1001.stats import agreement as G
from rater1001.stats import alpha as A
from rater1001.stats import alpha_sums as AS
from rater1001.stats import alt_test_scoring as ALT
from rater1001.stats import lmm as LMM
from rater1001.stats import stratified_anova as SA
from rater1001.stats import zscores as Z
from stats_helpers import (
    assert_same,
    brute_alpha,
    brute_force_loo_z,
    brute_loo,
    delta_alpha_interval,
    ragged_images,
    reliability_matrix_to_long,
    studies,
    with_sums,
)
from stats_sql import MACROS, alpha_interval_sql, macros, run

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
ROW = re.compile(
    r"^\| (?P<formula>[^|]+) \| `(?P<python>stats\.[\w.]+)` \| `(?P<macro>\w+)` \(`(?P<file>macros/[\w/]+\.sql)`\) \|$"
)


def twin_rows() -> list[tuple[str, str, str]]:
    """(Python function, macro, macro file) of each row of the "SQL twins" table."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split("### SQL twins", 1)[1]
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    body = [line for line in lines if not line.startswith("| formula")]
    rows = []
    for line in body:
        match = ROW.match(line)
        assert match, (
            f"docs/architecture.md, SQL twins: a row names `stats.<module>.<function>` and `macro` (`macros/<file>.sql`): {line}"
        )
        rows.append((match["python"], match["macro"], match["file"]))
    return rows


ROWS = twin_rows()
PARITY = {}


def parity(python: str, macro: str):
    """Register the parity test of the table's row (python, macro)."""

    def register(test):
        PARITY[(python, macro)] = test
        return test

    return register


# 60 examples for every property here, the macro-vs-brute-force checks included: each macro is also
# held to its Python twin, and the twin to brute force or the krippendorff package in its
# test_stats_* file.
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCALE = st.floats(-5, 12, allow_nan=False).map(lambda v: round(v, 2))


def test_the_table_names_functions_and_macros_that_exist():
    assert len(ROWS) >= 16
    for python, macro, file in ROWS:
        module, name = f"rater1001.{python}".rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name, None)), python
        source = (MACROS.parent / file).read_text(encoding="utf-8")
        assert re.search(rf"{{%-? macro {macro}\(", source), f"{file} has no macro {macro}"


def test_every_row_has_its_parity_test_and_every_parity_test_its_row():
    rows = {(python, macro) for python, macro, _ in ROWS}
    assert rows - PARITY.keys() == set(), "rows of docs/architecture.md's SQL twins without a parity test"
    assert PARITY.keys() - rows == set(), "parity tests without a row in docs/architecture.md's SQL twins"


@pytest.mark.parametrize("python,macro", [(p, m) for p, m, _ in ROWS], ids=[f"{p}~{m}" for p, m, _ in ROWS])
def test_twin_parity(python, macro):
    parity_test = PARITY.get((python, macro))
    assert parity_test, f"docs/architecture.md pairs {python} with the macro {macro}: add its parity test here"
    parity_test()


# --------------------------------------------------------------------------- parity, one per row


def sql_loo(df: pd.DataFrame) -> pd.DataFrame:
    """The SQL route as int_image_human_stats + int_human_loo compute it: integer sums per image,
    then the leave_one_out and zscore macros."""
    m = macros("zscore", "leave_one_out")
    args = ("s.n", "s.total", "s.total_sq", "r.rating")
    mean, sd = m.loo_mean("s.n", "s.total", "r.rating"), m.loo_sd(*args)
    sql = f"""with s as (select image_id, count(*) as n, sum(rating) as total, sum(rating * rating) as total_sq
                        from ratings group by image_id)
              select s.n, s.total, s.total_sq, r.rating, {mean} as loo_mean, {m.loo_ss(*args)} as loo_ss,
                     {sd} as loo_sd, {m.zscore("r.rating", mean, sd)} as loo_z
              from ratings r join s using (image_id) order by r.image_id, r.rater"""
    return run(sql, ratings=df.astype({"rating": "int32"}))


@parity("stats.alpha.sufficient_statistics", "alpha_unit_stats")
@PROPERTY
@given(studies())
def parity_unit_stats(df):
    py = A.sufficient_statistics(df).sort_index()
    sql = run(macros("alpha_sufficient_statistics").alpha_unit_stats("ratings", "image_id", "rating"), ratings=df)
    sql = sql.set_index("unit_id").sort_index()
    assert list(sql.index) == list(py.index)
    for col in ("m", "total", "total_sq"):
        assert_same(sql[col], py[col], col)


@parity("stats.alpha.alpha_interval_from_sufficient", "alpha_interval_from_stats")
@PROPERTY
@given(studies())
def parity_interval_alpha(df):
    s = A.sufficient_statistics(df)
    py = A.alpha_interval_from_sufficient(s["m"], s["total"], s["total_sq"])
    sql = run(alpha_interval_sql("ratings", "image_id", "rating"), ratings=df).iloc[0]
    assert_same([sql.alpha], [py.alpha], "alpha")
    assert (int(sql.n_units), int(sql.n_values)) == (py.n_units, py.n_values)
    assert (sql.alpha_null_reason if isinstance(sql.alpha_null_reason, str) else None) == py.reason


@parity("stats.alpha_sums.with_extra_rater", "with_extra_rater_columns")
@PROPERTY
@given(st.lists(st.tuples(st.integers(0, 50), SCALE, st.one_of(st.none(), SCALE)), min_size=1, max_size=20))
def parity_with_extra_rater(rows):
    m, total, extra = zip(*rows)
    frame = pd.DataFrame(
        {
            "m": np.array(m, dtype=np.int64),
            "total": np.array(total) * np.array(m),
            "total_sq": np.array(total) ** 2 * np.array(m) + 1.5,
            "x": pd.array(extra, dtype="Float64").astype(float),
        }
    )
    py = AS.with_extra_rater(frame.m, frame.total, frame.total_sq, frame.x)
    m_sql = macros("alpha_sufficient_statistics")
    sql = run(f"select {m_sql.with_extra_rater_columns('m', 'total', 'total_sq', 'x', suffix='_plus')} from t", t=frame)
    for col, ref in zip(("m_plus", "total_plus", "total_sq_plus"), py):
        assert_same(sql[col], ref, col)


@parity("stats.alpha.delta_alpha", "delta_alpha")
@PROPERTY
@given(studies(), st.data())
def parity_delta_alpha(df, data):
    units = sorted(df.image_id.unique())
    answers = data.draw(st.lists(st.one_of(st.none(), st.integers(1, 9)), min_size=len(units), max_size=len(units)))
    model = pd.DataFrame({"image_id": units, "rater": -1, "rating": answers}).dropna().astype({"rating": "int64"})
    s = A.sufficient_statistics(df)
    extra = pd.Series(answers, index=units, dtype=float).reindex(s.index)
    py = A.delta_alpha(s["m"], s["total"], s["total_sq"], extra)
    base, plus = alpha_interval_sql("humans", "image_id", "rating"), alpha_interval_sql("pool", "image_id", "rating")
    sql = run(
        f"select {macros('delta_alpha').delta_alpha('plus.alpha', 'base.alpha')} as delta "
        f"from ({base}) as base, ({plus}) as plus",
        humans=df,
        pool=pd.concat([df, model], ignore_index=True),
    )
    assert_same(sql.delta, [py.delta], "delta alpha")


@parity("stats.alpha.alpha_from_value_counts", "alpha_coincidence")
@PROPERTY
@given(studies(), st.sampled_from(A.LEVELS))
def parity_coincidence_alpha(df, level):
    counts, domain = A.value_count_matrix(df, "image_id", "rating")
    py = A.alpha_from_value_counts(counts, domain, level)
    sql = run(macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level), ratings=df)
    row = sql.iloc[0]
    assert_same([row.alpha], [py.alpha], level)
    assert (int(row.n_units), int(row.n_values)) == (py.n_units, py.n_values)


@parity("stats.zscores.loo_mean", "loo_mean")
@PROPERTY
@given(studies())
def parity_loo_mean(df):
    s, sql = with_sums(df), sql_loo(df)
    assert_same(sql.loo_mean, Z.loo_mean(s.n, s.total, s.rating), "loo mean")


@parity("stats.zscores.loo_ss", "loo_ss")
@PROPERTY
@given(studies())
def parity_loo_ss(df):
    s, sql = with_sums(df), sql_loo(df)
    assert_same(sql.loo_ss, Z.loo_ss(s.n, s.total, s.total_sq, s.rating), "loo SS")


@parity("stats.zscores.loo_sd", "loo_sd")
@PROPERTY
@given(studies())
def parity_loo_sd(df):
    s, sql = with_sums(df), sql_loo(df)
    assert_same(sql.loo_sd, Z.loo_sd(s.n, s.total, s.total_sq, s.rating), "loo SD")


@parity("stats.zscores.zscore", "zscore")
@PROPERTY
@given(st.lists(st.tuples(SCALE, SCALE, st.one_of(st.just(0.0), st.floats(0.01, 4))), min_size=1, max_size=20))
def parity_zscore(rows):
    x, mean, sd = (np.array(c, dtype=float) for c in zip(*rows))
    sql = run(
        f"select {macros('zscore').zscore('x', 'm', 's')} as z from t", t=pd.DataFrame({"x": x, "m": mean, "s": sd})
    )
    assert_same(sql.z, Z.zscore(x, mean, sd), "z")


Z_VALUES = st.one_of(st.just(math.nan), st.sampled_from([-1.0, 1.0, 0.0]), st.floats(-4, 4))


@parity("stats.zscores.summarise", "zscore_summary_columns")
@PROPERTY
@given(st.lists(Z_VALUES, min_size=1, max_size=30))
def parity_zscore_summary(z):
    py = Z.summarise(z)
    sql = run(
        f"select {macros('zscore_summary').zscore_summary_columns('z')} from t", t=pd.DataFrame({"z": z}, dtype=float)
    ).iloc[0]
    assert_same([sql.mean_abs_z, sql.w1sd], [py.mean_abs_z, py.w1sd], "mean |z|, W1SD")
    assert (int(sql.n_images), int(sql.n_zero_sd_images)) == (py.n_images, py.n_zero_sd)


@parity("stats.zscores.w1sd_counting_missing", "w1sd_counting_missing")
@PROPERTY
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5), st.floats(0, 1)), min_size=1, max_size=10))
def parity_w1sd_counting_missing(rows):
    n, k, share = (np.array(c) for c in zip(*rows))
    w = np.where(n > 0, share, np.nan)  # no scored image: no answered-only share
    sql = run(
        f"select {macros('zscore_summary').w1sd_counting_missing('w', 'n', 'k')} as w1sd from t",
        t=pd.DataFrame({"w": w, "n": n, "k": k}),
    )
    assert_same(sql.w1sd, Z.w1sd_counting_missing(w, n, k), "W1SD counting missing")


BLAND_ALTMAN = ("bias", "sd_d", "loa_lower", "loa_upper", "systematicity", "mae", "mae_folded_normal")


@parity("stats.agreement.bland_altman", "bland_altman_columns")
@PROPERTY
@given(st.lists(st.tuples(SCALE, st.one_of(st.none(), SCALE)), min_size=1, max_size=25), st.booleans())
# a pure offset whose SD_d is a rounding residue (2.6e-16): both say +inf, not two different 1e15s
@example(pairs=[(0.0, 0.0), (0.0, 0.0), (-3.44, 0.0)], offset=True)
def parity_bland_altman(pairs, offset):
    h = np.array([p[0] for p in pairs])
    x = np.array([math.nan if p[1] is None else (p[0] - 1.5 if offset else p[1]) for p in pairs])
    py = G.bland_altman(h, x)
    sql = run(
        f"select {macros('bland_altman').bland_altman_columns('h', 'x')} from t", t=pd.DataFrame({"h": h, "x": x})
    ).iloc[0]
    assert int(sql.n) == py.n
    for col in BLAND_ALTMAN:
        assert_same([sql[col]], [getattr(py, col)], col)


def value_counts(df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """(per-image n and mean, images x values 1..max count matrix) of a long frame."""
    counts = pd.crosstab(df.image_id, df.rating).reindex(columns=range(1, int(df.rating.max()) + 1), fill_value=0)
    per_image = df.groupby("image_id").rating.agg(n="count", mean="mean").loc[counts.index]
    return per_image, counts.to_numpy()


@parity("stats.agreement.human_pairwise_mae", "human_pairwise_mae")
@PROPERTY
@given(studies())
def parity_human_pairwise_mae(df):
    _, counts = value_counts(df)
    sql = run(macros("human_mae_baselines").human_pairwise_mae("ratings", "image_id", "rating"), ratings=df).iloc[0]
    assert_same([sql.human_pairwise_mae], [G.human_pairwise_mae(counts)], "pairwise MAE")
    assert int(sql.n_rating_pairs) == int((counts.sum(axis=1) * (counts.sum(axis=1) - 1) / 2).sum())


@parity("stats.agreement.human_loo_mae", "loo_mean")
@PROPERTY
@given(studies())
def parity_human_loo_mae(df):
    # int_human_loo's loo_abs_error = abs(rating - loo_mean), averaged by dimensional_agreement
    per_image, counts = value_counts(df)
    loo = sql_loo(df)
    sql = float(np.nanmean(np.abs(loo.rating - loo.loo_mean))) if loo.loo_mean.notna().any() else math.nan
    by_run = run("select avg(abs(rating - loo_mean)) as mae from loo", loo=loo).mae
    assert_same(by_run, [sql], "avg in SQL")
    assert_same([sql], [G.human_loo_mae(per_image["n"], per_image["mean"], counts)], "LOO MAE")


@parity("stats.stratified_anova.bias_cells", "bias_cell_stats")
@PROPERTY
@given(
    st.lists(
        st.tuples(st.sampled_from("AB"), st.sampled_from("FM"), st.one_of(st.none(), SCALE)), min_size=1, max_size=30
    )
)
def parity_bias_cells(rows):
    audit_1, audit_2, d = zip(*rows)
    frame = pd.DataFrame(
        {
            "condition_id": "m",
            "category": "fear",
            "audit_1": audit_1,
            "audit_2": audit_2,
            "d_valence": pd.array(d, dtype="Float64").astype(float),
        }
    )
    keys = ["condition_id", "category", "audit_1", "audit_2"]
    py = SA.bias_cells(frame, ("valence",)).set_index(keys).sort_index()
    sql = run(
        f"select {', '.join(keys)}, {macros('bias_cell_stats').bias_cell_stats('d_valence')} "
        f"from cells group by {', '.join(keys)}",
        cells=frame,
    )
    sql = sql.set_index(keys).sort_index()
    assert list(sql.index) == list(py.index)
    assert (sql.n_rows.to_numpy() == py.n_rows.to_numpy()).all() and (
        sql.n_bias.to_numpy() == py.n_bias.to_numpy()
    ).all()
    assert_same(sql.bias_mean, py.bias_mean, "cell mean")
    assert_same(sql.bias_ss, py.bias_ss, "cell SS")


@parity("stats.agreement.pearson", "pearson_columns")
@PROPERTY
@given(
    st.lists(st.tuples(st.one_of(st.none(), SCALE), st.one_of(st.none(), SCALE)), min_size=0, max_size=12),
    st.sampled_from(["free", "model constant", "human constant"]),
)
def parity_pearson(pairs, shape):
    h = np.array([math.nan if a is None else a for a, _ in pairs], dtype=float)
    x = np.array([math.nan if b is None else b for _, b in pairs], dtype=float)
    if shape == "model constant":
        x = np.where(np.isnan(x), x, 4.0)
    elif shape == "human constant":
        h = np.where(np.isnan(h), h, 6.0)
    py = G.pearson(h, x)
    sql = run(f"select {macros('pearson').pearson_columns('h', 'x')} from t", t=pd.DataFrame({"h": h, "x": x})).iloc[0]
    assert_same([sql.pearson_r], [py.r], "r")
    assert (sql.pearson_null_reason if isinstance(sql.pearson_null_reason, str) else None) == py.reason


@parity("stats.lmm.rater_type_cells", "rater_type_cell_stats")
@PROPERTY
@given(
    st.lists(
        st.tuples(st.sampled_from(["happy", "sad"]), st.one_of(st.none(), SCALE), st.one_of(st.none(), SCALE)),
        min_size=1,
        max_size=20,
    )
)
def parity_rater_type_cells(rows):
    category, h, m = zip(*rows)
    frame = pd.DataFrame(
        {
            "category": category,
            "h": pd.array(h, dtype="Float64").astype(float),
            "m": pd.array(m, dtype="Float64").astype(float),
        }
    )
    py = LMM.rater_type_cells(frame.h, frame.m, frame.category).set_index("category").sort_index()
    sql = run(
        f"select category, {macros('rater_type_cell_stats').rater_type_cell_stats('h', 'm')} from t group by category",
        t=frame,
    )
    sql = sql.set_index("category").sort_index()
    assert list(sql.index) == list(py.index)
    for col in ("n_rows", "n_images"):
        assert (sql[col].to_numpy() == py[col].to_numpy()).all(), col
    for col in ("diff_mean", "diff_ss", "sum_mean", "sum_ss"):
        assert_same(sql[col], py[col], col)


def sql_alt_test_outcomes(ratings: pd.DataFrame, model: pd.DataFrame) -> pd.DataFrame:
    """Each rating's outcome against the model's answer as alt_test_rater_outcomes scores it: the
    image's count, sum and counts below / equal to the rater's value and to the model's, the
    alt_test_scores macro, then alt_test_outcome (the model reads the counts from
    int_image_value_counts and sums the outcomes packed per rater)."""
    m = macros("alt_test_outcomes", "leave_one_out")
    scores = m.alt_test_scores(
        "r.rating", "a.model_value", m.loo_mean("s.n", "s.total", "r.rating"), "s.n",
        "(select count(*) from ratings o where o.image_id = r.image_id and o.rating < r.rating)",
        "(select count(*) from ratings o where o.image_id = r.image_id and o.rating = r.rating)",
        "(select count(*) from ratings o where o.image_id = r.image_id and o.rating < a.model_value)",
        "(select count(*) from ratings o where o.image_id = r.image_id and o.rating = a.model_value)",
    )  # fmt: skip
    outcomes = ", ".join(
        f"{m.alt_test_outcome(scoring, outcome)} as {scoring}_{outcome}"
        for scoring in ("abs", "rank")
        for outcome in ("human_better", "tie")
    )
    sql = f"""with s as (select image_id, count(*) as n, sum(rating) as total from ratings group by image_id),
              scored as (select r.rater, r.image_id, {scores}
                         from ratings r join s using (image_id) join answers a using (image_id)
                         where s.n >= 2)
              select rater, image_id, model_missing, {outcomes} from scored order by rater, image_id"""
    return run(sql, ratings=ratings, answers=model)


MODEL_VALUE = st.one_of(st.none(), st.integers(1, 9).map(float), st.just(4.5))


@parity("stats.alt_test_scoring.instance_outcomes", "alt_test_outcome")
@PROPERTY
@given(studies(), st.booleans(), st.data())
def parity_alt_test_outcomes(df, lone_image, data):
    if lone_image:  # an image with one rating has no others: outside the test on both routes
        df = pd.concat([df, pd.DataFrame({"image_id": [99], "rater": [0], "rating": [3]})], ignore_index=True)
    units = sorted(df.image_id.unique())
    asked = data.draw(st.lists(st.sampled_from(units), unique=True))  # images the model was asked about
    answers = data.draw(st.lists(MODEL_VALUE, min_size=len(asked), max_size=len(asked)))
    model = pd.Series(answers, index=asked, dtype=float)
    sql = sql_alt_test_outcomes(df, pd.DataFrame({"image_id": asked, "model_value": model.to_numpy()}))
    human = df.rename(columns={"rater": "annotator_id", "image_id": "instance_id", "rating": "label"})
    for scoring, prefix in (("neg_abs_error", "abs"), ("rank", "rank")):
        py = ALT.instance_outcomes(human, model, scoring=scoring).sort_values(["annotator_id", "instance_id"])
        assert list(zip(sql.rater, sql.image_id)) == list(zip(py.annotator_id, py.instance_id)), scoring
        human_better, tie = (py.w_human == 1) & (py.w_model == 0), (py.w_human == 1) & (py.w_model == 1)
        assert sql[f"{prefix}_human_better"].tolist() == human_better.tolist(), scoring
        assert sql[f"{prefix}_tie"].tolist() == tie.tolist(), scoring
        assert sql.model_missing.tolist() == py.model_missing.tolist(), scoring
        # the counts per rater alt_test_rater_outcomes packs and sums
        counts = sql.groupby("rater")[[f"{prefix}_human_better", f"{prefix}_tie", "model_missing"]].sum()
        ref = pd.DataFrame({"hb": human_better, "tie": tie, "miss": py.model_missing}).groupby(py.annotator_id).sum()
        assert counts.to_numpy().tolist() == ref.to_numpy().tolist(), scoring


# --------------------------------------------------------------------------- the macros against the references

EXAMPLES = json.loads((REFERENCE / "krippendorff_examples.json").read_text())
CASES = [(name, level, published) for name, ex in EXAMPLES.items() for level, published in ex["alpha"].items()]


def long(name):
    return reliability_matrix_to_long(np.array(EXAMPLES[name]["reliability_data"], dtype=float))


def decimals(published: float) -> int:
    return len(repr(published).split(".")[1])


def sql_alpha(df: pd.DataFrame, level: str, group_by=()) -> pd.DataFrame:
    if level == "interval":
        sql = alpha_interval_sql("ratings", "image_id", "rating", list(group_by))
    else:
        sql = macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level, list(group_by))
    return run(sql, ratings=df)


def random_matrix(rng, raters=12, units=40, missing=0.5, values=9):
    data = rng.integers(1, values + 1, size=(raters, units)).astype(float)
    # Give units a shared signal so alpha is not ~0 (a weaker test).
    data = np.clip(data + rng.integers(-2, 3, size=units), 1, values)
    data[rng.random(data.shape) < missing] = np.nan
    return data


@pytest.mark.parametrize("name,level,published", CASES)
def test_sql_coincidence_alpha_matches_published_example(name, level, published):
    got = run(macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", level), ratings=long(name))
    assert round(float(got.alpha.iloc[0]), decimals(published)) == pytest.approx(published, abs=1e-12)


def test_sql_units_counted_are_pairable_ones():
    # Krippendorff 2011: unit 12 has one value only, so 11 pairable units and 40 pairable values.
    sql = sql_alpha(long("krippendorff_2011"), "interval")
    assert (int(sql.n_units[0]), int(sql.n_values[0])) == (11, 40)


@pytest.mark.parametrize("seed", range(4))
def test_sql_routes_equal_krippendorff_package_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    data = random_matrix(rng)
    df = reliability_matrix_to_long(data)
    for level in A.LEVELS:
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
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


def test_sql_alpha_of_adding_a_full_rater_equals_package():
    rng = np.random.default_rng(3)
    data = random_matrix(rng, raters=30, units=60, missing=0.8)
    model = np.clip(np.nanmean(data, axis=0).round() + 1, 1, 9)  # a biased model who rated every unit
    df = reliability_matrix_to_long(data)
    ref_plus = krippendorff.alpha(reliability_data=np.vstack([data, model]), level_of_measurement="interval")
    # The SQL route adds the model as rows to the stats relation: same number.
    both = pd.concat([df, pd.DataFrame({"rater": -1, "image_id": range(60), "rating": model})])
    got = run(alpha_interval_sql("ratings", "image_id", "rating"), ratings=both)
    assert float(got.alpha[0]) == pytest.approx(ref_plus, abs=1e-10)


def test_sql_closed_form_is_precise_at_scale():
    # 1,440 units x 50 values on a 1-9 scale: the shifted-moment closed form keeps 1e-10.
    rng = np.random.default_rng(5)
    signal = rng.normal(5, 1.2, 1440)
    data = np.clip(np.round(signal + rng.normal(0, 1.5, (50, 1440))), 1, 9)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert float(sql_alpha(reliability_matrix_to_long(data), "interval").alpha[0]) == pytest.approx(ref, abs=1e-10)


def test_sql_undefined_alpha_is_null_with_reason_not_a_crash():
    constant = pd.DataFrame({"image_id": [1, 1, 2, 2], "rating": [4, 4, 4, 4]})
    lonely = pd.DataFrame({"image_id": [1, 2, 3], "rating": [1, 5, 9]})  # no unit has 2 values
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


def test_sql_ordinal_alpha_on_labels_uses_the_declared_order():
    got = A.alpha(as_words("krippendorff_2011"), "ordinal", order=WORDS)
    sql = run(
        macros("alpha_coincidence").alpha_coincidence("ratings", "image_id", "rating", "ordinal", order=WORDS),
        ratings=as_words("krippendorff_2011"),
    )
    assert float(sql.alpha.iloc[0]) == pytest.approx(got.alpha, abs=1e-12)


def test_sql_ordinal_alpha_on_labels_without_an_order_is_an_error():
    df = as_words("krippendorff_2011")
    m = macros("alpha_coincidence")
    with pytest.raises(duckdb.Error, match="needs their declared level order"):
        run(m.alpha_coincidence("ratings", "image_id", "rating", "ordinal"), ratings=df)
    with pytest.raises(duckdb.Error, match="very high.*not in the declared level order"):
        run(m.alpha_coincidence("ratings", "image_id", "rating", "ordinal", order=WORDS[:4]), ratings=df)


@PROPERTY
@given(studies())
def test_sql_loo_mean_sd_z_and_summary_equal_brute_force(df):
    ref = brute_loo(df)
    got = sql_loo(df)
    for col in ("loo_mean", "loo_sd", "loo_z"):
        assert_same(got[col], ref[col], col)
    summary = run(
        f"select {macros('zscore_summary').zscore_summary_columns('z')} from t",
        t=pd.DataFrame({"z": got.loo_z.astype(float)}),
    ).iloc[0]
    want = Z.summarise(ref.loo_z.to_numpy())
    assert (int(summary.n_images), int(summary.n_zero_sd_images)) == (want.n_images, want.n_zero_sd)
    assert_same([summary.w1sd, summary.mean_abs_z], [want.w1sd, want.mean_abs_z], "summary")


@PROPERTY
@given(studies())
def test_sql_interval_alpha_equals_brute_force(df):
    ref = brute_alpha(df)
    sql = run(alpha_interval_sql("ratings", "image_id", "rating"), ratings=df)
    got = float(sql.alpha.iloc[0]) if len(sql) and pd.notna(sql.alpha.iloc[0]) else math.nan
    assert_same([got], [ref], "sql alpha")


def test_sql_loo_macros_equal_brute_force():
    df = with_sums(ragged_images(seed=1))
    m = macros("zscore", "leave_one_out")
    sql = f"""select {m.zscore("rating", m.loo_mean("n", "total", "rating"), m.loo_sd("n", "total", "total_sq", "rating"))} as z
              from ratings order by image_id, rater"""
    got = run(sql, ratings=df.sort_values(["image_id", "rater"])).z.to_numpy(dtype=float)
    ref = brute_force_loo_z(df.sort_values(["image_id", "rater"]))
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-10, atol=1e-10)


def test_sql_equal_others_give_sd_exactly_zero_and_no_z():
    # Ratings (3, 3, 4) leaving out the 4: the other two are equal, so their SD is 0 and z is
    # undefined (the Python side: test_stats_zscores.py).
    df = with_sums(pd.DataFrame({"image_id": 0, "rater": [0, 1, 2], "rating": [3, 3, 4]}))
    m = macros("zscore", "leave_one_out")
    got = run(
        f"""select {m.loo_sd("n", "total", "total_sq", "rating")} as sd,
                         {m.zscore("rating", m.loo_mean("n", "total", "rating"), m.loo_sd("n", "total", "total_sq", "rating"))} as z
                  from ratings order by rater""",
        ratings=df,
    )
    assert got.sd.iloc[2] == 0.0 and pd.isna(got.z.iloc[2])
    np.testing.assert_allclose(got.sd.iloc[:2], np.std([3, 4], ddof=1), rtol=1e-15)


def test_sql_model_z_gives_no_z_for_a_zero_sd():
    mean, sd, x = np.array([5.0, 3.0, 7.0, 4.0]), np.array([1.0, 0.0, 2.0, 0.5]), np.array([6.0, 3.0, 4.0, 4.5])
    sql = run(
        f"select {macros('zscore').zscore('x', 'm', 's')} as z from t", t=pd.DataFrame({"x": x, "m": mean, "s": sd})
    ).z.to_numpy(dtype=float)
    np.testing.assert_allclose(sql, Z.zscore(x, mean, sd), equal_nan=True)


def test_sql_zscore_summary_equals_python_summary():
    rng = np.random.default_rng(4)
    z = rng.normal(0, 1.2, 500)
    z[::37] = np.nan  # images whose human SD was 0
    z[5] = 1.0  # exactly on the boundary counts as within
    got = run(f"select {macros('zscore_summary').zscore_summary_columns('z')} from t", t=pd.DataFrame({"z": z})).iloc[0]
    ref = Z.summarise(z)
    assert got.mean_abs_z == pytest.approx(ref.mean_abs_z, abs=1e-12)
    assert got.w1sd == pytest.approx(ref.w1sd, abs=1e-12)
    assert (int(got.n_images), int(got.n_zero_sd_images)) == (ref.n_images, ref.n_zero_sd)


def test_sql_a_missing_model_answer_counts_as_outside_one_sd():
    w, n, k = np.array([2 / 3, np.nan, 0.8, np.nan]), np.array([3, 0, 5, 0]), np.array([1, 2, 0, 0])
    sql = run(
        f"select {macros('zscore_summary').w1sd_counting_missing('w', 'n', 'k')} as w1sd from t",
        t=pd.DataFrame({"w": w, "n": n, "k": k}),
    ).w1sd.to_numpy(dtype=float)
    np.testing.assert_allclose(sql, Z.w1sd_counting_missing(w, n, k), equal_nan=True)
    np.testing.assert_allclose(sql, [0.5, 0.0, 0.8, np.nan], equal_nan=True)


def test_sql_bland_altman_equals_python():
    rng = np.random.default_rng(1)
    h = rng.uniform(1, 9, 200)
    x = h - 1.3 + rng.normal(0, 0.7, 200)
    x[[3, 17]] = np.nan  # a condition that skipped two images
    ba = G.bland_altman(h, x)
    sql = run(
        f"select {macros('bland_altman').bland_altman_columns('h', 'x')} from t", t=pd.DataFrame({"h": h, "x": x})
    ).iloc[0]
    for col in BLAND_ALTMAN:
        assert sql[col] == pytest.approx(getattr(ba, col), abs=1e-12), col
    assert int(sql["n"]) == ba.n


def test_sql_systematicity_is_the_same_as_python():
    # A pure offset (SD_d 0, bias 1) is +inf everywhere; no difference at all is undefined everywhere.
    cases = {
        "offset": (np.array([5.0, 6, 7]), np.array([4.0, 5, 6])),
        "equal": (np.array([5.0, 6, 7]),) * 2,
        "noisy": (np.array([5.0, 6, 7, 3]), np.array([4.0, 5.5, 6, 1])),
    }
    frame = pd.concat([pd.DataFrame({"case": k, "h": h, "x": x}) for k, (h, x) in cases.items()])
    sql = run(
        f'select "case", {macros("bland_altman").bland_altman_columns("h", "x")} from t group by "case"', t=frame
    ).set_index("case")
    for k, (h, x) in cases.items():
        ba = G.bland_altman(h, x)
        got = sql.loc[k, "systematicity"]
        if np.isnan(ba.systematicity):
            assert pd.isna(got), k
        else:
            assert got == pytest.approx(ba.systematicity, abs=1e-12), k
