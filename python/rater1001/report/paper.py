"""The paper's own numbers beside ours. Each block labelled with a paper table shows that table as
the paper prints it (transcribed in rater1001/data/paper_tables, one TSV per table), or says why it
cannot. Shown only for a study of the paper's design; a user's own study gets no paper columns."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

from ..study import Study

PAPER_TABLES_DIR = Path(__file__).resolve().parent.parent / "data" / "paper_tables"
PAPER_TITLE = ("Tae, Park & Choi, \"Can vision-language models replace human emotion raters? Evidence "
               "from AI-generated face stimuli\"")

# Our block -> the transcribed paper table (file stem in data/paper_tables).
PAPER_TABLES = {
    "T2": "table2_classification", "T3": "table3_recall_by_emotion", "T3a": "table3a_precision_by_emotion",
    **{f"T{n}{s}": f"table{n}{s}_{dim}_{what}" for n, dim in ((4, "valence"), (5, "arousal"))
       for s, what in (("", "overall"), ("a", "bias_by_emotion"), ("b", "within_emotion_r"), ("c", "alpha"),
                       ("d", "z"), ("e", "z_by_emotion"))},
    "T6": "table6_diversity", "T7": "table7_f1_by_race", "T7a": "table7a_f1_by_gender",
    "T8": "table8_verdicts", "F8": "table8_verdicts", "TS8": "tableS8_human_mae_baselines",
    "T4A1": "table4A1_thinking_suppression", "T4A2": "table4A2_gemma_scaling",
    "T4A2d": "table4A2b_gemma_scaling_dimensional", "T4A3": "table4A3_thinking_length",
    "T1": "table1_model_conditions",
}

_FIGURE = "the paper shows this as a figure and prints no numbers for it"
_BESIDE = "the paper's columns are in the table itself (paper_ columns)"
# Our block -> why no paper table is set beside it.
PAPER_REASONS = {
    "F2": "a figure in the paper; its numbers are the paper's Table 4a, beside T4a",
    "F3": "a figure in the paper; its numbers are the paper's Table 5a, beside T5a",
    **{f: _FIGURE for f in ("F4a", "F4b", "F4f", "F5f", "F5", "F6", "F7", "F7a", "F7b", "F7d", "T7r")},
    "T7b": "the paper prints F (eta^2) for 8 models x 6 emotions x 3 terms; not transcribed here "
           "(section 4.5 quotes the largest: Gemma3-27B happy valence race F = 96.19, eta^2 = 0.446)",
    "T7c": "structured as Table 7b; not transcribed here",
    "TS1": _BESIDE, "TS2": _BESIDE, "TS3": _BESIDE,
    "TS5": "the paper's Supplement S5 prints the MAE decomposition per model as a figure only",
    "TS6": "the paper's MAE per model is in Tables 4 and 5 (MAE column), beside T4 and T5",
    "TS7": "the paper's MAE per model is in Tables 4 and 5 (MAE column), beside T4 and T5",
    "TS5.1": "the paper's archived omnibus tests (Supplement S5) are described in words, without a table",
    "ablation_thinking_rt": "the paper gives one number in the text of 4A.3: rho = +0.899 (p = .015)",
    "TS4": "the paper's Table S4 lists back-ends and strategies as text (some differ from its Table 1); "
           "each condition's own declaration is shown",
    "TS6p": "the paper's Table S6 profiles are transcribed in seeds/model_condition_profiles.csv and shown here",
    "F1": "the paper's Figure 1 is a diagram of its pipeline; this one is drawn from the project's own stages",
    **{b: _BESIDE for b in ("T3.2", "T2.5", "T5.3")},
    "T3t": "Table 3's caption names the human majority label; its numbers use the intended label (docs/decisions.md)",
}


@lru_cache(maxsize=None)
def paper_table(stem: str) -> pd.DataFrame:
    return pd.read_csv(PAPER_TABLES_DIR / f"{stem}.tsv", sep="\t", dtype=str, keep_default_na=False)


def paper_for(ours: str) -> tuple[pd.DataFrame | None, str]:
    """(the paper's table as printed, or None; the reason when None)."""
    if ours in PAPER_TABLES:
        return paper_table(PAPER_TABLES[ours]), ""
    return None, PAPER_REASONS.get(ours, "")


PAPER_EMOTIONS = {"happy", "sad", "angry", "fear", "disgust", "neutral"}


def follows_paper(study: Study) -> bool:
    """The study has the paper's design: its category is the paper's six emotions and models rate
    valence and arousal on the paper's 1-9 scale. The paper's numbers are comparable only then."""
    category = study.category
    if category is None or category.name != "emotion":
        return False
    try:
        if set(study.levels(category.name)) != PAPER_EMOTIONS:
            return False
    except KeyError:
        return False
    return {"valence", "arousal"} <= set(study.model_dimensions) and (study.scale_min, study.scale_max) == (1, 9)


# Tables keyed by model whose cells are plain numbers: our block -> (the paper table's model column,
# {our column: the paper table's column}), by position (the paper's headings are Korean or LaTeX).
PAPER_DIFFERENCES = {
    "T2": (1, {"accuracy": 4, "f1_macro": 5, "kappa": 6}),
    **{f"T{n}": (0, {"pearson_r": 2, "bias": 3, "sd_d": 4}) for n in (4, 5)},
    **{f"T{n}c": (0, {"alpha": 1, "delta_alpha": 2}) for n in (4, 5)},
    **{f"T{n}d": (0, {"mean_abs_z": 1, "w1sd": 2}) for n in (4, 5)},
}
PAPER_HUMAN_ROWS = {"Human": "human", "Human-only (baseline)": "human", "Human (LOO)": "human_loo"}


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace("−", "-"))
    except ValueError:  # "—" and other marks of an empty cell
        return None


def paper_difference(ours: str, frame: pd.DataFrame, paper: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame | None:
    """Ours, the paper's and ours minus the paper's, per model row both tables have, for the
    PAPER_DIFFERENCES tables. `names` maps the paper's model names to our condition labels."""
    if ours not in PAPER_DIFFERENCES or frame is None or "condition" not in frame.columns:
        return None
    model_col, columns = PAPER_DIFFERENCES[ours]
    rows = []
    for _, p in paper.iterrows():
        printed = p.iloc[model_col]
        label = PAPER_HUMAN_ROWS.get(printed) or names.get(printed)
        match = frame[frame["condition"] == label]
        if label is None or len(match) != 1:
            continue
        row = {"condition": label}
        for col, idx in columns.items():
            mine, theirs = match[col].iloc[0], _number(p.iloc[idx])
            mine = None if pd.isna(mine) else float(mine)
            row[f"{col} ours"], row[f"{col} paper"] = mine, theirs
            row[f"{col} ours - paper"] = mine - theirs if mine is not None and theirs is not None else None
        rows.append(row)
    return pd.DataFrame(rows) if rows else None
