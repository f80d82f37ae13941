"""The prompts are the paper's (Supplement S2) word for word, and the label list and the scale
come from the study's data."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import REFERENCE as REFERENCE_DIR
from rater1001.paths import REPO_ROOT, project
from rater1001.runs.infer.prompts import STRATEGIES, render, template_id
from rater1001.study import FactorLabel, load_study

# Supplement S2's prompts verbatim (tests/reference/README.md says how the excerpt was checked).
REFERENCE = REFERENCE_DIR / "paper_s2_prompts.txt"
# The paper's typesetting turned the JSON's straight quotes into curly ones (docs/infer.md).
QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"'})


@pytest.fixture(scope="module")
def study():
    return load_study(project(REPO_ROOT))


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_every_step_renders_to_a_block_of_the_paper(study, strategy):
    paper = REFERENCE.read_text(encoding="utf-8").translate(QUOTES)
    blocks = [b.strip("\n") for b in paper.split("\n\n")]
    # json-single is printed with a blank line inside the prompt; rejoin neighbouring blocks.
    joined = blocks + [a + "\n\n" + b for a, b in zip(blocks, blocks[1:])]
    for step in STRATEGIES[strategy].steps:
        text = render(step, study, {c: "{" + c + "}" for c in step.carries})
        assert text in joined, f"{strategy}/{step.name} differs from S2:\n{text}"


def test_labels_and_scale_come_from_the_study(study):
    seven = [
        FactorLabel("emotion", l, "", (), i)
        for i, l in enumerate(["happy", "sad", "angry", "fear", "disgust", "neutral", "surprise"], 1)
    ]
    other = dataclasses.replace(
        study, scale_min=1, scale_max=7, labels=tuple(l for l in study.labels if l.factor != "emotion") + tuple(seven)
    )
    step1, step2, step3 = STRATEGIES["context-carry"].steps
    assert "neutral, surprise." in render(step1, other)
    assert "Rate from 1 to 7 where 1 is very unpleasant and 7 is very pleasant." in render(
        step2, other, {"emotion": "sad"}
    )
    assert "with pleasantness 3 out of 7." in render(step3, other, {"emotion": "sad", "valence": 3.0})


def test_a_carried_answer_is_required(study):
    with pytest.raises(ValueError, match="earlier answer"):
        render(STRATEGIES["context-carry"].steps[2], study, {"emotion": "sad"})


def test_template_id_names_the_version_and_hashes_the_text():
    ids = {template_id(s.template) for st in STRATEGIES.values() for s in st.steps}
    assert len(ids) == 7 and all(".v1.txt@" in i for i in ids)
