"""Prompt strategies of Supplement S2 as versioned template files.

A strategy is a list of steps. Each step renders one template and asks for some fields; steps
after the first may carry earlier answers (context-carry). The label list and the scale come from
the study (study.yml, seeds/factor_labels.csv), never from code."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from string import Template

from ...study import Study

TEMPLATE_PACKAGE = "rater1001.templates"


@dataclass(frozen=True)
class Step:
    name: str  # emotion / valence / arousal / all
    template: str  # file name, version included (s2_..._emotion.v1.txt)
    fields: tuple[str, ...]  # what this step's answer must contain
    carries: tuple[str, ...]  # earlier answers substituted into this step's prompt
    expects_json: bool


@dataclass(frozen=True)
class Strategy:
    name: str
    steps: tuple[Step, ...]


STRATEGIES: dict[str, Strategy] = {
    "context-carry": Strategy(
        "context-carry",
        (
            Step("emotion", "s2_context_carry_emotion.v1.txt", ("emotion",), (), True),
            Step("valence", "s2_context_carry_valence.v1.txt", ("valence",), ("emotion",), True),
            Step("arousal", "s2_context_carry_arousal.v1.txt", ("arousal",), ("emotion", "valence"), True),
        ),
    ),
    "json-single": Strategy(
        "json-single", (Step("all", "s2_json_single.v1.txt", ("emotion", "valence", "arousal"), (), True),)
    ),
    # S2.3: base models that cannot follow a JSON instruction answer with one word / one number.
    "plain": Strategy(
        "plain",
        (
            Step("emotion", "s2_plain_emotion.v1.txt", ("emotion",), (), False),
            Step("valence", "s2_plain_valence.v1.txt", ("valence",), ("emotion",), False),
            Step("arousal", "s2_plain_arousal.v1.txt", ("arousal",), ("emotion", "valence"), False),
        ),
    ),
}
# A facial-expression classifier (Supplement S1): no prompt, one label from the image.
FER_STRATEGY = Strategy("fer", (Step("classify", "", ("emotion",), (), False),))
TEXT_TEMPLATE = "text_json_single.v1.txt"


def label_field(study: Study) -> str | None:
    """The answer field holding the category label: the category factor's name (emotion in the paper);
    None for a study without a category (ratings only), whose prompts ask for no label."""
    return study.category.name if study.category is not None else None


def text_strategy(study: Study, name: str | None = None) -> Strategy:
    """A text stimulus (stimulus_kind: text) is asked once, as json-single is, for the category label
    and every model dimension the study declares; the text stands where the image would."""
    if (name or "json-single") != "json-single":
        raise ValueError(
            f"strategy {name!r} is for images; a text study is asked with json-single "
            "(one JSON answer with the label and each model dimension)"
        )
    label = label_field(study)
    fields = (*([label] if label else []), *study.model_dimensions)
    if not fields:
        raise ValueError("the study declares no category and no model dimension: a text prompt would ask for nothing")
    return Strategy("json-single", (Step("all", TEXT_TEMPLATE, fields, (), True),))


def strategy(name: str) -> Strategy:
    try:
        return STRATEGIES[name]
    except KeyError:
        raise KeyError(f"unknown strategy {name!r}; expected one of {', '.join(STRATEGIES)}") from None


def template_text(name: str) -> str:
    text = resources.files(TEMPLATE_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    return text.rstrip("\n")


def template_id(name: str) -> str:
    """File name (with its version) plus a hash of its text, so an edited file changes the key."""
    digest = hashlib.sha256(template_text(name).encode("utf-8")).hexdigest()[:12]
    return f"{name}@{digest}"


def format_value(value) -> str:
    """Carried numbers are shown as the model would read them: 7, not 7.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def study_variables(study: Study) -> dict[str, str]:
    label = label_field(study)
    labels = ", ".join(study.levels(label)) if label else ""
    lo, hi = study.scale_min, study.scale_max
    # The JSON a text prompt asks for, from the study's declaration: the label (when the study has a
    # category), then one integer per model dimension on the study's scale.
    fields = ([f'"{label}": "<one of: {labels}>"'] if label else []) + [
        f'"{d}": <integer {lo}-{hi}, your rating of the text\'s {d}>' for d in study.model_dimensions
    ]
    return {"labels": labels, "scale_min": str(lo), "scale_max": str(hi), "answer_fields": ", ".join(fields)}


def render(step: Step, study: Study, carried: dict[str, object] | None = None, text: str | None = None) -> str:
    carried = carried or {}
    missing = [c for c in step.carries if c not in carried]
    if missing:
        raise ValueError(f"step {step.name!r} needs the earlier answer(s) {missing}")
    values = prompt_variables(study, carried)
    if text is not None:
        values["text"] = text
    return Template(template_text(step.template)).substitute(values)


def prompt_variables(study: Study, carried: dict[str, object]) -> dict[str, str]:
    """What a template's placeholders are filled with, except a text stimulus itself."""
    return {**study_variables(study), **{k: format_value(v) for k, v in carried.items()}}
