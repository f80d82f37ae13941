"""Bad judge input on `rater1001 ingest judge_verdicts`: a verdict naming a candidate or dialogue
that has not landed, one presentation of a pair judged twice with different answers (also when
the pair is written the other way round), and a verdict on an axis the study does not declare are
rejected with file, row, column and value; the rest lands. Also study.yml's judge block."""

from __future__ import annotations

import contextlib
import io
import json

import pandas as pd
import pytest
from rater1001.cli import main
from rater1001.paths import project
from rater1001.study import StudyError, load_study

STUDY = "name: judge-only\nscale: {min: 1, max: 9}\ndimensions: []\njudge: {axes: [overall], orders: one}\n"


def write(path, rows):
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def ingest(root, table, path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--home", str(root), "ingest", table, str(path)])
    return code, out.getvalue()


@pytest.fixture
def landed(tmp_path):
    (tmp_path / "study.yml").write_text(STUDY, encoding="utf-8")
    turns = json.dumps([{"speaker": "user", "text": "hi"}])
    d = write(
        tmp_path / "d.csv",
        [{"sample_id": s, "category": "c", "turns": turns, "next_speaker": "bot"} for s in ("q1", "q2")],
    )
    c = write(
        tmp_path / "c.csv",
        [
            {"sample_id": s, "candidate_id": m, "variant": "v", "response_text": f"{m} says", "status": "ok"}
            for s in ("q1", "q2")
            for m in ("gpt-4", "vicuna")
        ],
    )
    assert ingest(tmp_path, "dialogues", d)[0] == 0 and ingest(tmp_path, "candidates", c)[0] == 0
    return tmp_path


def verdict(**kw):
    row = {
        "judge_id": "gpt4-judge",
        "judge_kind": "llm",
        "sample_id": "q1",
        "variant": "v",
        "candidate_a": "gpt-4",
        "candidate_b": "vicuna",
        "order": "AB",
        "verdict_overall": "1",
        "parse_status": "ok",
    }
    return row | kw


def test_bad_verdict_rows_are_rejected_with_file_row_column_and_value_and_the_rest_lands(landed):
    rows = [
        verdict(),  # row 2: good
        verdict(sample_id="q2", candidate_b="alpaca"),  # row 3: a candidate not landed
        verdict(sample_id="q9"),  # row 4: a dialogue not landed
        verdict(judge_id="h1", judge_kind="human", sample_id="q2", order="AB", verdict_overall="1"),  # row 5
        # row 6: the same presentation (vicuna shown second) written the other way round, another answer
        verdict(
            judge_id="h1",
            judge_kind="human",
            sample_id="q2",
            candidate_a="vicuna",
            candidate_b="gpt-4",
            order="BA",
            verdict_overall="2",
        ),
        verdict(judge_id="other", verdict_empathy="2"),  # row 7: an axis the study does not declare
        verdict(judge_id="third", order="BA"),  # row 8: good
    ]
    path = write(landed / "v.csv", rows)
    code, out = ingest(landed, "judge_verdicts", path)
    assert code == 3, out
    got = pd.read_parquet(project(landed).raw_table("judge_verdicts"))
    assert sorted(got["judge_id"]) == ["gpt4-judge", "third"]
    rejected = pd.read_parquet(project(landed).rejected_table("judge_verdicts")).set_index("_source_row")
    assert set(rejected["_source_file"]) == {str(path)} and sorted(rejected.index) == [3, 4, 5, 6, 7]
    reason = {row: " ".join(r) for row, r in rejected["_reason"].items()}
    assert reason[3] == (
        "sample_id,candidate_b='(q2, alpaca)': no such sample_id, candidate_id in the landed candidates "
        "table [foreign_key:candidates]"
    )
    assert "sample_id='q9'" in reason[4] and "[foreign_key:dialogues]" in reason[4]
    for row in (5, 6):
        assert "[judged_twice]" in reason[row] and "different answers" in reason[row]
    assert (
        reason[7].startswith("verdict_empathy='2'")
        and "does not declare" in reason[7]
        and "[undeclared_axis]" in reason[7]
    )
    assert "judge_verdicts" in out and "undeclared_axis" in out


def test_the_same_presentation_with_the_same_answer_either_way_round_lands(landed):
    rows = [
        verdict(judge_id="h1", judge_kind="human"),
        verdict(judge_id="h1", judge_kind="human", sample_id="q2"),
        verdict(
            judge_id="h2",
            judge_kind="human",
            candidate_a="vicuna",
            candidate_b="gpt-4",
            order="BA",
            verdict_overall="2",
        ),
    ]
    code, out = ingest(landed, "judge_verdicts", write(landed / "v.csv", rows))
    assert code == 0, out


@pytest.mark.parametrize(
    "block,message",
    [
        ("judge: {axes: [loudness]}", "judge.axes"),
        ("judge: {orders: three}", "judge.orders"),
        ("judge: {order: one}", "judge must be a mapping"),
    ],
)
def test_the_study_judge_block_is_checked(tmp_path, block, message):
    (tmp_path / "study.yml").write_text(f"scale: {{min: 1, max: 9}}\n{block}\n", encoding="utf-8")
    with pytest.raises(StudyError, match=message):
        load_study(project(tmp_path))
    (tmp_path / "study.yml").write_text(STUDY, encoding="utf-8")
    s = load_study(project(tmp_path))
    assert s.judge_axes == ("overall",) and s.judge_orders == "one"


def test_the_quality_gate_checks_a_judge_only_study_by_its_own_tables(landed):
    from rater1001.quality.gate import run_quality_gate

    code, out = ingest(landed, "judge_verdicts", write(landed / "v.csv", [verdict(), verdict(order="BA")]))
    assert code == 0, out
    result = run_quality_gate(project(landed))
    assert result.passed, result.summary()
    assert not any("stimuli" in line or "human_ratings" in line for line in result.failures + result.warnings)
    # a judge study without its verdicts is missing a required table, named as such
    project(landed).raw_table("judge_verdicts").unlink()
    result = run_quality_gate(project(landed))
    assert not result.passed
    assert any(line.startswith("required table judge_verdicts is missing") for line in result.failures)
