"""The parsing cascade (S2.4) on real-looking model outputs: every path, fuzzy labels, clamps,
thinking blocks, and failures that stay failures."""
from __future__ import annotations

import pytest

from rater1001.infer.parse import StepParser, split_thinking, weakest
from rater1001.paths import REPO_ROOT, project
from rater1001.study import load_study

ALL = ("emotion", "valence", "arousal")


@pytest.fixture(scope="module")
def parser():
    return StepParser(load_study(project(REPO_ROOT)))


@pytest.mark.parametrize("text, fields, values, path", [
    ('{"emotion": "happy"}', ("emotion",), {"emotion": "happy"}, "json"),
    ('{"emotion": "sad", "valence": 2, "arousal": 4}', ALL, {"emotion": "sad", "valence": 2.0, "arousal": 4.0}, "json"),
    ('```json\n{"valence": 7}\n```', ("valence",), {"valence": 7.0}, "fenced"),
    ('```\n{"emotion": "Angry", "valence": 3, "arousal": 8}\n```', ALL, {"emotion": "angry", "valence": 3.0, "arousal": 8.0}, "fenced"),
    ('Sure! Here is my answer: {"arousal": 6}. Let me know if you need more.', ("arousal",), {"arousal": 6.0}, "fenced"),
    ('<think>The brows are lowered and the lips pressed... maybe angry, maybe disgust.</think>\n{"emotion": "disgust", "valence": 2, "arousal": 6}',
     ALL, {"emotion": "disgust", "valence": 2.0, "arousal": 6.0}, "json"),
    ('<think>\nThe person is smiling broadly.\n</think>\n\n```json\n{"emotion": "happy", "valence": 8, "arousal": 7}\n```',
     ALL, {"emotion": "happy", "valence": 8.0, "arousal": 7.0}, "fenced"),
    ('Emotion: Fearful', ("emotion",), {"emotion": "fear"}, "regex"),
    ('The facial expression in this image is neutral.', ("emotion",), {"emotion": "neutral"}, "regex"),
    ('Happiness.', ("emotion",), {"emotion": "happy"}, "regex"),
    ('DISGUSTED', ("emotion",), {"emotion": "disgust"}, "regex"),
    ('슬픔', ("emotion",), {"emotion": "sad"}, "regex"),
    ('{"emotion": "분노"}', ("emotion",), {"emotion": "angry"}, "json"),
    ('7', ("valence",), {"valence": 7.0}, "regex"),
    ('I would rate it 3 out of 9.', ("valence",), {"valence": 3.0}, "regex"),
    ('6/9', ("arousal",), {"arousal": 6.0}, "regex"),
    ('{"emotion": "sad", "valence": 2, "arou', ALL, None, "failed"),  # truncated: arousal missing
    ('emotion: sad, valence: "4", arousal: 5', ALL, {"emotion": "sad", "valence": 4.0, "arousal": 5.0}, "regex"),
])
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


@pytest.mark.parametrize("raw, expected, clamped", [(12, 9.0, 12.0), (0, 1.0, 0.0), (-3, 1.0, -3.0), (9, 9.0, None), (6.5, 6.5, None)])
def test_values_are_clamped_to_the_scale_and_the_clamp_recorded(parser, raw, expected, clamped):
    out = parser.parse(f'{{"valence": {raw}}}', ("valence",))
    assert out.values["valence"] == expected
    assert out.clamped.get("valence") == clamped


@pytest.mark.parametrize("text", [
    "", "   ", "I'm sorry, I can't help with identifying people.",
    '{"emotion": "surprise"}',  # not a label of the study
    "It could be sad or it could be angry.",  # two labels: choosing one would be a guess
    '{"valence": "high"}',
    "<think>happy? sad? I keep going back and forth and then the budget ran out",
])
def test_failures_are_a_status_never_a_value(parser, text):
    fields = ("valence",) if "valence" in text else ("emotion",)
    out = parser.parse(text, fields)
    assert out.path == "failed" and not out.values and set(out.errors) == set(fields)


def test_a_thinking_block_is_kept_and_not_parsed(parser):
    body, thinking = split_thinking("<think>She looks sad, valence 2.</think>{\"emotion\": \"happy\"}")
    assert thinking == "She looks sad, valence 2." and body == '{"emotion": "happy"}'
    out = parser.parse("<think>She looks sad, valence 2.</think>{\"emotion\": \"happy\"}", ("emotion",))
    assert out.values == {"emotion": "happy"} and out.thinking.startswith("She looks sad")


def test_the_weakest_path_wins():
    assert weakest(["json", "regex", "fenced"]) == "regex"
    assert weakest(["json", "failed"]) == "failed"
    assert weakest([]) == "failed"
