"""A small ratings-only study with none of the paper's names, for the warehouse-grain tests: no
category factor, two audit factors (`genre`, `source`), one rater attribute (`cohort`), stimuli
with an `identity_id` (the calibration folds), dimensions `fluency` and `coherence`, and model
answers with gaps: one condition leaves some stimuli unanswered, the other never rates
`coherence` on the first stimuli.

It is the shape-matrix study `ratings-1dim`'s generator (fakes/shapes.py) with the category dropped
and the factors renamed, so it shares the generator's tested behaviour.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from .shapes import GENDERS, RACES, Shape, write_shape

RENAME = {"race": "genre", "gender": "source"}
LABELS_CSV = """factor,label,label_ko,aliases,display_order
genre,east,,,1
genre,west,,,2
source,female,,,1
source,male,,,2
cohort,early,,,1
cohort,late,,,2
"""
DIMENSIONS = ("fluency", "coherence")
# the paper's vocabulary: none of it may reach a person reading this study's outputs
PAPER_WORDS = ("emotion", "race", "gender", "valence", "arousal", "naturalness")


def write_grain_study(root: Path, seed: int = 3) -> dict[str, Path]:
    """Write the study into root; returns the CSV file of each table, to ingest in LOAD_ORDER."""
    files = write_shape(root, Shape("grain", False, DIMENSIONS, False, (3, 5), per_cell=3, text=True, seed=seed))
    study = {
        "name": "grain",
        "stimulus_kind": "text",
        "scale": {"min": 1, "max": 5},
        "dimensions": list(DIMENSIONS),
        "model_dimensions": list(DIMENSIONS),
        "factors": [{"name": "genre", "role": "audit"}, {"name": "source", "role": "audit"}],
        "rater_attributes": ["cohort"],
    }
    (root / "study.yml").write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    (root / "seeds" / "factor_labels.csv").write_text(LABELS_CSV, encoding="utf-8")

    stimuli = pd.read_csv(files["stimuli"]).drop(columns=["emotion"]).rename(columns=RENAME)
    # two stimuli per identity: the calibration folds group by it
    stimuli.insert(1, "identity_id", [f"id{i // 2}" for i in range(len(stimuli))])
    stimuli.to_csv(files["stimuli"], index=False)
    raters = pd.read_csv(files["raters"]).rename(columns={"gender": "cohort"})
    raters["cohort"] = raters["cohort"].map({GENDERS[0]: "early", GENDERS[1]: "late"})
    raters.to_csv(files["raters"], index=False)
    preds = pd.read_csv(files["model_predictions"])
    first = stimuli["image_id"].iloc[:3].tolist()
    # text-llm never answers the first stimuli; proxy gives no coherence on them
    preds = preds[~((preds.condition_id == "text-llm") & preds.image_id.isin(first))].copy()
    preds.loc[(preds.condition_id == "proxy") & preds.image_id.isin(first), "coherence"] = None
    preds.to_csv(files["model_predictions"], index=False)
    assert set(stimuli["genre"]) == set(RACES)
    return files
