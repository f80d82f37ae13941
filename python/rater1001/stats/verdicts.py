"""Replaceability verdict matrix (paper sections 3.4.3 and 4.6, Table 8): one verdict per
category x measure (classification, valence, arousal) in replaceable / partial / calibratable /
not_replaceable, from per-condition inputs and the human leave-one-out baseline of the same
category. Thresholds and the order in which verdicts are tried are data (seeds/verdict_rules.csv).

Dimensions (valence, arousal), per condition:
  eligible   = delta alpha >= delta_alpha_min            (not checked when delta alpha is missing)
               where delta alpha is the condition's pooled delta alpha over all images of the
               dimension (delta_alpha_scope = pooled, the paper's Tables 4c/5c and default) or
               the category's own (delta_alpha_scope = per_category)
  passes     = eligible and W1SD >= human LOO W1SD + w1sd_margin   (full precision; ties pass)
  calibration candidate = eligible, not passing, |bias|/SD_d >= systematicity_min and
               2 * 1.96 * SD_d <= loa_width_max_human_sd * mean human SD of the category
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

Classification verdicts: stats.classification_verdicts; the rules: stats.verdict_rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .agreement import systematicity
from .classification_verdicts import classification_verdict
from .verdict_rules import SCOPE_COLUMN, VerdictRules, condition_names, default_rules


@dataclass(frozen=True)
class DimensionVerdict:
    """One category x dimension cell of the verdict matrix (fields in the marts' column order)."""

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


def _first(order, holds: dict[str, bool]) -> str:
    return next(v for v in order if holds[v])


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
    paper reports, Tables 4c/5c); ``per_category``: the category's own.

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
    """Verdict of one category x dimension cell.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per condition: condition_id, w1sd and optionally mean_abs_z, delta_alpha (the
        category's), delta_alpha_pooled (the condition's over all images), bias, sd_d, n_unique
        (missing columns = not checked). Rows without w1sd are left out.
    loo_w1sd : float
        Human leave-one-out W1SD of the cell.
    loo_mean_abs_z : float, optional
        Human leave-one-out mean |z| (for the stereotyped flag).
    human_sd : float, optional
        Mean human SD of the category (for the LoA-width test of calibration candidates).
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
        passing_conditions=condition_names(c, passes, "w1sd"),
        stereotyped=bool(stereo.any()),
        stereotyped_conditions=condition_names(c, stereo, "w1sd"),
        calibration_candidates=condition_names(c.assign(_s=syst), candidate, "_s"),
        n_conditions_delta_alpha_below_min=int((~eligible).sum()),
        delta_alpha_scope=rules.delta_alpha_scope,
        human_loo_w1sd=loo_w1sd,
        human_loo_mean_abs_z=loo_mean_abs_z,
        rule=rule_text(rules, loo_w1sd),
    )


def verdict_matrix(
    dimension_inputs: pd.DataFrame,
    human_baseline: pd.DataFrame,
    classification_inputs: pd.DataFrame | None = None,
    rules: VerdictRules | None = None,
) -> pd.DataFrame:
    """The verdict matrix: every category x measure cell.

    Parameters
    ----------
    dimension_inputs : pandas.DataFrame
        category, measure, condition_id, w1sd [, mean_abs_z, delta_alpha, delta_alpha_pooled, bias,
        sd_d, n_unique].
    human_baseline : pandas.DataFrame
        category, measure, loo_w1sd [, loo_mean_abs_z, human_sd]; a cell without a baseline is an
        error naming it.
    classification_inputs : pandas.DataFrame, optional
        category, condition_id, the rules' classification_statistic and the columns its level
        rules read (kappa_within, kappa, recall, precision).
    rules : VerdictRules, optional
        Default :func:`default_rules`.

    Returns
    -------
    pandas.DataFrame
        One row per cell: category, measure and :func:`dimension_verdict`'s (or
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

    >>> d = pd.DataFrame({"category": "fear", "measure": "arousal", "condition_id": ["a", "b"],
    ...                   "w1sd": [0.70, 0.60]})
    >>> base = pd.DataFrame({"category": ["fear"], "measure": ["arousal"], "loo_w1sd": [0.70]})
    >>> verdict_matrix(d, base)[["category", "measure", "verdict", "passing_conditions"]]
      category  measure  verdict passing_conditions
    0    fear  arousal  partial                  a
    """
    rules = rules or default_rules()
    base = human_baseline.set_index(["category", "measure"])
    rows = []
    for (category, measure), cell in dimension_inputs.groupby(["category", "measure"], sort=False):
        if (category, measure) not in base.index:
            raise ValueError(f"no human LOO baseline for category {category!r}, measure {measure!r}")
        b = base.loc[(category, measure)]
        rows.append(
            {
                "category": category,
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
        for category, cell in classification_inputs.groupby("category", sort=False):
            rows.append(
                {"category": category, "measure": "classification", **asdict(classification_verdict(cell, rules))}
            )
    return pd.DataFrame(rows)
