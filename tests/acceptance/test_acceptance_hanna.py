"""HANNA (shape b): three human ratings per story on a 1-5 scale for two criteria, and five LLMs'
ratings of the same stories. Headlines: interval alpha with and without each LLM, z-score W1SD
(model and human leave-one-out), Pearson r and MAE to the human mean, and the Alt-Test; each
recomputed here from the raw sample by brute force or a reference package."""

from __future__ import annotations

import ast
import csv

import krippendorff
import numpy as np
import pandas as pd
import pytest
from acceptance_build import HERE, build_study, differing_tables, init_from_raw, run
from oracle_acceptance import test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.paths import project
from rater1001.study import load_study
from scipy import stats
from statsmodels.stats.multitest import multipletests

# One build per dataset: under `make test` (pytest-xdist, --dist loadgroup) the module's tests
# stay on one worker, so its module-scoped study is built once.
pytestmark = pytest.mark.xdist_group("acceptance_hanna")

RAW = HERE / "hanna" / "raw" / "hanna_sample.csv"
CRITERIA = {"CH": "coherence", "EM": "empathy"}
# Upstream column prefix -> condition_id: the LLM under prompt 1, as the file names it (`Beluga-13B CH 1`).
LLMS = {
    "Beluga-13B": "beluga-13b-1",
    "OrcaPlatypus": "orcaplatypus-1",
    "Mistral-7B": "mistral-7b-1",
    "Llama-13B": "llama-13b-1",
    "ChatGPT": "chatgpt-1",
}


def raw() -> tuple[dict[str, np.ndarray], dict[str, pd.DataFrame]]:
    """humans[dimension]: stories x 3 ratings; llms[dimension]: stories x condition (NaN where the
    (condition, story) row has a value off the 1-5 scale on either criterion: ingest refuses the
    whole row). Read straight from the upstream-format sample."""
    with open(RAW, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    col = {k: np.concatenate([ast.literal_eval(r[k]) for r in rows]) for k in rows[0] if k != "Model"}
    humans = {d: np.column_stack([col[f"Human {j} {c}"] for j in (1, 2, 3)]).astype(float) for c, d in CRITERIA.items()}
    llms = {}
    for c, d in CRITERIA.items():
        llms[d] = pd.DataFrame({cid: col[f"{name} {c} 1"] for name, cid in LLMS.items()})
    off_scale = sum(((llms[d] < 1) | (llms[d] > 5)) for d in llms)
    return humans, {d: frame.mask(off_scale > 0) for d, frame in llms.items()}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    # The LLMs did not all rate every story (values off the scale are refused), so the gate's
    # "every condition rated every stimulus" check fails: analysed knowingly, as a user would.
    return build_study("hanna", tmp_path_factory.mktemp("hanna"), ("--allow-unbalanced",))


def test_off_scale_llm_ratings_are_refused_with_reasons_and_the_rest_builds(study):
    humans, llms = raw()
    refused = int(llms["coherence"].isna().sum().sum())
    assert refused == 18  # e.g. Mistral-7B's coherence -1.0 for story 296
    assert study.ingest_codes == {
        "stimuli": 0,
        "raters": 0,
        "model_conditions": 0,
        "human_ratings": 0,
        "model_predictions": 3,
    }
    rejected = pd.read_parquet(study.paths.rejected_table("model_predictions"))
    assert len(rejected) == refused and rejected["_reason"].str.contains("outside the scale 1-5").all()
    assert study.run_code == 0, study.run_stdout + study.run_stderr
    assert "dbt build: ok" in study.run_stdout and "Warning" not in study.run_stderr, study.run_stderr


def test_interval_alpha_and_delta_alpha_equal_the_krippendorff_package(study):
    humans, llms = raw()
    got = study.query(
        "select dimension, condition_id, alpha, delta_alpha from alpha_delta "
        "where metric = 'interval' and category = 'all'"
    ).set_index(["dimension", "condition_id"])
    for d, ratings in humans.items():
        human = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")
        assert got.loc[(d, "human"), "alpha"] == pytest.approx(human, abs=1e-9)
        for cid in LLMS.values():
            with_model = krippendorff.alpha(
                reliability_data=np.vstack([ratings.T, llms[d][cid].to_numpy()]), level_of_measurement="interval"
            )
            assert got.loc[(d, cid), "alpha"] == pytest.approx(with_model, abs=1e-9)
            assert got.loc[(d, cid), "delta_alpha"] == pytest.approx(with_model - human, abs=1e-9)


def test_model_z_scores_by_brute_force(study):
    """A story the LLM has no rating for (refused on ingest) counts against it in W1SD, as an
    answer outside 1 SD, unless its human SD is 0: such a story has no z whoever answers, and stays
    out of W1SD answered or not (docs/stats.md, missing answers); answered-only W1SD and mean |z|
    beside."""
    humans, llms = raw()
    got = study.query(
        "select condition_id, dimension, mean_abs_z, w1sd, w1sd_answered_only, n_images "
        "from zscore_summary where category = 'all'"
    ).set_index(["condition_id", "dimension"])
    for d, ratings in humans.items():
        mean, sd = ratings.mean(axis=1), ratings.std(axis=1, ddof=1)
        for cid in LLMS.values():
            x = llms[d][cid].to_numpy()
            ok = (sd > 0) & ~np.isnan(x)
            missing = (sd > 0) & np.isnan(x)  # a story without its rating that has a z to miss
            z = (x[ok] - mean[ok]) / sd[ok]
            within = np.sum(np.abs(z) <= 1)
            row = got.loc[(cid, d)]
            assert row.n_images == ok.sum()
            assert row.w1sd == pytest.approx(within / (ok.sum() + missing.sum()), abs=1e-12)
            assert row.w1sd_answered_only == pytest.approx(within / ok.sum(), abs=1e-12)
            assert row.mean_abs_z == pytest.approx(np.mean(np.abs(z)), abs=1e-9)


def test_the_human_leave_one_out_baseline_by_brute_force(study):
    """Two equal other ratings (4, 4) leave an SD of exactly 0: that rating is counted as zero-SD,
    not given a huge z from rounding in a closed form."""
    humans, _ = raw()
    got = study.query(
        "select dimension, mean_abs_z, w1sd, n_images, n_zero_sd_images from zscore_summary "
        "where category = 'all' and condition_id = 'human_loo'"
    ).set_index("dimension")
    for d, ratings in humans.items():
        loo, zero_sd = [], 0  # each rating against the other two ratings of its story
        for ratings_of_story in ratings:
            for j in range(3):
                others = np.delete(ratings_of_story, j)
                s = others.std(ddof=1)
                if s > 0:
                    loo.append((ratings_of_story[j] - others.mean()) / s)
                else:
                    zero_sd += 1
        row = got.loc[d]
        assert (row.n_images, row.n_zero_sd_images) == (len(loo), zero_sd)
        assert row.w1sd == pytest.approx(np.mean(np.abs(loo) <= 1), abs=1e-12)
        assert row.mean_abs_z == pytest.approx(np.mean(np.abs(loo)), abs=1e-9)


def test_pearson_and_mae_to_the_human_mean_equal_scipy(study):
    humans, llms = raw()
    got = study.query(
        "select condition_id, dimension, n, pearson_r, mae from dimensional_agreement where category = 'all'"
    ).set_index(["condition_id", "dimension"])
    for d, ratings in humans.items():
        for cid in LLMS.values():
            x = llms[d][cid].to_numpy()
            ok = ~np.isnan(x)
            mean = ratings.mean(axis=1)[ok]
            row = got.loc[(cid, d)]
            assert row.n == ok.sum()
            assert row.pearson_r == pytest.approx(stats.pearsonr(x[ok], mean).statistic, abs=1e-9)
            assert row.mae == pytest.approx(np.mean(np.abs(x[ok] - mean)), abs=1e-9)


def alt_test_by_hand(ratings: np.ndarray, x: np.ndarray, epsilon: float, q: float = 0.05) -> tuple[float, float]:
    """The Alt-Test (Calderon, Reichart & Dror, ACL 2025) written out from the paper: for each
    annotator (here a rating position, the paper's 'combined annotator'), on each story both it and
    the model are scored against the other annotators' mean (negative absolute error); W_h = 1 when
    the annotator scores at least as well, W_f = 1 when the model does; one-sided one-sample t-test
    of W_h - W_f < epsilon; Benjamini-Yekutieli over annotators; omega = share rejected, rho = mean
    W_f. A story the model has no rating for is a comparison the human wins (docs/stats.md, missing
    answers): the model's score there is -inf. Returns (omega, rho)."""
    p_values, rho = [], []
    for j in range(ratings.shape[1]):
        others = np.delete(ratings, j, axis=1).mean(axis=1)
        s_h = np.round(-np.abs(ratings[:, j] - others), 9)
        s_f = np.where(np.isnan(x), -np.inf, np.round(-np.abs(x - others), 9))
        w_h, w_f = (s_h >= s_f).astype(float), (s_f >= s_h).astype(float)
        p_values.append(stats.ttest_1samp(w_h - w_f, epsilon, alternative="less").pvalue)
        rho.append(w_f.mean())
    rejected = multipletests(p_values, alpha=q, method="fdr_by")[0]
    return float(np.mean(rejected)), float(np.mean(rho))


def test_the_alt_test_equals_the_procedure_written_out(study):
    humans, llms = raw()
    got = study.query(
        "select condition_id, dimension, epsilon, winning_rate, advantage_probability, "
        "n_annotators_tested from alt_test_results where scoring = 'neg_abs_error' "
        "and category = 'all'"
    ).set_index(["condition_id", "dimension", "epsilon"])
    assert len(got) == len(LLMS) * len(humans) * 3
    for (cid, d, eps), row in got.iterrows():
        omega, rho = alt_test_by_hand(humans[d], llms[d][cid].to_numpy(), eps)
        assert row.n_annotators_tested == 3
        assert row.winning_rate == pytest.approx(omega, abs=1e-12), (cid, d, eps)
        assert row.advantage_probability == pytest.approx(rho, abs=1e-12), (cid, d, eps)


def generators() -> np.ndarray:
    """The generator of each story, in the order raw() gives the stories."""
    with open(RAW, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return np.concatenate([[r["Model"]] * len(ast.literal_eval(r["Human 1 CH"])) for r in rows])


def test_no_category_and_one_audit_factor_under_its_own_name(study):
    """The study declares no category and one audit factor, `generator`: the classification marts
    are empty, and the audit's F test of the rating bias by generator (one stratum) is the one-way
    ANOVA of human mean - LLM rating across generators (scipy's f_oneway on the raw sample)."""
    assert study.query("select factor, role, slot from stg_study_factors").values.tolist() == [
        ["generator", "audit", "audit_1"]
    ]
    assert study.query("select count(*) as n from classification_summary").n.iloc[0] == 0
    assert study.query("select count(*) as n from demographic_slices").n.iloc[0] == 0
    got = study.query("select * from demographic_stratified_anova").set_index(["condition_id", "dimension"])
    assert set(got.term) == {"generator"} and (got.category == "all").all()  # the one stratum, never NULL
    humans, llms = raw()
    who = generators()
    for dimension in CRITERIA.values():
        for condition in LLMS.values():
            bias = humans[dimension].mean(axis=1) - llms[dimension][condition].to_numpy()
            keep = ~np.isnan(bias)
            groups = [bias[keep & (who == g)] for g in np.unique(who[keep])]
            ref = stats.f_oneway(*groups)
            row = got.loc[(condition, dimension)]
            assert row.f_value == pytest.approx(ref.statistic, rel=1e-9)
            assert row.p_raw == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
            assert (row.df_num, row.n) == (len(groups) - 1, keep.sum())
    omnibus = study.query("select distinct term from demographic_omnibus")
    assert set(omnibus.term) == {"generator"}  # one stratum: no generator x category term
    report = (study.paths.report / "index.html").read_text(encoding="utf-8")
    assert "one audit factor (generator)" in report


def test_worth_in_raters_equals_the_brute_force_over_rater_pairs_with_refused_ratings_left_out(study):
    """k* of each LLM per criterion from every ordered pair of a story's three ratings and the
    LLM's distance to each, straight from the raw file; the stories whose LLM row was refused are
    left out and counted (n_missing)."""
    humans, llms = raw()
    got = study.query("select * from worth_k_star where factor = 'all'").set_index(["measure", "condition_id"])
    assert set(got["measure_kind"]) == {"rating"} and len(got) == 2 * len(LLMS)
    for d, ratings in humans.items():
        p = np.array([np.mean([(r[i] - r[j]) ** 2 for i in range(3) for j in range(3) if i != j]) for r in ratings])
        for cid in LLMS.values():
            model = llms[d][cid].to_numpy()
            ok = ~np.isnan(model)
            m = np.array([np.mean((model[s] - ratings[s]) ** 2) for s in np.flatnonzero(ok)])
            expected = np.mean(p[ok]) / 2 / (np.mean(m) - np.mean(p[ok]) / 2)
            row = got.loc[(d, cid)]
            assert row["k_star"] == pytest.approx(expected, rel=1e-9), (d, cid)
            assert (row["n_stimuli"], row["n_missing"]) == (ok.sum(), (~ok).sum())
    # no category: 'all' and the generator's levels only
    assert set(study.query("select distinct factor from worth_k_star")["factor"]) == {"all", "generator"}
    ppi = study.query("select distinct statistic, factor from worth_ppi")
    assert set(map(tuple, ppi.to_numpy())) == {("mean", "all"), ("gap", "generator")}


@pytest.fixture(scope="module")
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on hanna_metric_scores_llm.csv as published (a row per generator, a
    list per cell, humans and LLMs side by side), the criteria and the generator named by flag as a
    user would (the codes CH and EM do not say their names); then `rater1001 run`."""
    root = tmp_path_factory.mktemp("hanna-init")
    flags = ["--dimension", "coherence=CH", "--dimension", "empathy=EM", "--audit", "generator=Model"]
    init = init_from_raw(root, [str(RAW), *flags, "--model-kind", "llm", "--name", "hanna-sample"])
    return project(root), init, run(root, "--allow-unbalanced")


def test_init_on_the_published_file_lands_what_the_hand_study_lands(guessed, study):
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 3, out + err  # the 18 off-scale LLM rows are refused, as in the hand study
    assert "each cell holds a list" in out
    assert run_code == 0, run_out + run_err
    rejected = pd.read_parquet(paths.rejected_table("model_predictions"))
    assert len(rejected) == 18 and rejected["_reason"].str.contains("outside the scale 1-5").all()
    mine, theirs = load_study(paths), load_study(study.paths)
    assert (mine.dimensions, mine.scale_min, mine.scale_max, mine.stimulus_kind) == (
        theirs.dimensions,
        theirs.scale_min,
        theirs.scale_max,
        theirs.stimulus_kind,
    )
    assert [(f.name, f.role) for f in mine.factors] == [(f.name, f.role) for f in theirs.factors]


def test_init_on_the_published_file_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up equals the hand study's
    (study.yml + convert_hanna.py, which use the file's own names), the build records aside."""
    assert differing_tables(guessed[0], study.paths) == []
