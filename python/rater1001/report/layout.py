"""The report's order after the answer and the data-quality status: the paper's sections with their
tables and figures, then what goes beyond the paper, then every other mart as stored. Each section has
the paper's title and the question it answers (the title of a study that is not the paper's design)."""
from __future__ import annotations

from .figures import FIGURES
from .specs import FolderTables, Section
from .tables_ablations import ABLATIONS
from .tables_agreement import AROUSAL, CLASSIFICATION, FER_BASELINES, MAE, REPLACEABILITY, VALENCE
from .tables_demographics import DEMOGRAPHICS

_FIG = {f.ours: f for f in FIGURES}

SECTIONS = (
    Section("classification", "Emotion classification (paper 4.1)", tuple(CLASSIFICATION),
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
        FolderTables("ablations", "Ablation marts as stored", paper_numbers=(
            ("ablation_thinking_rt", "section 4A.3 (text)"),)),
    ), question="Do thinking and model size change the answers?"),
    Section("beyond", "Beyond the paper: calibration, small pools, the Alternative Annotator Test", (
        FolderTables("calibration", "Per-emotion affine calibration, scored out of sample"),
        FolderTables("small_pools", "Small rater pools: alpha and delta alpha as k shrinks"),
        FolderTables("alt_test", "Alternative Annotator Test per condition"),
    ), question="Would calibration, a smaller human pool or a formal test change the answer?"),
    Section("judge", "The pairwise judge (LLM-as-a-judge study)",
            (_FIG["FJ1"], _FIG["FJ2"], FolderTables("judge", "Judge marts")),
            question="Can an LLM judge replace human judges in pairwise comparisons?"),
)
