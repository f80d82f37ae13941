"""`rater1001 init PAIRS --verdicts FILE ...`: a pairwise judge study guessed from its own files
(the answers, the pair id, the candidates' names, the category, the prompt, the humans' and each
LLM judge's verdicts and their coding, the two orders), and the bad inputs it refuses by name
(exit 2, nothing written). The published PandaLM and LLMBar files: tests/acceptance/."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.cli import main
from rater1001.init.guess import InitError
from rater1001.init.judge import PairsOptions, VerdictFile, propose_judge
from rater1001.init.judge_files import judge_names
from rater1001.init.verdicts import code
from rater1001.paths import project

MODELS = ("alpha-7b", "beta-7b", "gamma-7b")


def run(home, *argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code_ = main(["--home", str(home), "init", *map(str, argv)])
    return code_, out.getvalue(), err.getvalue()


def pairs(n: int = 40) -> pd.DataFrame:
    """n pairs, PandaLM's layout: an id, a category, an instruction and an optional input, the two
    models' names in one column, two answers, two annotators coding 1 / 2 / 0 = tie."""
    rows = []
    for k in range(n):
        a, b = MODELS[k % 3], MODELS[(k + 1) % 3]
        rows.append(
            {
                "idx": str(k),
                "app": ["Mail", "Search"][k % 2],
                "instruction": f"Write a short note number {k} about the weather today",
                "input": f"Context for note {k}" if k % 4 else None,
                "cmp_key": f"{a}_{b}",
                "response1": f"Answer of {a} to note {k}",
                "response2": f"Answer of {b} to note {k}",
                "annotator1": str(k % 3),
                "annotator2": str((k + 1) % 3),
            }
        )
    return pd.DataFrame(rows)


def test_each_column_of_a_pairs_file_gets_its_role():
    frame = pairs()
    proposal = propose_judge(frame, "test.json", [], PairsOptions())
    roles = {g.role: g.column for g in proposal.guesses}
    assert roles["the two answers"] == "response1, response2" and roles["pair id"] == "idx"
    assert roles["candidates' names"] == "cmp_key" and roles["category"] == "app"
    assert roles["prompt"] == "instruction, input"
    dialogues = proposal.tables["dialogues"].set_index("sample_id")
    assert dialogues.loc["0", "category"] == "Mail"
    assert json.loads(dialogues.loc["0", "turns"]) == [{"speaker": "user", "text": frame.instruction[0]}]
    assert json.loads(dialogues.loc["1", "turns"])[0]["text"] == f"{frame.instruction[1]}\n\n{frame.input[1]}"
    candidates = proposal.tables["candidates"].set_index(["sample_id", "candidate_id"])
    assert candidates.loc[("1", "beta-7b"), "response_text"] == "Answer of beta-7b to note 1"
    assert candidates.loc[("1", "gamma-7b"), "response_text"] == "Answer of gamma-7b to note 1"
    verdicts = proposal.tables["judge_verdicts"].set_index(["judge_id", "sample_id"])
    # 0 beside 1 and 2 is a tie; 1 = the first answer (shown first, order AB)
    assert verdicts.loc[("annotator1", "0"), "verdict_overall"] == "tie"
    assert tuple(verdicts.loc[("annotator1", "1"), ["verdict_overall", "candidate_a", "order"]]) == (
        "1",
        "beta-7b",
        "AB",
    )
    assert set(verdicts["judge_kind"]) == {"human"} and proposal.orders == "one"
    assert (
        list(proposal.catalog["candidate_id"]) == sorted(MODELS) and not proposal.catalog["is_anchor"].eq("true").any()
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", "1"),
        ("2", "2"),
        ("a", "1"),
        ("B", "2"),
        ("Output (a)", "1"),
        ("Output (b)", "2"),
        ("Response 2", "2"),
        ("answer_1", "1"),
        ("Tie", "tie"),
        ("draw", "tie"),
        ("garbage", None),
        ("3", None),
        ("Output (a) and (b)", None),
        (None, None),
    ],
)
def test_verdict_codes(value, expected):
    assert code(value) == expected


def test_a_verdict_file_joins_by_the_pair_id_and_lands_unparsed_answers_as_failed_with_a_note():
    frame = pairs()
    gpt = pd.DataFrame({"idx": [str(k) for k in range(39, -1, -1)], "gpt_result": ["1", "Tie", "garbage", "2"] * 10})
    proposal = propose_judge(frame, "test.json", [VerdictFile(gpt, "gpt-x-test.json", "GPT-x")], PairsOptions())
    v = proposal.tables["judge_verdicts"]
    mine = v[v.judge_id == "gpt-x"].set_index("sample_id")
    assert set(mine["judge_kind"]) == {"llm"} and set(mine["judge_model"]) == {"GPT-x"}
    assert tuple(mine.loc["39", ["verdict_overall", "parse_status"]]) == ("1", "ok")  # first row of the file
    assert mine.loc["38", "verdict_overall"] == "tie"
    assert tuple(mine.loc["37", ["raw_text", "parse_status"]]) == ("garbage", "failed")
    assert pd.isna(mine.loc["37", "verdict_overall"])
    assert any("column 'gpt_result': 10 answer(s) are no verdict ('garbage' 10)" in n for n in proposal.notes)


def test_two_orders_of_a_verdict_file_and_what_the_swapped_verdict_names():
    """LLMBar's `swap = False` / `swap = True` winner: the answer in the pairs' numbering when both
    orders mostly agree (landed by position: the other number in order BA); a position when they
    mostly differ."""
    frame = pairs().drop(columns=["idx"])
    ab = ["1", "2"] * 20
    named = pd.DataFrame({"r.swap = False.winner": ab, "r.swap = True.winner": ab})
    flipped = pd.DataFrame({"r.swap = False.winner": ab, "r.swap = True.winner": ["2", "1"] * 20})
    files = [VerdictFile(named, "a.json", "names"), VerdictFile(flipped, "b.json", "positions")]
    proposal = propose_judge(frame, "test.json", files, PairsOptions())
    v = proposal.tables["judge_verdicts"].set_index(["judge_id", "sample_id", "order"])["verdict_overall"]
    assert (v.loc[("names", "1", "AB")], v.loc[("names", "1", "BA")]) == ("1", "2")
    assert (v.loc[("positions", "1", "AB")], v.loc[("positions", "1", "BA")]) == ("1", "2")
    assert proposal.orders == "both"
    assert any("no column names each pair once" in n for n in proposal.notes)


def test_a_verdict_file_without_the_pair_id_and_another_length_is_refused():
    frame = pairs()
    short = pd.DataFrame({"verdict": ["1", "2"] * 5})
    with pytest.raises(InitError, match=r"short.csv: no column names the pair .* 10 rows, the pairs 40"):
        propose_judge(frame, "test.json", [VerdictFile(short, "short.csv", "x")], PairsOptions())


def test_a_copy_of_the_pairs_label_in_a_verdict_file_is_not_the_judges_verdict():
    frame = pairs().drop(columns=["idx"])
    judge = pd.DataFrame({"annotator1": frame["annotator1"], "winner": ["2"] * 40})
    proposal = propose_judge(frame, "test.json", [VerdictFile(judge, "j.json", "j")], PairsOptions())
    v = proposal.tables["judge_verdicts"]
    assert set(v[v.judge_id == "j"]["verdict_overall"]) == {"2"}


def test_judges_are_named_by_what_tells_their_files_apart(tmp_path):
    pairs_file = tmp_path / "testset-v1.json"
    (tmp_path / "GPT-4" / "Vanilla").mkdir(parents=True)
    (tmp_path / "Chat GPT" / "Vanilla").mkdir(parents=True)
    files = [
        str(tmp_path / "gpt-3.5-turbo-testset-v1.json"),
        str(tmp_path / "GPT-4" / "Vanilla" / "result.json"),
        str(tmp_path / "Chat GPT" / "Vanilla" / "result.json"),
        f"mine={tmp_path / 'other.json'}",
    ]
    assert [n for n, _ in judge_names(pairs_file, files)] == ["gpt-3.5-turbo", "GPT-4", "Chat GPT", "mine"]


def _written(home) -> bool:
    return (home / "study.yml").exists() or (home / "seeds").exists() or (home / "data").exists()


def _write(tmp_path, frame: pd.DataFrame, name: str = "pairs.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_init_yes_lands_a_judge_study(tmp_path):
    path = _write(tmp_path, pairs())
    judge = _write(tmp_path, pd.DataFrame({"idx": range(40), "result": ["1", "2", "Tie", "?"] * 10}), "gpt-pairs.csv")
    home = tmp_path / "study"
    code_, out, err = run(home, path, "--verdicts", judge, "--yes", "--name", "mine")
    assert code_ == 0, out + err
    landed = pd.read_parquet(project(home).raw_table("judge_verdicts"))
    assert len(landed) == 40 * 3 and set(landed["judge_id"]) == {"annotator1", "annotator2", "gpt"}
    assert (landed["parse_status"] == "failed").sum() == 10
    assert "orders: one" in (home / "study.yml").read_text()
    # a second run with other files does not overwrite the study without asking
    other = _write(tmp_path, pairs(41), "pairs41.csv")
    code_, _, err = run(home, other, "--yes")
    assert code_ == 2 and "already exist" in err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda f: f.assign(output_a=f.response1, output_b=f.response2),
            r"pairs.csv: the two answers are ambiguous: 'response1' / 'response2' and 'output_a' / 'output_b'",
        ),
        (
            lambda f: f.assign(response2=f.response1),
            r"columns 'response1' and 'response2' hold the same text on every row: the two answers cannot be told apart",
        ),
        (
            lambda f: f.assign(cmp_key=["alpha-7b_alpha-7b"] + list(f.cmp_key[1:])),
            r"pairs.csv: row 2: column 'cmp_key' names 'alpha-7b' on both sides",
        ),
        (
            lambda f: f.assign(annotator2=["good", "bad"] * 20),
            r"pairs.csv: column 'annotator2' is not a verdict column: values 'good', 'bad' are no verdict code",
        ),
        (
            lambda f: f.assign(annotator2=["0", "1"] * 20),
            r"pairs.csv: column 'annotator2' holds 0 and 1 only: 0 could be a tie or the first answer",
        ),
    ],
)
def test_bad_pairs_files_are_refused_by_name_and_nothing_is_written(tmp_path, change, message):
    path = _write(tmp_path, change(pairs()))
    home = tmp_path / "study"
    code_, out, err = run(home, path, "--yes")
    assert code_ == 2, out + err
    assert re.search(message, err), err
    assert "nothing was written" in err and "Traceback" not in err and not _written(home)


def test_a_named_verdict_column_of_no_verdicts_is_refused(tmp_path):
    path = _write(tmp_path, pairs())
    judge = _write(tmp_path, pd.DataFrame({"idx": range(40), "score": ["7.5", "8"] * 20}), "judge.csv")
    home = tmp_path / "study"
    code_, _, err = run(home, path, "--verdicts", judge, "--verdict-col", "score", "--yes")
    assert code_ == 2 and "judge.csv: column 'score' is not a verdict column: values '7.5', '8'" in err
    assert not _written(home)


def test_a_verdict_file_of_several_judges_is_split_by_its_judge_column():
    """A row per judge x pair: the column of few values that, with the pair id, names each row once."""
    frame = pairs()
    long = pd.DataFrame(
        {
            "idx": [str(k) for k in range(40)] * 2,
            "model": ["GPT-4"] * 40 + ["Claude 3"] * 40,
            "choice": ["a"] * 40 + ["b"] * 40,
        }
    )
    proposal = propose_judge(frame, "test.json", [VerdictFile(long, "long.csv", "long")], PairsOptions())
    v = proposal.tables["judge_verdicts"]
    llm = v[v.judge_kind == "llm"].groupby("judge_id")["verdict_overall"].agg(set)
    assert llm.to_dict() == {"gpt-4": {"1"}, "claude-3": {"2"}}
    assert [g.column for g in proposal.guesses if g.role == "judge"] == ["model"]


def test_a_verdict_column_named_nowhere_is_refused(tmp_path):
    home = tmp_path / "study"
    code_, _, err = run(home, _write(tmp_path, pairs()), "--verdict-col", "annotator9", "--yes")
    assert code_ == 2 and "--verdict-col 'annotator9': no such column in pairs.csv" in err and not _written(home)


FLIP = {"1": "2", "2": "1", "tie": "tie"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["1", "2", "tie"]), min_size=40, max_size=40).filter(lambda v: "1" in v or "2" in v))
def test_the_swapped_order_lands_the_same_by_position_whether_the_file_names_answers_or_positions(answers):
    """A judge who picked answers v in both orders: a file naming the answer in both (`winner`) and
    one giving the position (the other number when swapped) land the same positions: v in order AB,
    v flipped in BA."""
    frame = pairs().drop(columns=["idx"])
    named = pd.DataFrame({"swap = False": answers, "swap = True": answers})
    positions = pd.DataFrame({"swap = False": answers, "swap = True": [FLIP[a] for a in answers]})
    files = [VerdictFile(named, "a.json", "named"), VerdictFile(positions, "b.json", "positions")]
    v = propose_judge(frame, "test.json", files, PairsOptions()).tables["judge_verdicts"]
    for judge in ("named", "positions"):
        mine = v[v.judge_id == judge]
        assert list(mine[mine.order == "AB"]["verdict_overall"]) == answers
        assert list(mine[mine.order == "BA"]["verdict_overall"]) == [FLIP[a] for a in answers]


def test_a_rating_studys_files_beside_a_pairs_file_are_refused(tmp_path):
    home = tmp_path / "study"
    code_, _, err = run(home, _write(tmp_path, pairs()), "--raters", tmp_path / "raters.csv", "--yes")
    assert code_ == 2 and "--raters: a rating study's files, not a judge study's" in err and not _written(home)
