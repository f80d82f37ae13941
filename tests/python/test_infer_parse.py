"""The parsing cascade (S2.4) on real-looking model outputs: every path, fuzzy labels, clamps,
thinking blocks, and failures that stay failures; the strict policy against a corpus of refusals
and error messages, and the paper policy kept as S2.4 describes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.paths import REPO_ROOT, project
from rater1001.runs.infer.parse import StepParser, split_thinking, weakest
from rater1001.study import load_study

ALL = ("emotion", "valence", "arousal")


NON_ANSWERS = [
    line.replace("\\n", "\n")
    for line in (Path(__file__).parent / "fixtures" / "non_answers.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
STEPS = [("emotion",), ("valence",), ("arousal",), ALL]


@pytest.fixture(scope="module")
def parser():
    return StepParser(load_study(project(REPO_ROOT)))


@pytest.fixture(scope="module")
def paper():
    return StepParser(load_study(project(REPO_ROOT)), policy="paper")


@pytest.mark.parametrize(
    "text, fields, values, path",
    [
        ('{"emotion": "happy"}', ("emotion",), {"emotion": "happy"}, "json"),
        (
            '{"emotion": "sad", "valence": 2, "arousal": 4}',
            ALL,
            {"emotion": "sad", "valence": 2.0, "arousal": 4.0},
            "json",
        ),
        ('```json\n{"valence": 7}\n```', ("valence",), {"valence": 7.0}, "fenced"),
        (
            '```\n{"emotion": "Angry", "valence": 3, "arousal": 8}\n```',
            ALL,
            {"emotion": "angry", "valence": 3.0, "arousal": 8.0},
            "fenced",
        ),
        (
            'Sure! Here is my answer: {"arousal": 6}. Let me know if you need more.',
            ("arousal",),
            {"arousal": 6.0},
            "fenced",
        ),
        (
            '<think>The brows are lowered and the lips pressed... maybe angry, maybe disgust.</think>\n{"emotion": "disgust", "valence": 2, "arousal": 6}',
            ALL,
            {"emotion": "disgust", "valence": 2.0, "arousal": 6.0},
            "json",
        ),
        (
            '<think>\nThe person is smiling broadly.\n</think>\n\n```json\n{"emotion": "happy", "valence": 8, "arousal": 7}\n```',
            ALL,
            {"emotion": "happy", "valence": 8.0, "arousal": 7.0},
            "fenced",
        ),
        ("Emotion: Fearful", ("emotion",), {"emotion": "fear"}, "regex"),
        ("The facial expression in this image is neutral.", ("emotion",), {"emotion": "neutral"}, "regex"),
        ("Happiness.", ("emotion",), {"emotion": "happy"}, "regex"),
        ("DISGUSTED", ("emotion",), {"emotion": "disgust"}, "regex"),
        ("슬픔", ("emotion",), {"emotion": "sad"}, "regex"),
        ('{"emotion": "분노"}', ("emotion",), {"emotion": "angry"}, "json"),
        ("7", ("valence",), {"valence": 7.0}, "regex"),
        ("I would rate it 3 out of 9.", ("valence",), {"valence": 3.0}, "regex"),
        ("6/9", ("arousal",), {"arousal": 6.0}, "regex"),
        ('{"emotion": "sad", "valence": 2, "arou', ALL, None, "failed"),  # truncated: arousal missing
        ('emotion: sad, valence: "4", arousal: 5', ALL, {"emotion": "sad", "valence": 4.0, "arousal": 5.0}, "regex"),
        (
            "The mouth corners are down.\n**Emotion:** sad\n**Valence:** 3\n**Arousal:** 4\nA clear case.",
            ALL,
            {"emotion": "sad", "valence": 3.0, "arousal": 4.0},
            "regex",
        ),
        ("Looking at the brows...\nValence: 6", ("valence",), {"valence": 6.0}, "regex"),
        ("Sad. The inner brows are raised and the lip corners pulled down.", ("emotion",), {"emotion": "sad"}, "regex"),
        ("7\nThe smile looks genuine, so fairly pleasant.", ("valence",), {"valence": 7.0}, "regex"),
        ("The expression is angry. Note the lowered brows.", ("emotion",), {"emotion": "angry"}, "regex"),
    ],
)
def test_cascade(parser, text, fields, values, path):
    out = parser.parse(text, fields)
    assert out.path == path
    if values is not None:
        assert out.values == values
        assert out.ok


def test_a_label_outside_the_study_is_not_matched_by_accident(parser):
    # "Surprised-happy": neither the whole answer nor its first three letters ("sur") name a label.
    assert parser.parse('{"emotion": "Surprised-happy"}', ("emotion",)).path == "failed"
    # ...whereas a spelling whose first three letters are unique does match ("Sadness" -> sad).
    assert parser.parse('{"emotion": "Sadly"}', ("emotion",)).values == {"emotion": "sad"}


def test_truncated_json_keeps_what_was_readable_and_fails_the_rest(parser):
    out = parser.parse('{"emotion": "sad", "valence": 2, "arou', ALL)
    assert out.values == {"emotion": "sad", "valence": 2.0}
    assert set(out.errors) == {"arousal"} and out.path == "failed"


@pytest.mark.parametrize(
    "raw, expected, clamped",
    [(12, 9.0, 12.0), (0, 1.0, 0.0), (-3, 1.0, -3.0), (9, 9.0, None), (6.5, 6.5, None), (502, 9.0, 502.0)],
)
def test_the_paper_policy_clamps_every_number_and_records_the_clamp(paper, raw, expected, clamped):
    out = paper.parse(f'{{"valence": {raw}}}', ("valence",))
    assert out.values["valence"] == expected
    assert out.clamped.get("valence") == clamped


@pytest.mark.parametrize(
    "raw, expected, clamped",
    [
        (10, 9.0, 10.0),
        (0, 1.0, 0.0),
        (9.5, 9.0, 9.5),
        (9, 9.0, None),
        (6.5, 6.5, None),
        (12, None, None),
        (-3, None, None),
        (502, None, None),
    ],
)
def test_the_strict_policy_clamps_only_values_just_outside_the_scale(parser, raw, expected, clamped):
    out = parser.parse(f'{{"valence": {raw}}}', ("valence",))
    assert out.values.get("valence") == expected
    assert out.clamped.get("valence") == clamped
    if expected is None:
        assert out.path == "failed" and "outside the scale" in out.errors["valence"]


@pytest.mark.parametrize("text", NON_ANSWERS)
def test_refusals_and_error_messages_never_become_ratings(parser, text):
    assert len(NON_ANSWERS) >= 30
    for fields in STEPS:
        out = parser.parse(text, fields)
        assert out.path == "failed" and out.values == {} and set(out.errors) == set(fields), (fields, out.values)


def test_a_refusal_is_named_as_such_and_the_policy_is_recorded(parser, paper):
    out = parser.parse("I cannot see any image. I fear the upload failed (error 502).", ("valence",))
    assert "refusal or an error message" in out.errors["valence"]
    assert out.as_dict()["policy"] == "strict" and paper.parse("7", ("valence",)).as_dict()["policy"] == "paper"
    with pytest.raises(ValueError, match="unknown parse policy 'lenient'"):
        StepParser(parser.study, policy="lenient")


@pytest.mark.parametrize(
    "text, fields, values",
    [
        # the defects the strict policy exists for: the paper's cascade reads these as answers
        ("I cannot see any image. I fear the upload failed (error 502).", ("emotion",), {"emotion": "fear"}),
        ("I cannot see any image. I fear the upload failed (error 502).", ("valence",), {"valence": 9.0}),
        ("Error 429: Too Many Requests. Please retry after 5 seconds.", ("valence",), {"valence": 9.0}),
        ("This request was blocked under our content policy (policy 3.2).", ("arousal",), {"arousal": 3.2}),
        ("Happy to help! However, I can't see any image attached to your message.", ("emotion",), {"emotion": "happy"}),
    ],
)
def test_the_paper_policy_keeps_the_s24_cascade_as_published(paper, parser, text, fields, values):
    out = paper.parse(text, fields)
    assert out.values == values and out.path == "regex"
    assert parser.parse(text, fields).path == "failed"


@settings(max_examples=200, deadline=None)
@given(
    v=st.integers(1, 9),
    form=st.sampled_from(
        [
            "{v}",
            "{v}/9",
            "{v} out of 9",
            "I would rate it {v} out of 9.",
            "Rating: {v}",
            "**{v}**",
            "Valence: {v}",
            "The valence is {v}.",
        ]
    ),
)
def test_strict_reads_a_number_given_as_an_answer(parser, v, form):
    out = parser.parse(form.format(v=v), ("valence",))
    assert out.values == {"valence": float(v)} and out.path == "regex"


@settings(max_examples=200, deadline=None)
@given(
    v=st.integers(-1000, 1000),
    words=st.lists(
        st.sampled_from(
            [
                "error",
                "the",
                "upload",
                "failed",
                "please",
                "retry",
                "after",
                "seconds",
                "code",
                "sorry",
                "image",
                "policy",
            ]
        ),
        min_size=2,
        max_size=8,
    ),
    at=st.integers(0, 8),
)
def test_strict_never_pulls_a_number_out_of_prose(parser, v, words, at):
    text = " ".join(words[:at] + [str(v)] + words[at:])
    assert parser.parse(text, ("valence",)).path == "failed"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "I'm sorry, I can't help with identifying people.",
        '{"emotion": "surprise"}',  # not a label of the study
        "It could be sad or it could be angry.",  # two labels: choosing one would be a guess
        '{"valence": "high"}',
        "1. The valence is 7, 2. the arousal is 3",  # a numbered list: neither 1 nor 7 is safe to take
        "<think>happy? sad? I keep going back and forth and then the budget ran out",
    ],
)
def test_failures_are_a_status_never_a_value(parser, text):
    fields = ("valence",) if "valence" in text else ("emotion",)
    out = parser.parse(text, fields)
    assert out.path == "failed" and not out.values and set(out.errors) == set(fields)


def test_a_thinking_block_is_kept_and_not_parsed(parser):
    body, thinking = split_thinking('<think>She looks sad, valence 2.</think>{"emotion": "happy"}')
    assert thinking == "She looks sad, valence 2." and body == '{"emotion": "happy"}'
    out = parser.parse('<think>She looks sad, valence 2.</think>{"emotion": "happy"}', ("emotion",))
    assert out.values == {"emotion": "happy"} and out.thinking.startswith("She looks sad")


def test_the_weakest_path_wins():
    assert weakest(["json", "regex", "fenced"]) == "regex"
    assert weakest(["json", "failed"]) == "failed"
    assert weakest([]) == "failed"
