"""LLMBar Natural (Zeng et al., ICLR 2024): a judge study only, two outputs per instruction, one
gold human label, two LLM evaluators answering both orders (the default design). Built through
the CLI and checked against an oracle sharing no code with the project (scikit-learn's Cohen's
kappa, counts from the raw files, scipy's binomial test) and against the figures the release
publishes beside its results (statistics.json: correct_both, equal)."""

from __future__ import annotations

import json

import pytest
from acceptance_build import HERE, assert_judge_study_built, build_study, differing_tables, init_and_run
from oracle_acceptance import test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.study import load_study
from scipy import stats
from sklearn.metrics import cohen_kappa_score

pytestmark = pytest.mark.xdist_group("acceptance_llmbar")

RAW = HERE / "llmbar" / "raw"
EVALUATORS = {"GPT-4": "gpt-4", "ChatGPT": "chatgpt"}


def raw():
    data = json.loads((RAW / "dataset.json").read_text(encoding="utf-8"))
    gold = [str(r["label"]) for r in data]
    winners = {}
    for folder, judge in EVALUATORS.items():
        results = json.loads((RAW / "evaluators" / folder / "Vanilla" / "result.json").read_text(encoding="utf-8"))
        both = [r["results"][0] for r in results]
        winners[judge] = [(str(b["swap = False"]["winner"]), str(b["swap = True"]["winner"])) for b in both]
    return gold, winners


def published(folder: str) -> dict:
    return json.loads((RAW / "evaluators" / folder / "Vanilla" / "statistics.json").read_text(encoding="utf-8"))


def share(text: str) -> float:  # "93 / 100 = 93.0%" -> 0.93
    n, d = text.split("=")[0].split("/")
    return int(n) / int(d)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_study("llmbar", tmp_path_factory.mktemp("llmbar"))


def test_lands_and_builds(study):
    assert_judge_study_built(study)


def test_agreement_with_the_gold_label_is_the_published_correct_both_and_kappa_is_scikit_learns(study):
    gold, winners = raw()
    got = study.query("select judge_1, judge_2, n_pairs, agreement, kappa from judge_agreement where axis = 'overall'")
    for folder, judge in EVALUATORS.items():
        row = got[
            ((got["judge_1"] == judge) & (got["judge_2"] == "human-majority"))
            | ((got["judge_2"] == judge) & (got["judge_1"] == "human-majority"))
        ].iloc[0]
        final = [ab if ab == ba else "tie" for ab, ba in winners[judge]]  # the lab log's rule
        assert row["n_pairs"] == 100
        assert row["agreement"] == pytest.approx(share(published(folder)["correct_both"]))
        assert row["kappa"] == pytest.approx(cohen_kappa_score(final, gold))
        # the one human is the majority: the judge-human kappa is the same
        h = got[
            ((got["judge_1"] == judge) & (got["judge_2"] == "label"))
            | ((got["judge_2"] == judge) & (got["judge_1"] == "label"))
        ]
        assert h["kappa"].iloc[0] == pytest.approx(row["kappa"])


def test_inconsistency_is_one_minus_the_published_positional_agreement(study):
    got = study.query(
        "select judge_id, estimate, n from judge_bias_checks where check_name = 'inconsistency' and variant = 'all'"
    ).set_index("judge_id")
    for folder, judge in EVALUATORS.items():
        assert got.loc[judge, "n"] == 100
        assert got.loc[judge, "estimate"] == pytest.approx(1 - share(published(folder)["equal"]))


def test_position_bias_from_both_orders_is_the_binomial_test_of_the_raw_answers(study):
    _, winners = raw()
    got = study.query(
        "select judge_id, estimate, n, p_value from judge_bias_checks where check_name = 'position_bias' and variant = 'all'"
    ).set_index("judge_id")
    for judge, pairs in winners.items():
        first = sum(ab == "1" for ab, _ in pairs) + sum(ba == "2" for _, ba in pairs)  # BA shows output_2 first
        n = 2 * len(pairs)
        assert got.loc[judge, "n"] == n and got.loc[judge, "estimate"] == pytest.approx(first / n)
        assert got.loc[judge, "p_value"] == pytest.approx(stats.binomtest(first, n, 0.5).pvalue)


def test_the_alt_test_with_one_human_is_not_evaluable_never_failed(study):
    got = study.query("select * from judge_alt_test").set_index("judge_id")
    assert set(got.index) == set(EVALUATORS.values())
    assert (got["status"] == "not evaluable").all() and got["passed"].isna().all()
    assert got["note"].str.contains("1 human annotator").all()


@pytest.fixture(scope="module")
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on dataset.json and the two evaluators' result.json as published
    (each judge named by the folder that tells the two files apart); then `rater1001 run`."""
    root = tmp_path_factory.mktemp("llmbar-init")
    verdicts = [f"--verdicts={RAW / 'evaluators' / folder / 'Vanilla' / 'result.json'}" for folder in EVALUATORS]
    return init_and_run(root, [str(RAW / "dataset.json"), *verdicts, "--name", "llmbar-natural-sample"])


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up equals the hand study's (study.yml +
    convert_llmbar.py, which use the files' own names), the build records aside."""
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "names the answer, not the position" in out and "numbered by row" in out
    assert run_code == 0, run_out + run_err
    mine, theirs = load_study(paths), load_study(study.paths)
    assert (mine.judge_axes, mine.judge_orders) == (theirs.judge_axes, theirs.judge_orders) == (("overall",), "both")
    assert differing_tables(paths, study.paths) == []
