"""PandaLM's human-annotated test set: a judge study only, 999 pairs of two instruction-tuned models
(no anchor), three human annotators and two LLM judges (gpt-3.5-turbo, PandaLM-7B), each verdict in
one order on one axis. Built through the CLI (ingest, run) and checked against an oracle that shares
no code with the project: scikit-learn's Cohen's kappa, the krippendorff package, a Davidson
Bradley-Terry fit written out here with scipy, and the Alt-Test procedure of Calderon et al. (2025)
re-implemented here; beside them the figures the release publishes for its annotators."""

from __future__ import annotations

import json
from collections import Counter

import krippendorff
import numpy as np
import pytest
from acceptance_build import HERE, assert_judge_study_built, build_study, differing_tables, init_and_run
from oracle_acceptance import test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.study import load_study
from scipy import stats
from scipy.optimize import minimize
from sklearn.metrics import cohen_kappa_score, f1_score

pytestmark = pytest.mark.xdist_group("acceptance_pandalm")

RAW = HERE / "pandalm" / "raw"
HUMANS = ("annotator1", "annotator2", "annotator3")
JUDGES = {
    "gpt-3.5-turbo": ("gpt-3.5-turbo-testset-v1.json", "gpt_result"),
    "pandalm-7b": ("pandalm-7b-testset-v1.json", "pandalm_result"),
}
LABEL = {"1": "1", "2": "2", "0": "tie", "Tie": "tie"}  # anything else (gpt's "garbage") is no verdict
# Published in the release's README: Cohen's kappa between the three annotators, and the majority
# label's distribution (0 = tie: 105, 1: 422, 2: 472).
PUBLISHED_IAA = {
    ("annotator1", "annotator2"): 0.85,
    ("annotator1", "annotator3"): 0.88,
    ("annotator2", "annotator3"): 0.86,
}
PUBLISHED_MAJORITY = {"tie": 105, "1": 422, "2": 472}
# Ours, recorded so that a change shows (they are recomputed from raw/ by the oracle below):
# kappa with the human majority, Alt-Test winning rate and advantage probability at epsilon 0.2.
EXPECTED = {"gpt-3.5-turbo": (0.493, 0.0, 0.741), "pandalm-7b": (0.435, 0.0, 0.715)}
DELTA_ALPHA = {"gpt-3.5-turbo": -0.18, "pandalm-7b": -0.22}


def sample(k: int) -> str:
    return str(k)


def raw() -> tuple[list[dict], dict[str, dict], dict[str, dict]]:
    """The pairs; each human's and each LLM's verdicts by sample ('1' / '2' / 'tie', unparsed left out)."""
    pairs = json.loads((RAW / "testset-v1.json").read_text(encoding="utf-8"))
    humans = {h: {sample(p["idx"]): LABEL[str(p[h])] for p in pairs} for h in HUMANS}
    llms = {}
    for judge, (file, key) in JUDGES.items():
        rows = json.loads((RAW / file).read_text(encoding="utf-8"))
        llms[judge] = {sample(r["idx"]): LABEL[str(r[key])] for r in rows if str(r[key]) in LABEL}
    return pairs, humans, llms


def majority(humans: dict) -> dict:
    out = {}
    for i in humans[HUMANS[0]]:
        (label, n), *_ = Counter(h[i] for h in humans.values()).most_common()
        if n * 2 > len(humans):
            out[i] = label
    return out


def alt_test_reference(llm: dict, humans: dict, epsilon: float, q: float = 0.05, min_instances: int = 30):
    """The Alt-Test as Calderon, Reichart & Dror (2025) define it (accuracy scoring): leave one
    annotator out, compare its alignment with the others to the LLM's, one-sided t-test of
    mean(W_h - W_f) < epsilon per annotator, Benjamini-Yekutieli at q; (winning rate, rho)."""
    p_values, rhos = [], []
    for h, labels in humans.items():
        mine = [i for i in labels if i in llm]
        if len(mine) < min_instances:
            continue
        w_h, w_f = [], []
        for i in mine:
            others = [humans[o][i] for o in humans if o != h and i in humans[o]]
            s_h = np.mean([labels[i] == x for x in others])
            s_f = np.mean([llm[i] == x for x in others])
            w_h.append(float(s_h >= s_f))
            w_f.append(float(s_f >= s_h))
        d = np.array(w_h) - np.array(w_f)
        p_values.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        rhos.append(np.mean(w_f))
    m = len(p_values)
    ranked = np.sort(p_values)
    thresholds = np.arange(1, m + 1) / m * q / np.sum(1 / np.arange(1, m + 1))
    passed = np.nonzero(ranked <= thresholds)[0]
    n_rejected = passed.max() + 1 if passed.size else 0
    return n_rejected / m, float(np.mean(rhos))


def davidson_fit(rows: list[tuple[str, str, str]], reference: str) -> dict[str, float]:
    """Davidson (1970) Bradley-Terry with ties, the log-likelihood written out, Nelder-Mead."""
    items = sorted({x for a, b, _ in rows for x in (a, b)})
    free = [x for x in items if x != reference]
    i = np.array([items.index(a) for a, _, _ in rows])
    j = np.array([items.index(b) for _, b, _ in rows])
    v = np.array([o for _, _, o in rows])

    def nll(theta):
        beta = np.zeros(len(items))
        beta[[items.index(x) for x in free]] = theta[:-1]
        bi, bj = beta[i], beta[j]
        tie = theta[-1] + (bi + bj) / 2
        num = np.where(v == "1", bi, np.where(v == "2", bj, tie))
        return -(num - np.logaddexp(np.logaddexp(bi, bj), tie)).sum()

    res = minimize(
        nll,
        np.zeros(len(items)),
        method="Nelder-Mead",
        options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 60000, "maxfev": 60000},
    )
    return dict(zip(free, res.x[:-1]))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_study("pandalm", tmp_path_factory.mktemp("pandalm"))


def test_the_sample_reproduces_the_figures_the_release_publishes():
    _, humans, _ = raw()
    for (a, b), kappa in PUBLISHED_IAA.items():
        ids = sorted(humans[a])
        assert round(cohen_kappa_score([humans[a][i] for i in ids], [humans[b][i] for i in ids]), 2) == kappa
    assert Counter(majority(humans).values()) == PUBLISHED_MAJORITY


def test_the_papers_f1_ratio_is_not_reproduced_by_the_released_verdicts():
    """The paper: PandaLM-7B's F1 is 93.75 % of gpt-3.5-turbo's. Macro F1 against the human majority
    on the released files (an unparsed answer is wrong) puts PandaLM-7B above gpt-3.5-turbo."""
    _, humans, llms = raw()
    major = majority(humans)
    ids = sorted(major)
    f1 = {
        j: f1_score(
            [major[i] for i in ids], [labels.get(i, "none") for i in ids], labels=["1", "2", "tie"], average="macro"
        )
        for j, labels in llms.items()
    }
    assert (round(f1["pandalm-7b"], 3), round(f1["gpt-3.5-turbo"], 3)) == (0.574, 0.527)
    assert f1["pandalm-7b"] / f1["gpt-3.5-turbo"] > 1 > 0.9375


def test_a_judge_only_study_lands_and_builds(study):
    assert_judge_study_built(study)
    pairs, humans, llms = raw()
    assert study.query("select count(*) as n from stg_judge_verdicts")["n"].iloc[0] == len(pairs) * 5
    failed = study.query(
        "select judge_id, count(*) as n from stg_judge_verdicts where parse_status = 'failed' group by 1"
    )
    assert dict(zip(failed["judge_id"], failed["n"])) == {"gpt-3.5-turbo": len(pairs) - len(llms["gpt-3.5-turbo"])}
    # one order per pair, declared: every verdict stands; only gpt-3.5-turbo's unparsed answers are incomplete
    incomplete = study.query("select judge_id, sample_id from judge_pair_verdicts where not is_complete")
    assert set(incomplete["judge_id"]) == {"gpt-3.5-turbo"}
    assert set(incomplete["sample_id"]) == set(humans["annotator1"]) - set(llms["gpt-3.5-turbo"])


def test_kappa_of_each_judge_with_each_human_and_the_majority_is_scikit_learns(study):
    _, humans, llms = raw()
    got = study.query("select judge_1, judge_2, n_pairs, kappa from judge_agreement where axis = 'overall'")
    got = {frozenset((r.judge_1, r.judge_2)): r for r in got.itertuples()}
    major = majority(humans)
    for judge, labels in llms.items():
        common = sorted(set(labels) & set(major))
        row = got[frozenset((judge, "human-majority"))]
        kappa = cohen_kappa_score([labels[i] for i in common], [major[i] for i in common])
        assert row.n_pairs == len(common) and row.kappa == pytest.approx(kappa)
        assert round(kappa, 3) == EXPECTED[judge][0]
        for h, hl in humans.items():
            common = sorted(set(labels) & set(hl))
            assert got[frozenset((judge, h))].kappa == pytest.approx(
                cohen_kappa_score([labels[i] for i in common], [hl[i] for i in common])
            )


def test_the_alt_test_equals_the_reference_procedure(study):
    _, humans, llms = raw()
    got = study.query("select * from judge_alt_test where axis = 'overall'").set_index("judge_id")
    assert set(got.index) == set(llms)
    for judge, labels in llms.items():
        # an unparsed answer is a label that matches no human (None), as the reference scores a blank
        asked = {i: labels.get(i) for i in humans[HUMANS[0]]}
        omega, rho = alt_test_reference(asked, humans, epsilon=0.2)
        omega_answered, _ = alt_test_reference(labels, humans, epsilon=0.2)
        row = got.loc[judge]
        assert row["epsilon"] == 0.2 and row["n_annotators"] == 3 and row["n_instances"] == len(asked)
        assert row["n_missing"] == len(asked) - len(labels)
        assert row["winning_rate"] == pytest.approx(omega)
        assert row["advantage_probability"] == pytest.approx(rho)
        assert row["winning_rate_answered_only"] == pytest.approx(omega_answered)
        assert row["status"] == ("passed" if omega >= 0.5 else "failed") and bool(row["passed"]) == (omega >= 0.5)
        assert (round(omega, 2), round(rho, 3)) == EXPECTED[judge][1:]


def test_human_alpha_and_each_judge_as_one_more_annotator_equal_the_krippendorff_package(study):
    _, humans, llms = raw()
    ids = sorted(humans[HUMANS[0]])
    code = {"1": 0, "2": 1, "tie": 2}
    pool = np.array([[code[h[i]] for i in ids] for h in humans.values()], dtype=float)
    base = krippendorff.alpha(reliability_data=pool, level_of_measurement="nominal")
    got = study.query("select * from judge_human_alpha where axis = 'overall'").set_index("judge_id")
    assert got.loc["(humans only)", "alpha_humans"] == pytest.approx(base) and round(base, 3) == 0.864
    for judge, labels in llms.items():
        row = [[code[labels[i]] if i in labels else np.nan for i in ids]]
        ext = krippendorff.alpha(reliability_data=np.vstack([pool, row]), level_of_measurement="nominal")
        assert got.loc[judge, "delta_alpha"] == pytest.approx(ext - base)
        assert round(ext - base, 2) == DELTA_ALPHA[judge]


def test_bradley_terry_of_a_round_robin_equals_a_davidson_fit_written_out_here(study):
    pairs, humans, llms = raw()
    bt = study.query("select * from judge_bradley_terry where variant = 'text' and axis = 'overall'")
    cmp = {sample(p["idx"]): p["cmp_key"].split("_") for p in pairs}
    for judge, labels in {**llms, "annotator1": humans["annotator1"]}.items():
        mine = bt[bt["judge_id"] == judge].set_index("candidate_id")
        assert set(mine["design"]) == {"round_robin"}  # every two of the five models met
        reference = mine["reference_id"].iloc[0]
        fit = davidson_fit([(*cmp[i], v) for i, v in labels.items()], reference)
        for x, value in fit.items():
            assert mine.loc[x, "log_strength"] == pytest.approx(value, abs=2e-3), (judge, x)


def test_pairwise_win_matrix_counts_the_release(study):
    pairs, _, llms = raw()
    got = study.query(
        "select candidate_id, opponent_id, wins, ties, losses from judge_pairwise_win_rates "
        "where judge_id = 'pandalm-7b' and variant = 'text'"
    ).set_index(["candidate_id", "opponent_id"])
    counts: dict = {}
    for p in pairs:
        a, b = p["cmp_key"].split("_")
        c = counts.setdefault((a, b), [0, 0, 0])
        c[{"1": 0, "tie": 1, "2": 2}[llms["pandalm-7b"][sample(p["idx"])]]] += 1
    for (a, b), (w, t, l) in counts.items():
        assert tuple(got.loc[(a, b)]) == (w, t, l) and tuple(got.loc[(b, a)]) == (l, t, w)


def test_position_bias_is_not_estimated_from_one_order_and_says_so(study):
    pb = study.query(
        "select judge_id, estimate, note from judge_bias_checks where check_name = 'position_bias' and variant = 'all'"
    )
    assert pb["estimate"].isna().all() and pb["note"].str.contains("no pair was judged in both orders").all()


def test_the_report_answers_for_a_study_without_an_anchor(study):
    from rater1001.report.build import table_block
    from rater1001.report.reader import WarehouseReader
    from rater1001.report.tables_judge import JUDGE

    with WarehouseReader(study.paths) as reader:
        blocks = {spec.ours: table_block(reader, spec) for spec in JUDGE if spec.ours in ("TJ6", "TJ7")}
    tj6 = blocks["TJ6"].frame.set_index("judge")
    assert set(tj6.index) == set(JUDGES) and set(tj6["status"]) == {"failed"}
    assert tj6.loc["gpt-3.5-turbo", "rho"] == "0.74" and tj6.loc["gpt-3.5-turbo", "kappa_with_majority"].endswith(
        "(n=974)"
    )
    assert tj6.loc["pandalm-7b", "rho"] == "0.71" and tj6.loc["pandalm-7b", "kappa_with_majority"].endswith("(n=999)")
    tj7 = blocks["TJ7"].frame.set_index(["judge", "candidate"])
    pairs, _, llms = raw()
    won = Counter()
    for p in pairs:
        a, b = p["cmp_key"].split("_")
        if {a, b} == {"llama-7b", "opt-7b"}:
            v = llms["pandalm-7b"][sample(p["idx"])]
            won["tie" if v == "tie" else {"1": a, "2": b}[v]] += 1
    w, t, l = won["llama-7b"], won["tie"], won["opt-7b"]
    assert (
        tj7.loc[("pandalm-7b", "llama-7b"), "opt-7b"] == f"{(w + t / 2) / (w + t + l):.2f} ({w}/{t}/{l})"
    )  # a tie is half a win


@pytest.fixture(scope="module")
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on the release's three files as published: the pairs with the
    annotators' labels, and one verdict file per LLM judge (named as its file less the pairs
    file's name); then `rater1001 run`."""
    root = tmp_path_factory.mktemp("pandalm-init")
    verdicts = [f"--verdicts={RAW / file}" for file, _ in JUDGES.values()]
    return init_and_run(root, [str(RAW / "testset-v1.json"), *verdicts, "--name", "pandalm-testset"])


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up equals the hand study's (study.yml +
    convert_pandalm.py, which use the files' own names), the build records aside."""
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "column 'gpt_result': 25 answer(s) are no verdict ('garbage' 25)" in out
    assert run_code == 0, run_out + run_err
    mine, theirs = load_study(paths), load_study(study.paths)
    assert (mine.judge_axes, mine.judge_orders) == (theirs.judge_axes, theirs.judge_orders) == (("overall",), "one")
    assert differing_tables(paths, study.paths) == []
