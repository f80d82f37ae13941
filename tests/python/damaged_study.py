"""One damaged copy of the small study (seed 7, SMALL_DESIGN) holding the bad inputs of two areas,
built once per run by `dbt build` of the union of the marts they assert on (conftest.py's
`damaged_warehouse`; docs/testing.md says why the damages do not interfere):

- agreement, classification, z-scores, diversity, replaceability (test_marts_agreement.py): three
  VLM conditions the demographic damage leaves alone (one answered half the images, one gives a
  constant valence on happy faces, one has no arousal values) and two sad images the demographic
  damage leaves alone (one whose raters all gave valence 5, one with a single valence value);
- demographics (test_marts_demographics.py): five other VLM conditions (a missing cell and a cell of
  one image, every answer correct, valence equal to the human mean, a single race, two races) and
  two other sad images (one left with one rating, one with none)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

# The agreement area's marts and the intermediates its checks read.
AGREEMENT_MARTS = (
    "classification_predictions",
    "classification_summary",
    "classification_by_category",
    "confusion_matrix",
    "dimensional_agreement",
    "lmm_rater_type",
    "alpha_delta",
    "zscore_summary",
    "bootstrap_psig",
    "response_diversity",
    "response_diversity_k_human",
    "response_diversity_images",
    "replaceability_inputs",
    "replaceability_verdicts",
    "int_model_vs_human_long",
    "int_image_value_counts",
)
DEMOGRAPHIC_MARTS = "path:models/marts/demographics"
# The conditions the demographic damage changes; the agreement damage takes others.
DEMOGRAPHIC_CONDITIONS = ("gemma3-4b-it", "gpt-4o-mini", "llama-3.2-11b-vision", "gemma3-12b-it", "gemma3-27b-it")


@dataclass(frozen=True)
class AgreementDamage:
    partial: str  # condition that answered every other image only
    constant: str  # condition whose valence is 5 on every happy face
    no_arousal: str  # condition without arousal values
    zero_sd: str  # sad image every rater gave valence 5
    one_rating: str  # sad image with one valence value left


def agreement_damage(stimuli: pd.DataFrame, preds: pd.DataFrame) -> AgreementDamage:
    # (a FER baseline may have no valence / arousal at all: VLM conditions only)
    vlm = sorted(set(preds.loc[preds["strategy"] != "fer", "condition_id"]) - set(DEMOGRAPHIC_CONDITIONS))
    sad = sorted(stimuli.loc[stimuli["emotion"] == "sad", "image_id"])
    return AgreementDamage(*vlm[:3], *sad[2:4])  # sad[:2] are the demographic damage's


def half_of_the_images(stimuli: pd.DataFrame) -> set[str]:
    return set(sorted(stimuli["image_id"])[::2])


def damage_for_agreement(stimuli, preds, ratings) -> tuple[pd.DataFrame, pd.DataFrame]:
    d = agreement_damage(stimuli, preds)
    happy = set(stimuli.loc[stimuli["emotion"] == "happy", "image_id"])
    p = preds[(preds["condition_id"] != d.partial) | preds["image_id"].isin(half_of_the_images(stimuli))].copy()
    p.loc[(p["condition_id"] == d.constant) & p["image_id"].isin(happy), "valence"] = 5
    p.loc[p["condition_id"] == d.no_arousal, "arousal"] = None
    r = ratings.copy()
    r.loc[r["image_id"] == d.zero_sd, "valence"] = 5
    r.loc[r.index[r["image_id"] == d.one_rating][1:], "valence"] = None
    return p, r


def demographic_sad_images(stimuli: pd.DataFrame) -> tuple[str, str]:
    """(lonely, gone): the sad images left with one human rating and with none."""
    lonely, gone = sorted(stimuli.loc[stimuli["emotion"] == "sad", "image_id"])[:2]
    return lonely, gone


def damage_for_demographics(stimuli, preds, ratings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """- gemma3-4b-it: no predictions for Korean:male happy faces (a missing cell) and a single
      Black:female happy face (a cell of one image);
    - gpt-4o-mini: every answer correct (logit separation, no variance in `correct`);
    - llama-3.2-11b-vision: valence = the human mean on every image (zero-variance bias) and
      constant arousal 5;
    - gemma3-12b-it: only Black faces predicted (the others are missing answers: wrong in the
      classification audit; in the bias F tests a factor with a single level);
    - gemma3-27b-it: no Korean faces (two races, df 1);
    - one image lost all human ratings but one, another lost all: bias NULL there."""
    stimuli = stimuli.set_index("image_id")
    preds = preds.copy()
    race, gender, emo = (preds["image_id"].map(stimuli[c]) for c in ("race", "gender", "emotion"))
    cond = preds["condition_id"]
    happy_bf = sorted(stimuli.query("race == 'Black' and gender == 'female' and emotion == 'happy'").index)
    drop = (
        (cond == "gemma3-4b-it")
        & (emo == "happy")
        & (((race == "Korean") & (gender == "male")) | preds["image_id"].eq(happy_bf[1]))
    )
    drop |= (cond == "gemma3-12b-it") & (race != "Black")
    drop |= (cond == "gemma3-27b-it") & (race == "Korean")
    perfect = cond == "gpt-4o-mini"
    preds.loc[perfect, "emotion"] = emo[perfect]
    lonely, gone = demographic_sad_images(stimuli.reset_index())
    first_of_lonely = ratings.index[ratings["image_id"] == lonely][0]
    ratings = ratings[
        ((ratings["image_id"] != lonely) | (ratings.index == first_of_lonely)) & (ratings["image_id"] != gone)
    ]
    # the model answers exactly the human mean: d = 0 on every image (within the scale)
    flat = cond == "llama-3.2-11b-vision"
    means = ratings.groupby("image_id")["valence"].mean()
    preds.loc[flat, "valence"] = preds.loc[flat, "image_id"].map(means)
    preds.loc[flat, "arousal"] = 5.0
    return preds[~drop], ratings


def write_damaged_study(paths) -> None:
    """Simulate the small study into paths and plant both areas' damage in its landing (the
    agreement ratings first: the demographic damage's human means are of the final ratings)."""
    from conftest import SMALL_DESIGN
    from rater1001.contract import TABLES
    from rater1001.landing import to_arrow, write_parquet_atomic
    from rater1001.simulate import simulate_study

    simulate_study(paths, seed=7, **SMALL_DESIGN)
    stimuli = pd.read_parquet(paths.raw_table("stimuli"))
    preds = pd.read_parquet(paths.raw_table("model_predictions"))
    ratings = pd.read_parquet(paths.raw_table("human_ratings"))
    preds, ratings = damage_for_agreement(stimuli, preds, ratings)
    preds, ratings = damage_for_demographics(stimuli, preds, ratings)
    for name, frame in (("model_predictions", preds), ("human_ratings", ratings)):
        write_parquet_atomic(to_arrow(frame.reset_index(drop=True), TABLES[name]), paths.raw_table(name))
