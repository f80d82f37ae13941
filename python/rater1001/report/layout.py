"""The report's order after the answer and the data-quality status: the paper's sections with their
tables and figures, then what goes beyond the paper, then every other mart as stored. Each section has
the paper's title and the question it answers (the title of a study that is not the paper's design)."""
from __future__ import annotations

from dataclasses import replace

from .figures import FIGURES, dimension_figures, space_figures
from .specs import FolderTables, Note, ReportTable, Section
from .tables_ablations import ABLATIONS
from .tables_agreement import (AROUSAL, CLASSIFICATION, FER_BASELINES, MAE, REPLACEABILITY, VALENCE,
                               dimension_tables)
from .tables_demographics import DEMOGRAPHICS, anova_table
from .tables_judge import JUDGE
from .tables_worth import WORTH
from .tables_paper_extras import CLASSIFICATION_TRUTH, DIFFICULTY, FIGURE_1, HUMAN_BASELINE, STUDY_DESIGN

_FIG = {f.ours: f for f in FIGURES}
# Not in the paper's appendix 4A: agreement and replaceability split by how much humans disagree.
DISAGREEMENT_SPLIT = ReportTable(
    "TDS", None, "Agreement and replaceability split by how much the human raters disagree (terciles of the human SD)",
    ("ablation_disagreement_split",),
    "SELECT * FROM ablation_disagreement_split ORDER BY dimension DESC, condition_id, tercile")

SECTIONS = (
    Section("design", "Study design and human baseline (paper 2.5, 3.2, 3.3)",
            (*STUDY_DESIGN, FIGURE_1, *HUMAN_BASELINE),
            question="What was run, on what, and how much do the human raters agree among themselves?"),
    Section("classification", "Category classification (paper 4.1)", (CLASSIFICATION_TRUTH, *CLASSIFICATION),
            question="How often does each model give the intended category?"),
    Section("valence", "Valence agreement (paper 4.2)", (*VALENCE, _FIG["F2"], _FIG["F4f"]),
            question="How close are the models' valence ratings to the human raters'?"),
    Section("arousal", "Arousal agreement (paper 4.3)", (*AROUSAL, _FIG["F3"], _FIG["F5f"]),
            question="How close are the models' arousal ratings to the human raters'?"),
    Section("space", "The valence-arousal space (Figures 4a, 4b)", (_FIG["F4a"], _FIG["F4b"]),
            question="Where do humans and models place the stimuli in the rating space?"),
    Section("diversity", "Response diversity and replaceability (paper 4.4, 4.6)",
            (*REPLACEABILITY[:2], _FIG["F5"], _FIG["F6"], *REPLACEABILITY[2:3], _FIG["F8"], *REPLACEABILITY[3:]),
            question="Are the models as varied as humans, and where can they replace them?"),
    Section("worth", "What the model is worth", WORTH,
            question="How many human raters is each model worth, and how many human ratings does it save?"),
    Section("mae", "MAE and its baselines (Supplement S5-S8)", tuple(MAE),
            question="How large are the models' errors against the human raters' own?"),
    Section("fer", "FER baselines beside the VLMs (Supplement S1)", tuple(FER_BASELINES),
            question="How do dedicated expression classifiers compare?"),
    Section("demographics", "Demographic bias (paper 4.5, Supplement S5.x)",
            (*DEMOGRAPHICS[:3], _FIG["F7"], _FIG["F7a"], _FIG["F7b"], *DEMOGRAPHICS[3:6], _FIG["F7d"],
             *DEMOGRAPHICS[6:]),
            question="Do the models treat groups of stimuli differently?"),
    Section("ablations", "Thinking and scaling (paper appendix 4A)", (
        *ABLATIONS,
        FolderTables("ablations", "Ablation marts as stored", skip=(DISAGREEMENT_SPLIT.reads[0],), paper_numbers=(
            ("ablation_thinking_rt", "section 4A.3 (text)"),)),
    ), question="Do thinking and model size change the answers?"),
    Section("beyond", "Beyond the paper: disagreement, calibration, small pools, the Alternative Annotator Test", (
        DISAGREEMENT_SPLIT,
        FolderTables("calibration", "Per-category affine calibration, scored out of sample"),
        FolderTables("small_pools", "Small rater pools: alpha and delta alpha as k shrinks"),
        FolderTables("alt_test", "Alternative Annotator Test per condition"),
    ), question="Would calibration, a smaller human pool or a formal test change the answer?"),
    Section("difficulty", "Processing difficulty: humans and models (paper 5.3)", tuple(DIFFICULTY),
            question="Are the categories that are slow for humans also hard for the models?"),
    Section("judge", "The pairwise judge (LLM-as-a-judge study)",
            (*JUDGE[:2], _FIG["FJ1"], _FIG["FJ2"], *JUDGE[2:], FolderTables("judge", "Judge marts")),
            question="Can an LLM judge replace human judges in pairwise comparisons?"),
)

PAPER_SPACE = ("valence", "arousal")


def sections_for(model_dimensions) -> tuple[Section, ...]:
    """SECTIONS for the study's model dimensions: the rating space over valence and arousal when
    the study has both, else over its first two model dimensions (a note with the reason when it has
    fewer); and one section per model dimension beyond valence and arousal, with the same tables
    and figures as theirs (no paper numbers: the paper has none)."""
    dims = tuple(model_dimensions)
    pair = PAPER_SPACE if set(PAPER_SPACE) <= set(dims) else dims[:2]
    out = []
    for s in SECTIONS:
        if s.key == "space" and pair != PAPER_SPACE:
            if len(pair) < 2:
                why = (f"not applicable to this study: the rating space needs two model dimensions; "
                       f"the study declares {len(dims)} (study.yml model_dimensions)")
                s = replace(s, items=(Note("F4a", "Figure 4a", "The rating space", why),))
            else:
                s = replace(s, title=f"The {pair[0]}-{pair[1]} space", items=space_figures(*pair))
        if s.key == "demographics":  # the bias ANOVA of every model dimension, the paper's two first
            s = replace(s, items=(*s.items, *(anova_table(f"T7-{d}", None, d) for d in dims if d not in PAPER_SPACE)))
        out.append(s)
    for dim in (d for d in dims if d not in PAPER_SPACE):
        bias, z = dimension_figures(dim, None, None, None, None)
        tables = [replace(t, paper=None) for t in dimension_tables(dim, f"-{dim}")]
        out.append(Section(f"dimension-{dim}", f"{dim.capitalize()} agreement", (*tables, bias, z),
                           question=f"How close are the models' {dim} ratings to the human raters'?"))
    return tuple(out)
