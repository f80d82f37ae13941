"""The report's order: data quality first, then the paper's sections with their tables and figures,
then what goes beyond the paper, then every other mart as stored."""
from __future__ import annotations

from .figures import FIGURES
from .specs import FolderTables, Section
from .tables_agreement import AROUSAL, CLASSIFICATION, FER_BASELINES, MAE, REPLACEABILITY, VALENCE
from .tables_demographics import DEMOGRAPHICS
from .tables_judge import JUDGE

_FIG = {f.ours: f for f in FIGURES}

SECTIONS = (
    Section("classification", "Emotion classification (paper 4.1)", tuple(CLASSIFICATION)),
    Section("valence", "Valence agreement (paper 4.2)", (*VALENCE, _FIG["F2"], _FIG["F4f"])),
    Section("arousal", "Arousal agreement (paper 4.3)", (*AROUSAL, _FIG["F3"], _FIG["F5f"])),
    Section("space", "The valence-arousal space (Figures 4a, 4b)", (_FIG["F4a"], _FIG["F4b"])),
    Section("diversity", "Response diversity and replaceability (paper 4.4, 4.6)",
            (*REPLACEABILITY[:2], _FIG["F5"], _FIG["F6"], *REPLACEABILITY[2:3], _FIG["F8"], *REPLACEABILITY[3:])),
    Section("mae", "MAE and its baselines (Supplement S5-S8)", tuple(MAE)),
    Section("fer", "FER baselines beside the VLMs (Supplement S1)", tuple(FER_BASELINES)),
    Section("demographics", "Demographic bias (paper 4.5, Supplement S5.x)",
            (*DEMOGRAPHICS[:3], _FIG["F7"], _FIG["F7a"], _FIG["F7b"], *DEMOGRAPHICS[3:6], _FIG["F7d"],
             *DEMOGRAPHICS[6:])),
    Section("ablations", "Ablations and beyond the paper (paper 4A, issue 8)", (
        FolderTables("ablations", "Thinking, scaling and thinking traces", "section 4A", paper_numbers=(
            ("ablation_thinking_comparison", "Table 4A-1"), ("ablation_scaling_accuracy", "Table 4A-2"),
            ("ablation_scaling_metrics", "Table 4A-2 (dimensional)"), ("ablation_thinking_traces", "Table 4A-3"),
            ("ablation_thinking_rt", "Table 4A-3 (thinking vs response time)"))),
        FolderTables("calibration", "Per-emotion affine calibration, scored out of sample"),
        FolderTables("small_pools", "Small rater pools: alpha and delta alpha as k shrinks"),
        FolderTables("alt_test", "Alternative Annotator Test per condition"),
    )),
    Section("judge", "The pairwise judge (seed 001)",
            (*JUDGE[:2], _FIG["FJ1"], _FIG["FJ2"], *JUDGE[2:], FolderTables("judge", "Judge marts"))),
)
