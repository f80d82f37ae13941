"""Behaviour profiles of the simulated raters and model conditions, kept as data.

The default profiles live in rater1001/data/demo_profiles/ (derived from the paper's tables by
derive_profiles.py, plus hand-set human.yml, conditions.csv, thinking.csv; docs/simulate.md says
where each number comes from). A caller may pass its own Profiles to simulate_study, e.g. one
without demographic gaps for a bias-audit test.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import pandas as pd
import yaml

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "data" / "demo_profiles"
VALUE_DEMOGRAPHIC_COLUMNS = ["condition_id", "dimension", "emotion", "term", "eta_squared"]
FER_COLUMNS = ["condition_id", "accuracy", "kappa", "valence_r", "valence_mae", "arousal_r", "arousal_mae"]
CONSTANT_COLUMNS = ["condition_id", "dimension", "emotion", "value"]
HUMAN = "human"  # profile id of the human raters in confusion.csv / demographic_accuracy.csv


class ProfileError(ValueError):
    """A behaviour profile is missing or malformed."""


@dataclass(frozen=True)
class Profiles:
    human: dict  # human.yml
    conditions: pd.DataFrame  # conditions.csv, one row per condition
    confusion: pd.DataFrame  # condition_id, true_emotion, predicted_emotion, probability
    value_bias: pd.DataFrame  # condition_id, dimension, emotion, bias, sd_d
    demographic_accuracy: pd.DataFrame  # condition_id, factor, level, accuracy
    thinking: pd.DataFrame  # condition_id, emotion, mean_length, unit
    value_demographic: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=VALUE_DEMOGRAPHIC_COLUMNS))
    fer: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=FER_COLUMNS))  # Tables S1-S3
    # one-value cells (paper 4.4 / Table 4b): condition_id, dimension, emotion, value
    constant_answers: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CONSTANT_COLUMNS))
    source: str = "built-in demo profiles"

    def without_demographic_gaps(self, condition_ids: list[str] | None = None) -> Profiles:
        """The same profiles with no race / gender effect (neither on accuracy nor on the values) for
        the given conditions (all conditions, humans included, when None)."""

        def drop(d: pd.DataFrame) -> pd.DataFrame:
            hit = d["condition_id"].isin(condition_ids) if condition_ids is not None else d["condition_id"].notna()
            return d[~hit].reset_index(drop=True)

        return replace(
            self, demographic_accuracy=drop(self.demographic_accuracy), value_demographic=drop(self.value_demographic)
        )

    def condition(self, condition_id: str) -> pd.Series:
        return self._profile_row(self.conditions, condition_id, "behaviour profile", "conditions.csv")

    def fer_condition(self, condition_id: str) -> pd.Series:
        return self._profile_row(self.fer, condition_id, "FER profile", "fer.csv")

    def _profile_row(self, table: pd.DataFrame, condition_id: str, what: str, file: str) -> pd.Series:
        rows = table[table["condition_id"] == condition_id]
        if rows.empty:
            raise ProfileError(
                f"no {what} for condition {condition_id!r} in {file} ({self.source}); "
                f"profiles exist for {', '.join(table['condition_id'])}"
            )
        return rows.iloc[0]

    # The lookups below run once per condition, dimension and emotion (and the confusion matrix once
    # per FER condition for every VLM): each answer is kept per instance, since filtering the
    # tables for every call cost a study of any size about a third of a second. The tables are not
    # changed after loading (without_demographic_gaps makes a new instance).
    @cached_property
    def _confusions(self) -> dict:
        return {}

    @cached_property
    def _constants(self) -> dict:
        keys = ["condition_id", "dimension", "emotion"]
        return {k: float(g["value"].iloc[0]) for k, g in self.constant_answers.groupby(keys, sort=False)}

    @cached_property
    def _etas(self) -> dict:
        keys = ["condition_id", "dimension", "emotion"]
        d = self.value_demographic
        return {k: dict(zip(g["term"], g["eta_squared"].astype(float))) for k, g in d.groupby(keys, sort=False)}

    def confusion_matrix(self, condition_id: str, emotions: list[str]) -> pd.DataFrame:
        """Row-stochastic P(predicted | true) over `emotions`, rows renormalised."""
        key = (condition_id, tuple(emotions))
        if key not in self._confusions:
            self._confusions[key] = self._confusion_matrix(condition_id, emotions)
        return self._confusions[key].copy()

    def _confusion_matrix(self, condition_id: str, emotions: list[str]) -> pd.DataFrame:
        rows = self.confusion[self.confusion["condition_id"] == condition_id]
        m = rows.pivot_table(index="true_emotion", columns="predicted_emotion", values="probability", aggfunc="sum")
        missing = [e for e in emotions if e not in m.index]
        if missing:
            raise ProfileError(
                f"confusion.csv ({self.source}) has no rows for condition {condition_id!r}, true_emotion {missing}"
            )
        m = m.reindex(index=emotions, columns=emotions).fillna(0.0)
        if (m.to_numpy() < 0).any():
            raise ProfileError(f"confusion.csv ({self.source}): negative probability for condition {condition_id!r}")
        return m.div(m.sum(axis=1), axis=0)

    def bias_table(self, condition_id: str, dimension: str, emotions: list[str]) -> pd.DataFrame:
        rows = self.value_bias[
            (self.value_bias["condition_id"] == condition_id) & (self.value_bias["dimension"] == dimension)
        ]
        t = rows.set_index("emotion").reindex(emotions)
        if t["bias"].isna().any():
            missing = list(t.index[t["bias"].isna()])
            raise ProfileError(
                f"value_bias.csv ({self.source}) has no {dimension} bias for condition {condition_id!r}, emotion {missing}"
            )
        return t[["bias", "sd_d"]]

    def value_etas(self, condition_id: str, dimension: str, emotion: str) -> dict[str, float]:
        """Planted eta squared of race, gender and race:gender on the bias (missing terms: 0)."""
        return dict(self._etas.get((condition_id, dimension, emotion), {}))

    def constant_answer(self, condition_id: str, dimension: str, emotion: str) -> float:
        """The one value a condition gives every face of an emotion, NaN if none."""
        return self._constants.get((condition_id, dimension, emotion), float("nan"))

    def accuracy_targets(self, condition_id: str, factor: str) -> dict[str, float]:
        d = self.demographic_accuracy
        rows = d[(d["condition_id"] == condition_id) & (d["factor"] == factor)]
        return dict(zip(rows["level"], rows["accuracy"].astype(float)))


def _read_csv(path: Path, required: list[str]) -> pd.DataFrame:
    if not path.exists():
        raise ProfileError(f"profile file {path} is missing")
    df = pd.read_csv(path)
    lacking = [c for c in required if c not in df.columns]
    if lacking:
        raise ProfileError(f"{path}: missing column(s) {lacking}; found {list(df.columns)}")
    return df


def load_profiles(directory: str | Path | None = None) -> Profiles:
    d = Path(directory) if directory is not None else DEFAULT_DIR
    with open(d / "human.yml", encoding="utf-8") as fh:
        human = yaml.safe_load(fh)
    return Profiles(
        human=human,
        conditions=_read_csv(
            d / "conditions.csv", ["condition_id", "stereotypy", "coupling", "tracking", "value_step"]
        ),
        confusion=_read_csv(d / "confusion.csv", ["condition_id", "true_emotion", "predicted_emotion", "probability"]),
        value_bias=_read_csv(d / "value_bias.csv", ["condition_id", "dimension", "emotion", "bias", "sd_d"]),
        demographic_accuracy=_read_csv(d / "demographic_accuracy.csv", ["condition_id", "factor", "level", "accuracy"]),
        thinking=_read_csv(d / "thinking.csv", ["condition_id", "emotion", "mean_length", "unit"]),
        value_demographic=(
            _read_csv(d / "value_demographic.csv", VALUE_DEMOGRAPHIC_COLUMNS)
            if (d / "value_demographic.csv").exists()
            else pd.DataFrame(columns=VALUE_DEMOGRAPHIC_COLUMNS)
        ),
        fer=_read_csv(d / "fer.csv", FER_COLUMNS) if (d / "fer.csv").exists() else pd.DataFrame(columns=FER_COLUMNS),
        constant_answers=(
            _read_csv(d / "constant_answers.csv", CONSTANT_COLUMNS)
            if (d / "constant_answers.csv").exists()
            else pd.DataFrame(columns=CONSTANT_COLUMNS)
        ),
        source=str(d),
    )
