"""The data contract of the landing zone (docs/ingest.md).

One home for what each landed table holds: its columns, their types, which may be null, the
rules a value must satisfy, the key, and which other tables its ids must exist in. `ingest`
validates against it, `simulate` writes through it, the quality gate and the dbt sources
describe the same columns. Label sets and the rating scale are *study data* (seeds and
`study.yml`), so a rule refers to them by name ("scale", "factor:emotion") rather than listing values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pyarrow as pa

# Arrow types by contract type name.
ARROW_TYPES = {
    "string": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
}


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # one of ARROW_TYPES
    required: bool = False  # NOT NULL
    # Rules, checked in this order after the type:
    #   "scale"          value within study.yml scale [min, max]
    #   "scale_integer"  "scale" and a whole number (human Likert ratings)
    #   "factor:NAME"    a label of seeds/factor_labels.csv factor NAME (canonicalised on ingest)
    #   "positive"       > 0
    #   "non_negative"   >= 0
    #   "enum:a|b|c"     one of the listed values
    #   "age"            an age in years, 0 < age < 130
    rule: str | None = None
    doc: str = ""
    # Free text kept exactly as written (model responses, thinking traces, dialogue turns):
    # ingest does not trim it or read 'NA'/'null' as missing, only an empty cell.
    verbatim: bool = False


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class TableSpec:
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...] = field(default_factory=tuple)
    doc: str = ""

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.name} has no column {name!r}")

    def arrow_schema(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, ARROW_TYPES[c.type], nullable=not c.required) for c in self.columns])


STRATEGIES = "context-carry|json-single|plain|fer"
PARSE_PATHS = "json|fenced|regex|failed"
CONDITION_KINDS = "vlm|fer|llm|human-proxy"

STIMULI = TableSpec(
    name="stimuli",
    doc=(
        "One row per stimulus (an image or a text) shown to raters and models: its declared factors "
        "(study.yml; required when declared) and where its content is."
    ),
    key=("image_id",),
    columns=(
        Column("image_id", "string", True, doc="Stimulus key (images and texts alike)."),
        Column(
            "identity_id",
            "string",
            False,
            doc="The depicted (synthetic) person; one identity appears once per emotion.",
        ),
        Column(
            "race",
            "string",
            False,
            "factor:race",
            "Race of the depicted face (declared set in seeds/factor_labels.csv); an audit factor.",
        ),
        Column("gender", "string", False, "factor:gender", "Gender of the depicted face; an audit factor."),
        Column(
            "emotion",
            "string",
            False,
            "factor:emotion",
            "Intended (ground-truth) category of the stimulus: the study's category factor.",
        ),
        Column("file_path", "string", False, doc="Path of the image file, relative to the study's image folder."),
        Column(
            "text", "string", False, doc="The stimulus text, for a study whose stimulus_kind is text.", verbatim=True
        ),
    ),
)

RATERS = TableSpec(
    name="raters",
    doc="One row per human rater.",
    key=("rater_id",),
    columns=(
        Column("rater_id", "string", True, doc="Rater key."),
        Column(
            "gender",
            "string",
            False,
            "factor:gender",
            "Rater's gender (required when study.yml declares it a rater attribute).",
        ),
        Column("age", "int", False, "age", "Rater's age in years (optional)."),
    ),
)

HUMAN_RATINGS = TableSpec(
    name="human_ratings",
    doc="One row per (rater, image): the rater's dimensional ratings and response times.",
    key=("rater_id", "image_id"),
    foreign_keys=(
        ForeignKey(("rater_id",), "raters", ("rater_id",)),
        ForeignKey(("image_id",), "stimuli", ("image_id",)),
    ),
    columns=(
        Column("rater_id", "string", True, doc="Who rated."),
        Column("image_id", "string", True, doc="What was rated."),
        Column(
            "valence",
            "int",
            False,
            "scale_integer",
            "Valence rating, integer on the study scale (1 = very unpleasant).",
        ),
        Column("arousal", "int", False, "scale_integer", "Arousal rating, integer on the study scale (1 = very calm)."),
        Column("naturalness", "int", False, "scale_integer", "Naturalness rating, integer on the study scale."),
        Column("rt_valence_ms", "float", False, "positive", "Response time of the valence rating, milliseconds."),
        Column("rt_arousal_ms", "float", False, "positive", "Response time of the arousal rating, milliseconds."),
        Column(
            "rt_naturalness_ms", "float", False, "positive", "Response time of the naturalness rating, milliseconds."
        ),
        Column("trial_index", "int", False, "positive", "Position of this image in the rater's sequence (1-based)."),
        Column(
            "emotion",
            "string",
            False,
            "factor:emotion",
            "Forced-choice emotion label given by the rater, where the study collected one.",
        ),
    ),
)

MODEL_CONDITIONS = TableSpec(
    name="model_conditions",
    doc="One row per model condition (Table 1): a model with its settings. Catalog rows live in seeds/model_condition_catalog.csv.",
    key=("condition_id",),
    columns=(
        Column("condition_id", "string", True, doc="Condition key, a slug (e.g. gemini-2.5-flash-nothink)."),
        Column("display_name", "string", True, doc="Name as printed in the paper's Table 1."),
        Column("short_name", "string", False, doc="Short column name used in the paper's tables (e.g. Gemini-NT)."),
        Column(
            "kind",
            "string",
            True,
            f"enum:{CONDITION_KINDS}",
            "vlm = vision-language model; fer = task-specific facial expression recogniser; llm = text model; human-proxy = a human or crowd answer treated as a condition.",
        ),
        Column("provider", "string", False, doc="Who publishes the model."),
        Column("model_id", "string", False, doc="Model identifier passed to the backend."),
        Column("family", "string", False, doc="Model family, for scaling series (e.g. gemma3)."),
        Column("parameters", "string", False, doc="Parameter count as printed (4B, Frontier)."),
        Column("size_b", "float", False, "positive", "Parameter count in billions where known."),
        Column("quantization", "string", False, doc="Quantization as printed (QAT 4-bit, Full-precision)."),
        Column("thinking", "bool", False, doc="Whether the condition produces a thinking trace (NULL = unknown)."),
        Column("thinking_budget", "int", False, doc="Thinking token budget; -1 = dynamic, 0 = thinking suppressed."),
        Column("include_thoughts", "bool", False, doc="Whether thought text was requested from the API."),
        Column(
            "backend",
            "string",
            False,
            "enum:mlx|openai|gemini|openai-compatible|huggingface|fer",
            "How the model is run (NULL = unknown).",
        ),
        Column("strategy", "string", False, f"enum:{STRATEGIES}", "Prompt strategy (Supplement S2)."),
        Column("temperature", "float", False, "non_negative", "Sampling temperature."),
        Column("seed", "int", False, doc="Sampling seed where the API takes one."),
        Column("image_detail", "string", False, doc="OpenAI image detail setting."),
        Column("repetition_penalty", "float", False, "positive", "Repetition penalty (local models)."),
        Column("paper_table", "string", False, doc="Where the condition is described in the source paper."),
    ),
)

MODEL_PREDICTIONS = TableSpec(
    name="model_predictions",
    doc="One row per (condition, image, run): the model's emotion label and dimensional ratings, with the raw responses.",
    key=("condition_id", "image_id", "run_id"),
    foreign_keys=(
        ForeignKey(("condition_id",), "model_conditions", ("condition_id",)),
        ForeignKey(("image_id",), "stimuli", ("image_id",)),
    ),
    columns=(
        Column("condition_id", "string", True, doc="Which model condition."),
        Column("image_id", "string", True, doc="Which image."),
        Column("run_id", "string", True, doc="Run / replicate identifier (one run per condition in the paper)."),
        Column(
            "strategy",
            "string",
            False,
            f"enum:{STRATEGIES}",
            "Prompt strategy used (fer = a facial-expression classifier, no prompt; NULL = unknown).",
        ),
        Column("emotion", "string", False, "factor:emotion", "Predicted emotion; NULL when parsing failed."),
        Column(
            "valence",
            "float",
            False,
            "scale",
            "Predicted valence on the study scale (clamped); NULL when parsing failed.",
        ),
        Column(
            "arousal",
            "float",
            False,
            "scale",
            "Predicted arousal on the study scale (clamped); NULL when parsing failed.",
        ),
        Column("raw_responses", "string", False, doc="JSON list of every step's raw response text.", verbatim=True),
        Column(
            "parse_path",
            "string",
            False,
            f"enum:{PARSE_PATHS}",
            "Weakest parse path over the steps (failed if any value could not be parsed; NULL = unknown).",
        ),
        Column(
            "parse_detail",
            "string",
            False,
            doc="JSON list, one object per step: parse path, parsed values, clamped values (field -> raw value before clamping to the scale) and parse errors.",
            verbatim=True,
        ),
        Column(
            "thinking_text", "string", False, doc="Thinking trace text, where the backend returns one.", verbatim=True
        ),
        Column(
            "thinking_tokens",
            "int",
            False,
            "non_negative",
            "Thinking tokens reported by the backend, summed over steps.",
        ),
        Column("latency_ms", "float", False, "non_negative", "Wall-clock latency summed over steps, milliseconds."),
        Column("input_tokens", "int", False, "non_negative", "Prompt tokens summed over steps."),
        Column("output_tokens", "int", False, "non_negative", "Completion tokens summed over steps."),
    ),
)

# --- The pairwise judge study (the lab log's protocol; docs/judge.md) -------------------

CANDIDATE_STATUS = "ok|error|missing"
JUDGE_ORDERS = "AB|BA"
JUDGE_VERDICT_VALUES = "1|2|tie"
JUDGE_PARSE_STATUS = "ok|partial|failed|ambiguous|call_failed"
JUDGE_KINDS = "llm|human"

DIALOGUES = TableSpec(
    name="dialogues",
    doc="One row per dialogue sample the candidates answer (e.g. KoED): situation, turns, who speaks next.",
    key=("sample_id",),
    columns=(
        Column("sample_id", "string", True, doc="Sample key (e.g. 기쁨-001)."),
        Column("category", "string", True, doc="Emotion category of the dialogue (e.g. 기쁨, 슬픔)."),
        Column("situation", "string", False, doc="The situation text shown to the judge as [상황].", verbatim=True),
        Column(
            "turns",
            "string",
            True,
            doc='The dialogue so far as a JSON list of {"speaker": ..., "text": ...} objects, in order.',
            verbatim=True,
        ),
        Column("next_speaker", "string", True, doc="The speaker whose next turn the candidates write."),
        Column("source", "string", False, doc="Dataset the sample comes from."),
    ),
)

CANDIDATES = TableSpec(
    name="candidates",
    doc="One row per (sample, candidate, input variant): the candidate's response text, or why there is none.",
    key=("sample_id", "candidate_id", "variant"),
    foreign_keys=(ForeignKey(("sample_id",), "dialogues", ("sample_id",)),),
    columns=(
        Column("sample_id", "string", True, doc="Which dialogue."),
        Column(
            "candidate_id", "string", True, doc="Which candidate (seeds/judge_candidate_catalog.csv: K, H, Q, M, P)."
        ),
        Column(
            "variant",
            "string",
            True,
            doc="Input variant the response was generated from (text, image, audio_neutral, audio_emotion).",
        ),
        Column(
            "response_text",
            "string",
            False,
            doc="The response; NULL when the candidate errored or is missing.",
            verbatim=True,
        ),
        Column(
            "status",
            "string",
            True,
            f"enum:{CANDIDATE_STATUS}",
            "ok = a response; error = the candidate run failed; missing = never produced.",
        ),
        Column("error", "string", False, doc="Why there is no response (status error).", verbatim=True),
        Column("model_id", "string", False, doc="Model identifier that produced the response."),
    ),
)

JUDGE_VERDICTS = TableSpec(
    name="judge_verdicts",
    doc=(
        "One row per judged pair and presentation order: the verdict per axis as the judge wrote it "
        "(1 = the response shown first, 2 = shown second, tie), the reason and the raw text."
    ),
    key=("judge_id", "sample_id", "variant", "candidate_a", "candidate_b", "order"),
    # the candidates of a pair by sample, not by variant: the anchor is landed once per sample
    foreign_keys=(
        ForeignKey(("sample_id",), "dialogues", ("sample_id",)),
        ForeignKey(("sample_id", "candidate_a"), "candidates", ("sample_id", "candidate_id")),
        ForeignKey(("sample_id", "candidate_b"), "candidates", ("sample_id", "candidate_id")),
    ),
    columns=(
        Column("judge_id", "string", True, doc="Which judge (an LLM configuration, or a human annotator)."),
        Column("judge_kind", "string", True, f"enum:{JUDGE_KINDS}", "llm or human."),
        Column("judge_model", "string", False, doc="Model identifier of an LLM judge."),
        Column("sample_id", "string", True, doc="Which dialogue."),
        Column("variant", "string", True, doc="Input variant of the judged candidates."),
        Column("candidate_a", "string", True, doc="First candidate of the pair (for anchor-only plans, the model)."),
        Column(
            "candidate_b", "string", True, doc="Second candidate of the pair (for anchor-only plans, the anchor P)."
        ),
        Column(
            "order",
            "string",
            True,
            f"enum:{JUDGE_ORDERS}",
            "AB = candidate_a shown as 응답 1; BA = candidate_b shown as 응답 1.",
        ),
        Column(
            "verdict_empathy",
            "string",
            False,
            f"enum:{JUDGE_VERDICT_VALUES}",
            "1축 공감적 반응 verdict, by position; NULL when not parsed.",
        ),
        Column(
            "verdict_naturalness",
            "string",
            False,
            f"enum:{JUDGE_VERDICT_VALUES}",
            "2축 한국어 자연스러움 verdict, by position.",
        ),
        Column(
            "verdict_coherence",
            "string",
            False,
            f"enum:{JUDGE_VERDICT_VALUES}",
            "3축 맥락 일관성 verdict, by position.",
        ),
        Column("verdict_overall", "string", False, f"enum:{JUDGE_VERDICT_VALUES}", "종합 verdict, by position."),
        Column("reason", "string", False, doc="이유: the judge's reason.", verbatim=True),
        Column("raw_text", "string", False, doc="The judge's full raw answer.", verbatim=True),
        Column(
            "parse_status",
            "string",
            True,
            f"enum:{JUDGE_PARSE_STATUS}",
            "ok = every axis parsed; partial = some; failed = none; ambiguous = more than one verdict "
            "block, none kept; call_failed = no answer.",
        ),
        Column("prompt_version", "string", False, doc="Judge prompt template file and text hash."),
        Column("input_tokens", "int", False, "non_negative", "Prompt tokens."),
        Column("output_tokens", "int", False, "non_negative", "Completion tokens."),
        Column(
            "cost_usd",
            "float",
            False,
            "non_negative",
            "Cost of the call in US dollars (NULL when the price is unknown).",
        ),
        Column("latency_ms", "float", False, "non_negative", "Wall-clock latency of the call, milliseconds."),
    ),
)

TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        STIMULI,
        RATERS,
        HUMAN_RATINGS,
        MODEL_CONDITIONS,
        MODEL_PREDICTIONS,
        DIALOGUES,
        CANDIDATES,
        JUDGE_VERDICTS,
    )
}

# Order in which tables must land so that foreign keys can be checked.
LOAD_ORDER = (
    "stimuli",
    "raters",
    "model_conditions",
    "human_ratings",
    "model_predictions",
    "dialogues",
    "candidates",
    "judge_verdicts",
)


def table(name: str) -> TableSpec:
    try:
        return TABLES[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; expected one of {', '.join(TABLES)}") from None


def _factor_column(spec: TableSpec, name: str, doc: str) -> Column:
    """The column of a declared factor or attribute, by the study's name (docs/study_shape.md,
    "Factor names"); the paper's own names keep their documented column."""
    own = spec.column(name) if name in spec.column_names else None
    return own or Column(name, "string", False, f"factor:{name}", doc)


def for_study(spec: TableSpec, study) -> TableSpec:
    """The table as this study declares it (docs/study_shape.md): the stimuli have one required
    column per declared factor and the raters one per rater attribute, each named as declared (a
    text study's stimuli need their text); the category's column in human_ratings and
    model_predictions (the chosen / predicted label) is named after the category factor;
    human_ratings has one rating and one response-time column per declared dimension,
    model_predictions one column per model dimension."""

    def own(name: str, make: Column) -> Column:
        return spec.column(name) if name in spec.column_names else make

    columns = spec.columns
    category = study.category.name if study.category is not None else None
    # the label column of ratings and predictions, renamed to the category factor (or dropped)
    label = (
        []
        if category is None
        else [replace(spec.column("emotion"), name=category, rule=f"factor:{category}")]
        if "emotion" in spec.column_names
        else []
    )
    if spec.name == "stimuli":
        factors = [
            replace(
                _factor_column(
                    spec, f.name, f"The stimulus's {f.name} (a {f.role} factor; levels in seeds/factor_labels.csv)."
                ),
                required=True,
            )
            for f in study.factors
        ]
        text = replace(spec.column("text"), required=study.stimulus_kind == "text")
        columns = (spec.column("image_id"), spec.column("identity_id"), *factors, spec.column("file_path"), text)
    elif spec.name == "raters":
        attributes = [
            replace(
                _factor_column(spec, a, f"Rater's {a} (a rater attribute; levels in seeds/factor_labels.csv)."),
                required=True,
            )
            for a in study.rater_attributes
        ]
        columns = (spec.column("rater_id"), *attributes, spec.column("age"))
    elif spec.name == "human_ratings":
        ratings = [
            own(d, Column(d, "int", False, "scale_integer", f"{d} rating, integer on the study scale."))
            for d in study.dimensions
        ]
        times = [
            own(
                f"rt_{d}_ms",
                Column(f"rt_{d}_ms", "float", False, "positive", f"Response time of the {d} rating, milliseconds."),
            )
            for d in study.dimensions
        ]
        columns = (*columns[:2], *ratings, *times, spec.column("trial_index"), *label)
    elif spec.name == "model_predictions":
        dims = [
            own(
                d,
                Column(
                    d, "float", False, "scale", f"Predicted {d} on the study scale (clamped); NULL when parsing failed."
                ),
            )
            for d in study.model_dimensions
        ]
        at = spec.column_names.index("emotion")
        rest = [c for c in columns[at + 1 :] if c.name not in ("valence", "arousal")]
        columns = (*columns[:at], *label, *dims, *rest)
    return replace(spec, columns=columns)


def tables_for(study) -> dict[str, TableSpec]:
    return {name: for_study(spec, study) for name, spec in TABLES.items()}
