"""Replaceability verdict matrix (paper sections 3.4.3 and 4.6, Table 8): one verdict per
emotion x measure (classification, valence, arousal) in replaceable / partial / calibratable /
not_replaceable, from per-condition inputs and the human leave-one-out baseline of the same
emotion. Thresholds and the order in which verdicts are tried are data (seeds/verdict_rules.csv).

Dimensions (valence, arousal), per condition:
  eligible   = delta alpha >= delta_alpha_min            (not checked when delta alpha is missing)
               where delta alpha is the condition's pooled delta alpha over all images of the
               dimension (delta_alpha_scope = pooled, the paper's Tables 4c/5c and default) or
               the emotion's own (delta_alpha_scope = per_category)
  passes     = eligible and W1SD >= human LOO W1SD + w1sd_margin   (full precision; ties pass)
  calibration candidate = eligible, not passing, |bias|/SD_d >= systematicity_min and
               2 * 1.96 * SD_d <= loa_width_max_human_sd * mean human SD of the emotion
  stereotyped (flag on a passing condition) = mean|z| < ratio * human LOO mean|z|, or
               n_unique <= stereotyped_max_unique
Cell, trying verdict_order (default: Table 8's legend):
  replaceable     share of passing conditions > replaceable_min_share (strict majority)
  partial         passing conditions >= partial_min_passing
  not_replaceable no passing condition (or no eligible condition: delta alpha < 0 everywhere)
  calibratable    at least one calibration candidate
With the default order a zero-pass cell is not_replaceable even if a calibration candidate
exists (Table 8 marks anger/fear/disgust valence so); candidates are still listed. Put
calibratable before not_replaceable in the seed to get the 3.4.3 text's sequential reading.

Classification, per condition: one-vs-rest Cohen kappa of the emotion; passes at kappa >= kappa_pass;
model_dependent when one condition passes and another is below kappa_fail (Table 8 note 1);
calibratable when a majority recall the emotion (recall >= kappa_pass) but the median precision
is below precision_calibration_max (the emotion absorbs others, as neutral does).
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..paths import REPO_ROOT
from .agreement import systematicity

VERDICTS = ("replaceable", "partial", "calibratable", "not_replaceable")


DELTA_ALPHA_SCOPES = ("pooled", "per_category")
# The input column each scope reads: pooled = the condition's delta alpha over all images of the
# dimension (one number per condition, as Tables 4c/5c print), per_category = the emotion's own.
SCOPE_COLUMN = {"pooled": "delta_alpha_pooled", "per_category": "delta_alpha"}
SEED_FILE = REPO_ROOT / "seeds" / "verdict_rules.csv"


@dataclass(frozen=True)
class VerdictRules:
    """The declared rules; their values live only in seeds/verdict_rules.csv (default_rules())."""

    verdict_order: tuple[str, ...]
    delta_alpha_min: float
    delta_alpha_scope: str
    w1sd_margin: float
    replaceable_min_share: float
    partial_min_passing: int
    systematicity_min: float
    loa_width_max_human_sd: float
    stereotyped_mean_abs_z_ratio: float
    stereotyped_max_unique: int
    kappa_pass: float
    kappa_fail: float
    precision_calibration_max: float


@dataclass(frozen=True)
class DimensionVerdict:
    """One emotion x dimension cell of the verdict matrix (fields in the marts' column order)."""

    verdict: str
    n_conditions: int
    n_conditions_passing: int
    passing_conditions: str  # comma-separated, best W1SD first
    stereotyped: bool
    stereotyped_conditions: str
    calibration_candidates: str  # most systematic first
    n_conditions_delta_alpha_below_min: int
    delta_alpha_scope: str
    human_loo_w1sd: float
    human_loo_mean_abs_z: float
    rule: str


@dataclass(frozen=True)
class ClassificationVerdict:
    """One emotion's classification cell of the verdict matrix."""

    verdict: str
    n_conditions: int
    n_conditions_passing: int
    passing_conditions: str  # comma-separated, highest kappa first
    model_dependent: bool
    rule: str


@lru_cache(maxsize=1)
def default_rules() -> VerdictRules:
    """The rules of the repository's seeds/verdict_rules.csv (read once, cached).

    Returns
    -------
    VerdictRules

    Notes
    -----
    The rules have no defaults in code; this is :func:`load_rules` of ``SEED_FILE``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> r = default_rules()
    >>> r.delta_alpha_scope, r.w1sd_margin, r.replaceable_min_share, r.kappa_pass
    ('pooled', 0.0, 0.5, 0.8)
    """
    return load_rules(SEED_FILE)


def load_rules(path: Path) -> VerdictRules:
    """Read a verdict rules CSV (parameter, value, ...) into VerdictRules.

    Parameters
    ----------
    path : pathlib.Path
        The CSV, laid out as seeds/verdict_rules.csv.

    Returns
    -------
    VerdictRules

    Raises
    ------
    ValueError
        An unknown or missing parameter, or a bad value, naming the file, row and value.

    Notes
    -----
    ``verdict_order`` is a ``|``-separated permutation of the four verdicts; ``delta_alpha_scope``
    is ``pooled`` or ``per_category``; every other parameter is a number. Every field of
    VerdictRules must be declared: there are no defaults in code.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> load_rules(SEED_FILE).verdict_order
    ('replaceable', 'partial', 'not_replaceable', 'calibratable')
    """
    with open(path, newline="", encoding="utf-8") as fh:
        return rules_from_records(list(csv.DictReader(fh)), source=str(path))


def rules_from_records(records, source: str = "verdict rules") -> VerdictRules:
    """Parse rule rows already read, as :func:`load_rules` does for the file.

    Parameters
    ----------
    records : iterable of mapping
        Rows with ``parameter`` and ``value`` (e.g. the verdict_rules seed table in the warehouse,
        which a dbt Python model receives as a frame).
    source : str
        Named in error messages.

    Returns
    -------
    VerdictRules

    Raises
    ------
    ValueError
        Naming the source, the row (counting the CSV header as row 1), the parameter and value.

    Notes
    -----
    The one parser of the rules: the CSV route (:func:`load_rules`) and the warehouse's seed table
    both come here, so an edited seed moves every verdict together.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> rules_from_records([{"parameter": "kappa_pass", "value": "high"}], source="rules.csv")
    Traceback (most recent call last):
    ...
    ValueError: rules.csv: row 2: parameter 'kappa_pass' needs a number, got 'high'
    """
    fields = VerdictRules.__dataclass_fields__
    values: dict = {}
    for row_no, row in enumerate(records, start=2):
        name, raw = str(row["parameter"]).strip(), str(row["value"]).strip()
        if name not in fields:
            raise ValueError(f"{source}: row {row_no}: unknown parameter {name!r}")
        if name == "verdict_order":
            order = tuple(v.strip() for v in raw.split("|"))
            if sorted(order) != sorted(VERDICTS):
                raise ValueError(
                    f"{source}: row {row_no}: verdict_order must list each of {VERDICTS} once, got {raw!r}"
                )
            values[name] = order
            continue
        if name == "delta_alpha_scope":
            if raw not in DELTA_ALPHA_SCOPES:
                raise ValueError(
                    f"{source}: row {row_no}: delta_alpha_scope must be one of {DELTA_ALPHA_SCOPES}, got {raw!r}"
                )
            values[name] = raw
            continue
        try:
            values[name] = int(raw) if fields[name].type in (int, "int") else float(raw)
        except ValueError:
            raise ValueError(f"{source}: row {row_no}: parameter {name!r} needs a number, got {raw!r}") from None
    missing = [f for f in fields if f not in values]
    if missing:
        raise ValueError(f"{source}: parameter(s) {missing} are not declared")
    return VerdictRules(**values)


def _first(order, holds: dict[str, bool]) -> str:
    return next(v for v in order if holds[v])


def _names(frame: pd.DataFrame, mask, sort_by: str) -> str:
    sub = frame[mask].sort_values([sort_by, "condition_id"], ascending=[False, True])
    return ",".join(sub["condition_id"].astype(str))


def scoped_delta_alpha(conditions: pd.DataFrame, rules: VerdictRules) -> pd.Series:
    """The delta alpha the rules gate on, per condition.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per condition, with ``delta_alpha_pooled`` (pooled scope) and/or ``delta_alpha``
        (per-category scope).
    rules : VerdictRules

    Returns
    -------
    pandas.Series
        The column of ``rules.delta_alpha_scope``; NaN (not checked) when the frame has neither.

    Raises
    ------
    ValueError
        When the frame carries only the other scope's column, so a scope is never swapped
        silently.

    Notes
    -----
    ``pooled``: the condition's delta alpha over all images of the dimension (the only one the
    paper reports, Tables 4c/5c); ``per_category``: the emotion's own.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> c = pd.DataFrame({"delta_alpha_pooled": [0.01, -0.02], "delta_alpha": [-0.001, 0.0]})
    >>> scoped_delta_alpha(c, default_rules()).tolist()
    [0.01, -0.02]
    """
    col = SCOPE_COLUMN[rules.delta_alpha_scope]
    if col in conditions:
        return conditions[col].astype(float)
    if any(c in conditions for c in SCOPE_COLUMN.values()):
        raise ValueError(
            f"the rules gate on the {rules.delta_alpha_scope} delta alpha ({col}) but the inputs "
            f"carry only {[c for c in SCOPE_COLUMN.values() if c in conditions]}"
        )
    return pd.Series(np.nan, index=conditions.index)


@dataclass(frozen=True)
class ConditionPasses:
    eligible: np.ndarray  # bool per condition: delta alpha at least the rules' minimum, or missing
    passes: np.ndarray  # bool per condition: eligible and W1SD at least the human LOO W1SD + margin


def condition_passes(w1sd, loo_w1sd, delta_alpha, rules: VerdictRules) -> ConditionPasses:
    """The per-condition pass rule of Table 8 (its one home).

    Parameters
    ----------
    w1sd : array_like
        Each condition's W1SD in the cell.
    loo_w1sd : float or array_like
        The human leave-one-out W1SD of the cell.
    delta_alpha : array_like
        Each condition's delta alpha of the rules' scope (NaN = not checked).
    rules : VerdictRules

    Returns
    -------
    ConditionPasses
        ``eligible`` and ``passes``, boolean arrays aligned with the conditions.

    Notes
    -----
    ``eligible = delta_alpha >= delta_alpha_min`` (or missing);
    ``passes = eligible and W1SD >= W1SD_LOO + w1sd_margin``, compared at full precision so exact
    ties pass.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    Section 4.3's disgust x arousal cell: LLaMA 0.691 falls short of the human 0.692; a tie passes;
    a negative delta alpha keeps a condition out:

    >>> r = condition_passes([0.691, 0.692, 0.75], 0.692, [0.01, 0.0, -0.01], default_rules())
    >>> r.eligible.tolist(), r.passes.tolist()
    ([True, True, False], [False, True, False])
    """
    w1sd, loo_w1sd, delta_alpha = (np.asarray(a, dtype=float) for a in (w1sd, loo_w1sd, delta_alpha))
    eligible = np.isnan(delta_alpha) | (delta_alpha >= rules.delta_alpha_min)
    return ConditionPasses(eligible=eligible, passes=eligible & (w1sd >= loo_w1sd + rules.w1sd_margin))


def rule_text(rules: VerdictRules, loo_w1sd: float) -> str:
    """The dimension rule as shown beside each verdict.

    Parameters
    ----------
    rules : VerdictRules
    loo_w1sd : float
        The cell's human leave-one-out W1SD.

    Returns
    -------
    str

    Notes
    -----
    The human baseline is printed to 3 decimals; the comparison itself is at full precision
    (:func:`condition_passes`).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> rule_text(default_rules(), 0.692)[:60]
    'pass: W1SD >= human LOO W1SD (0.692) + 0 and pooled delta al'
    """
    return (
        f"pass: W1SD >= human LOO W1SD ({loo_w1sd:.3f}) + {rules.w1sd_margin:g} and "
        f"{rules.delta_alpha_scope} delta alpha >= {rules.delta_alpha_min:g}; replaceable if share passing > "
        f"{rules.replaceable_min_share:g}; order {'>'.join(rules.verdict_order)}"
    )


def dimension_verdict(
    conditions: pd.DataFrame,
    loo_w1sd: float,
    loo_mean_abs_z: float = np.nan,
    human_sd: float = np.nan,
    rules: VerdictRules | None = None,
) -> DimensionVerdict:
    """Verdict of one emotion x dimension cell.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per condition: condition_id, w1sd and optionally mean_abs_z, delta_alpha (the
        emotion's), delta_alpha_pooled (the condition's over all images), bias, sd_d, n_unique
        (missing columns = not checked). Rows without w1sd are left out.
    loo_w1sd : float
        Human leave-one-out W1SD of the cell.
    loo_mean_abs_z : float, optional
        Human leave-one-out mean |z| (for the stereotyped flag).
    human_sd : float, optional
        Mean human SD of the emotion (for the LoA-width test of calibration candidates).
    rules : VerdictRules, optional
        Default :func:`default_rules`.

    Returns
    -------
    DimensionVerdict
        ``verdict``, counts and names of passing conditions (best W1SD first), ``stereotyped``
        (and which), ``calibration_candidates``, the baseline used, the scope and the ``rule``.

    Notes
    -----
    Passing is :func:`condition_passes`. The verdicts are tried in ``rules.verdict_order``:
    replaceable when ``n_pass / n > replaceable_min_share``; partial when
    ``n_pass >= partial_min_passing``; calibratable when some eligible, non-passing condition has
    ``|bias| / SD_d >= systematicity_min`` and ``2 x 1.96 x SD_d <= loa_width_max_human_sd x
    human_sd``; otherwise not_replaceable. A passing condition is stereotyped when its mean |z| <
    ``stereotyped_mean_abs_z_ratio`` x the human's, or it used at most
    ``stereotyped_max_unique`` distinct values.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    2 of 3 conditions reach the human W1SD 0.70: a strict majority, replaceable.

    >>> c = pd.DataFrame({"condition_id": ["a", "b", "c"], "w1sd": [0.72, 0.70, 0.65]})
    >>> v = dimension_verdict(c, loo_w1sd=0.70)
    >>> v.verdict, v.n_conditions_passing, v.passing_conditions
    ('replaceable', 2, 'a,b')
    """
    rules = rules or default_rules()
    c = conditions.copy()
    for col in ("mean_abs_z", "bias", "sd_d", "n_unique"):
        if col not in c:
            c[col] = np.nan
    c = c.dropna(subset=["w1sd"])
    rule = condition_passes(c["w1sd"], loo_w1sd, scoped_delta_alpha(c, rules), rules)
    eligible, passes = pd.Series(rule.eligible, index=c.index), pd.Series(rule.passes, index=c.index)
    syst = pd.Series(systematicity(c["bias"], c["sd_d"]), index=c.index)
    narrow = (2 * 1.96 * c["sd_d"]) <= rules.loa_width_max_human_sd * human_sd
    candidate = eligible & ~passes & (syst >= rules.systematicity_min) & narrow
    stereo = passes & (
        (c["mean_abs_z"] < rules.stereotyped_mean_abs_z_ratio * loo_mean_abs_z)
        | (c["n_unique"] <= rules.stereotyped_max_unique)
    )
    n, n_pass = len(c), int(passes.sum())
    holds = {
        "replaceable": n > 0 and n_pass / n > rules.replaceable_min_share,
        "partial": n_pass >= rules.partial_min_passing,
        "calibratable": bool(candidate.any()),
        "not_replaceable": True,
    }
    verdict = _first(rules.verdict_order, holds)
    return DimensionVerdict(
        verdict=verdict,
        n_conditions=n,
        n_conditions_passing=n_pass,
        passing_conditions=_names(c, passes, "w1sd"),
        stereotyped=bool(stereo.any()),
        stereotyped_conditions=_names(c, stereo, "w1sd"),
        calibration_candidates=_names(c.assign(_s=syst), candidate, "_s"),
        n_conditions_delta_alpha_below_min=int((~eligible).sum()),
        delta_alpha_scope=rules.delta_alpha_scope,
        human_loo_w1sd=loo_w1sd,
        human_loo_mean_abs_z=loo_mean_abs_z,
        rule=rule_text(rules, loo_w1sd),
    )


def classification_verdict(conditions: pd.DataFrame, rules: VerdictRules | None = None) -> ClassificationVerdict:
    """Classification verdict of one emotion.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per condition: condition_id, kappa (one-vs-rest for the emotion), recall,
        precision. Rows without kappa are left out.
    rules : VerdictRules, optional
        Default :func:`default_rules`.

    Returns
    -------
    ClassificationVerdict
        ``verdict``, counts and names of passing conditions, ``model_dependent`` and the ``rule``.

    Notes
    -----
    A condition passes at ``kappa >= kappa_pass``. The emotion "absorbs" others when most
    conditions have ``recall >= kappa_pass`` but the median precision is below
    ``precision_calibration_max``; that is calibratable, tried right after replaceable.
    Model dependent (Table 8 note 1): some condition passes and another has
    ``kappa < kappa_fail``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)". Cohen (1960), A coefficient of agreement for nominal scales, *Educ.
    Psychol. Meas.* 20(1), 37-46.

    Examples
    --------
    2 of 3 conditions reach kappa .80 and one is below .40: replaceable, model dependent.

    >>> c = pd.DataFrame({"condition_id": ["a", "b", "c"], "kappa": [0.85, 0.90, 0.30],
    ...                   "recall": [0.9, 0.95, 0.3], "precision": [0.9, 0.9, 0.5]})
    >>> v = classification_verdict(c)
    >>> v.verdict, v.n_conditions_passing, v.model_dependent
    ('replaceable', 2, True)
    """
    rules = rules or default_rules()
    c = conditions.dropna(subset=["kappa"])
    passes = c["kappa"] >= rules.kappa_pass
    n, n_pass = len(c), int(passes.sum())
    recalls = (c["recall"] >= rules.kappa_pass).mean() > 0.5 if n else False
    absorbs = recalls and c["precision"].median() < rules.precision_calibration_max
    holds = {
        "replaceable": n > 0 and n_pass / n > rules.replaceable_min_share and not absorbs,
        "partial": n_pass >= rules.partial_min_passing,
        "calibratable": bool(absorbs),
        "not_replaceable": True,
    }
    # Over-absorption is a calibration problem even when kappa is high: try it before 'partial'.
    order = tuple(v for v in rules.verdict_order if v != "calibratable")
    order = order[:1] + ("calibratable",) + order[1:]
    return ClassificationVerdict(
        verdict=_first(order, holds),
        n_conditions=n,
        n_conditions_passing=n_pass,
        passing_conditions=_names(c, passes, "kappa"),
        model_dependent=bool(n_pass > 0 and (c["kappa"] < rules.kappa_fail).any()),
        rule=(
            f"pass: one-vs-rest kappa >= {rules.kappa_pass:g}; model dependent if another < "
            f"{rules.kappa_fail:g}; calibratable if most recall >= {rules.kappa_pass:g} but median "
            f"precision < {rules.precision_calibration_max:g}"
        ),
    )


def verdict_matrix(
    dimension_inputs: pd.DataFrame,
    human_baseline: pd.DataFrame,
    classification_inputs: pd.DataFrame | None = None,
    rules: VerdictRules | None = None,
) -> pd.DataFrame:
    """The verdict matrix: every emotion x measure cell.

    Parameters
    ----------
    dimension_inputs : pandas.DataFrame
        emotion, measure, condition_id, w1sd [, mean_abs_z, delta_alpha, delta_alpha_pooled, bias,
        sd_d, n_unique].
    human_baseline : pandas.DataFrame
        emotion, measure, loo_w1sd [, loo_mean_abs_z, human_sd]; a cell without a baseline is an
        error naming it.
    classification_inputs : pandas.DataFrame, optional
        emotion, condition_id, kappa, recall, precision.
    rules : VerdictRules, optional
        Default :func:`default_rules`.

    Returns
    -------
    pandas.DataFrame
        One row per cell: emotion, measure and :func:`dimension_verdict`'s (or
        :func:`classification_verdict`'s) fields.

    Notes
    -----
    Each cell is decided on its own; see :func:`dimension_verdict` and
    :func:`classification_verdict` for the rules.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3
    and 4.6, Table 8; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    One model of two reaches the human W1SD: partial (1 of 2 is not a strict majority).

    >>> d = pd.DataFrame({"emotion": "fear", "measure": "arousal", "condition_id": ["a", "b"],
    ...                   "w1sd": [0.70, 0.60]})
    >>> base = pd.DataFrame({"emotion": ["fear"], "measure": ["arousal"], "loo_w1sd": [0.70]})
    >>> verdict_matrix(d, base)[["emotion", "measure", "verdict", "passing_conditions"]]
      emotion  measure  verdict passing_conditions
    0    fear  arousal  partial                  a
    """
    rules = rules or default_rules()
    base = human_baseline.set_index(["emotion", "measure"])
    rows = []
    for (emotion, measure), cell in dimension_inputs.groupby(["emotion", "measure"], sort=False):
        if (emotion, measure) not in base.index:
            raise ValueError(f"no human LOO baseline for emotion {emotion!r}, measure {measure!r}")
        b = base.loc[(emotion, measure)]
        rows.append(
            {
                "emotion": emotion,
                "measure": measure,
                **asdict(
                    dimension_verdict(
                        cell,
                        float(b["loo_w1sd"]),
                        float(b.get("loo_mean_abs_z", np.nan)),
                        float(b.get("human_sd", np.nan)),
                        rules,
                    )
                ),
            }
        )
    if classification_inputs is not None:
        for emotion, cell in classification_inputs.groupby("emotion", sort=False):
            rows.append(
                {"emotion": emotion, "measure": "classification", **asdict(classification_verdict(cell, rules))}
            )
    return pd.DataFrame(rows)
