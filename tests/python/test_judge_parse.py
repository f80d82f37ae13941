"""The verdict parser on what judges really write, and on what it must refuse."""

from __future__ import annotations

import pytest
from rater1001.paths import REPO_ROOT
from rater1001.runs.judge.catalog import load_axes
from rater1001.runs.judge.parse import VerdictParser, read_choice
from rater1001.runs.judge.prompt import render, template_text

PARSER = VerdictParser(load_axes(REPO_ROOT / "seeds"))

LOG_EXAMPLE = """1축 (공감 반응): 1
2축 (한국어 자연): 1
3축 (맥락 일관): 1
종합: 1
이유: 응답 1은 친구의 성취와 19년 우정에 대해 구체적으로 언급하며
"서로에게 좋은 영향을 주는 관계"라고 짚어 줘서 공감과 칭찬이 잘 드러난다."""


def test_the_logs_real_verdict():
    r = PARSER.parse(LOG_EXAMPLE)
    assert r.verdicts == {"empathy": "1", "naturalness": "1", "coherence": "1", "overall": "1"}
    assert r.status == "ok" and r.problems == []
    assert r.reason.startswith("응답 1은") and r.reason.endswith("드러난다.") and "\n" in r.reason


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "**1축 (공감 반응)**： 응답 2\n**2축 (한국어 자연)**：tie\n**3축 (맥락 일관)**： 1번\n**종합**： 2",
            ("2", "tie", "1", "2"),
        ),
        (
            "1축(공감 반응) :  무승부\n2축 (한국어 자연): 동점\n3축 (맥락 일관) : ２\n종합 : 비김",
            ("tie", "tie", "2", "tie"),
        ),
        (
            "- Empathic Response: Response 1\n- Korean Linguistic Appropriateness: Response 2\n"
            "- Contextual Coherence: Tie\n- Overall: Response 1",
            ("1", "2", "tie", "1"),
        ),
        (
            "공감적 반응: 2 (응답 2가 더 구체적)\n한국어 자연스러움: 1\n맥락 일관성: 응답1\n종합 판정: 2",
            ("2", "1", "1", "2"),
        ),
        ("1. 1축 (공감 반응): __1__\n2. 2축 (한국어 자연): 1\n3. 3축 (맥락 일관): 2\n4. 종합: 1", ("1", "1", "2", "1")),
    ],
)
def test_formats_judges_really_write(text, expected):
    r = PARSER.parse(text)
    assert tuple(r.verdicts[a] for a in ("empathy", "naturalness", "coherence", "overall")) == expected
    assert r.status == "ok"


def test_failures_are_recorded_not_guessed():
    r = PARSER.parse("1축 (공감 반응): 1 / 2 / tie\n2축 (한국어 자연): 응답 1과 응답 2 모두 좋음\n종합: 1")
    assert r.verdicts == {"empathy": None, "naturalness": None, "coherence": None, "overall": "1"}
    assert r.status == "partial"
    assert any(p.startswith("empathy: cannot read") for p in r.problems)
    assert any(p.startswith("coherence: no verdict line") for p in r.problems)
    refusal = PARSER.parse("죄송합니다. 판단하기 어렵습니다.")
    assert refusal.status == "failed" and all(v is None for v in refusal.verdicts.values())
    assert PARSER.parse("").status == "failed" and PARSER.parse(None).problems == ["empty answer"]


def test_contradictory_lines_void_the_axis():
    r = PARSER.parse("종합: 1\n종합: 2")
    assert r.verdicts["overall"] is None and "overall: contradictory verdicts" in r.problems


def test_a_reason_mentioning_axes_does_not_override_verdicts():
    r = PARSER.parse(
        "1축 (공감 반응): 2\n2축 (한국어 자연): 2\n3축 (맥락 일관): 2\n종합: 2\n"
        "이유: 응답 1은 형식적이다.\n공감 반응: 응답 1이 부족함"
    )
    assert r.verdicts["empathy"] == "2" and "공감 반응" in r.reason


@pytest.mark.parametrize(
    "value,expected",
    [
        ("1", "1"),
        (" 2 ", "2"),
        ("tie", "tie"),
        ("TIE", "tie"),
        ("응답 2", "2"),
        ("1번", "1"),
        ("Response 1", "1"),
        ("무승부", "tie"),
        ("동점", "tie"),
        ("19", None),
        ("1 / 2 / tie", None),
        ("", None),
        ("응답 1, 응답 2", None),
    ],
)
def test_read_choice(value, expected):
    assert read_choice(value) == expected


def test_prompt_is_the_logs_template_with_positions_filled():
    """v1, the lab log's prompt verbatim (the default is v2, the same prompt fenced)."""
    v1 = "judge_pairwise_ko.v1.txt"
    text = template_text(v1)
    assert text.startswith("다음은 한국어 대화입니다. 마지막 화자 [${next_speaker}]의 응답으로 후보 두 개가")
    assert "응답 길이는 평가 대상이 아닙니다." in text and "종합: 1 / 2 / tie" in text
    prompt = render(
        next_speaker="A",
        situation="상황",
        turns=[("A", "안녕"), ("B", "응")],
        response_1="첫째",
        response_2="둘째",
        template=v1,
    )
    assert "[응답 후보] 응답 1: 첫째 / 응답 2: 둘째" in prompt
    assert "[대화] A: 안녕\nB: 응" in prompt and "[A]의 응답" in prompt
