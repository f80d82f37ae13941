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

Classification: the levels are rows of the seed, tried in `classification_verdict_order`, each
`classification_when_<level>` a condition over the cell's conditions (see
:func:`parse_level_rule`), e.g. calibratable = all(pass), model_dependent = share(pass) > 0.5,
not_replaceable = always; a condition passes at `classification_statistic` >= kappa_pass (the
default statistic is the within-category free-marginal kappa, docs/stats.md). The flag
`model_dependent` is Table 8 note 1 read literally: some condition passes and another is below
kappa_fail.
"""

from __future__ import annotations

import csv
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..paths import REPO_ROOT
from .agreement import systematicity

VERDICTS = ("replaceable", "partial", "calibratable", "not_replaceable")
# Classification has one more level (Table 8 note 1, section 5); its rules are rows of the seed.
CLASSIFICATION_VERDICTS = (*VERDICTS, "model_dependent")
LEVEL_PREFIX = "classification_when_"
AGGREGATES = ("all", "any", "none", "share", "count")
COMPARE = {">=": np.greater_equal, ">": np.greater, "<=": np.less_equal, "<": np.less, "==": np.equal}
_CMP = r"(>=|<=|==|>|<)"
_CLAUSE = re.compile(
    rf"^(?P<agg>[a-z]+)\((?P<pred>not pass|pass|(?P<col>[a-z_][a-z0-9_]*)\s*(?P<op>{_CMP})\s*(?P<val>[^)\s]+))\)"
    rf"(?:\s*(?P<op2>{_CMP})\s*(?P<val2>\S+))?$"
)


DELTA_ALPHA_SCOPES = ("pooled", "per_category")
# The input column each scope reads: pooled = the condition's delta alpha over all images of the
# dimension (one number per condition, as Tables 4c/5c print), per_category = the category's own.
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
    classification_statistic: str
    classification_verdict_order: tuple[str, ...]
    # (level, condition) pairs in the order tried; from the classification_when_<level> rows
    classification_levels: tuple[tuple[str, str], ...]


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


@dataclass(frozen=True)
class ClassificationVerdict:
    """One category's classification cell of the verdict matrix."""

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
    when: dict[str, tuple[int, str]] = {}
    for row_no, row in enumerate(records, start=2):
        name, raw = str(row["parameter"]).strip(), str(row["value"]).strip()
        if name.startswith(LEVEL_PREFIX):
            level = name[len(LEVEL_PREFIX) :]
            if level not in CLASSIFICATION_VERDICTS:
                raise ValueError(f"{source}: row {row_no}: {name!r} names no level of {CLASSIFICATION_VERDICTS}")
            when[level] = (row_no, raw)
            continue
        if name not in fields or name == "classification_levels":
            raise ValueError(f"{source}: row {row_no}: unknown parameter {name!r}")
        if name in ("verdict_order", "classification_verdict_order"):
            order = tuple(v.strip() for v in raw.split("|"))
            if name == "verdict_order" and sorted(order) != sorted(VERDICTS):
                raise ValueError(
                    f"{source}: row {row_no}: verdict_order must list each of {VERDICTS} once, got {raw!r}"
                )
            if name == "classification_verdict_order" and (
                len(set(order)) != len(order) or not set(order) <= set(CLASSIFICATION_VERDICTS)
            ):
                raise ValueError(
                    f"{source}: row {row_no}: classification_verdict_order must list levels of "
                    f"{CLASSIFICATION_VERDICTS} at most once each, got {raw!r}"
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
        if name == "classification_statistic":
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", raw):
                raise ValueError(f"{source}: row {row_no}: classification_statistic must be a column name, got {raw!r}")
            values[name] = raw
            continue
        try:
            values[name] = int(raw) if fields[name].type in (int, "int") else float(raw)
        except ValueError:
            raise ValueError(f"{source}: row {row_no}: parameter {name!r} needs a number, got {raw!r}") from None
    missing = [f for f in fields if f not in values and f != "classification_levels"]
    if missing:
        raise ValueError(f"{source}: parameter(s) {missing} are not declared")
    order = values["classification_verdict_order"]
    unused = sorted(set(when) - set(order))
    if unused:
        raise ValueError(
            f"{source}: row {when[unused[0]][0]}: level {unused[0]!r} is not in classification_verdict_order"
        )
    levels = []
    for level in order:
        if level not in when:
            raise ValueError(f"{source}: classification_verdict_order lists {level!r} but no {LEVEL_PREFIX}{level} row")
        row_no, text = when[level]
        try:
            parse_level_rule(text, _numbers(values))
        except ValueError as err:
            raise ValueError(f"{source}: row {row_no}: {LEVEL_PREFIX}{level}: {err}") from None
        levels.append((level, text))
    if levels[-1][1] != "always":
        raise ValueError(f"{source}: the last level of classification_verdict_order ({order[-1]!r}) must be 'always'")
    return VerdictRules(**values, classification_levels=tuple(levels))


def _numbers(values: dict) -> dict[str, float]:
    return {k: float(v) for k, v in values.items() if isinstance(v, (int, float))}


@dataclass(frozen=True)
class Clause:
    """One clause of a level rule: aggregate(predicate) [comparison value]."""

    aggregate: str  # all, any, none, share, count
    column: str  # "pass" = the classification statistic >= kappa_pass
    op: str  # the predicate's comparison ("" for pass / not pass)
    value: float
    negate: bool  # "not pass"
    outer_op: str  # share / count only
    outer_value: float


def parse_level_rule(text: str, parameters: dict[str, float]) -> tuple[Clause, ...]:
    """Parse a level rule of seeds/verdict_rules.csv (a ``classification_when_<level>`` row).

    Parameters
    ----------
    text : str
        ``always``, or clauses joined by `` and ``; a clause is ``AGG(PRED)`` with AGG in all /
        any / none, or ``AGG(PRED) OP VALUE`` with AGG in share / count. PRED is ``pass``,
        ``not pass`` or ``COLUMN OP VALUE``; OP is one of >=, >, <=, <, ==; VALUE a number or
        the name of a numeric parameter of the rules.
    parameters : dict
        The numeric parameters a VALUE may name.

    Returns
    -------
    tuple of Clause
        Empty for ``always``.

    Raises
    ------
    ValueError
        Naming the clause that does not parse, or the parameter that is not declared.

    Notes
    -----
    The aggregates run over the cell's conditions: ``all`` / ``any`` / ``none`` of them meet the
    predicate, ``share`` / ``count`` of them that do compared with a value. With no condition in
    the cell every clause but ``none`` is false.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Table 8 note 1
    and section 5.1; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> [c.aggregate for c in parse_level_rule("any(pass) and any(kappa < kappa_fail)", {"kappa_fail": 0.4})]
    ['any', 'any']
    >>> parse_level_rule("share(pass)", {})
    Traceback (most recent call last):
    ...
    ValueError: 'share(pass)': share and count need a comparison after the parenthesis
    """
    if text.strip() == "always":
        return ()

    def value(raw: str) -> float:
        if raw in parameters:
            return parameters[raw]
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is neither a number nor a numeric parameter") from None

    clauses = []
    for part in text.split(" and "):
        m = _CLAUSE.match(part.strip())
        if not m or m["agg"] not in AGGREGATES:
            raise ValueError(
                f"cannot read clause {part.strip()!r} (expected e.g. all(pass), share(kappa >= 0.8) > 0.5)"
            )
        counted = m["agg"] in ("share", "count")
        if counted != (m["op2"] is not None):
            raise ValueError(
                f"{part.strip()!r}: share and count need a comparison after the parenthesis"
                if counted
                else f"{part.strip()!r}: {m['agg']} takes no comparison after the parenthesis"
            )
        clauses.append(
            Clause(
                aggregate=m["agg"],
                column=m["col"] or "pass",
                op=m["op"] or "",
                value=value(m["val"]) if m["val"] else np.nan,
                negate=m["pred"] == "not pass",
                outer_op=m["op2"] or "",
                outer_value=value(m["val2"]) if m["val2"] else np.nan,
            )
        )
    return tuple(clauses)


def level_holds(clauses: tuple[Clause, ...], conditions: pd.DataFrame, passes: pd.Series) -> bool:
    """Whether a parsed level rule holds on a cell's conditions (one row each).

    Parameters
    ----------
    clauses : tuple of Clause
        From :func:`parse_level_rule`.
    conditions : pandas.DataFrame
        The cell's conditions; a clause's column must be one of its columns (missing values do
        not meet any predicate).
    passes : pandas.Series of bool
        Whether each condition passes (the ``pass`` predicate).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        When a clause names a column the inputs do not carry.

    Notes
    -----
    The clauses are joined by AND. Of n conditions, k meet a clause's predicate: ``all`` holds when
    k = n > 0, ``any`` when k > 0, ``none`` when k = 0; ``share`` compares k / n and ``count`` k
    with the clause's value (both false when n = 0).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Table 8 note 1;
    docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    Note 1 read literally: some condition passes and another is below .40.

    >>> c = pd.DataFrame({"kappa": [0.9, 0.3, 0.6]})
    >>> rule = parse_level_rule("any(pass) and any(kappa < 0.4)", {})
    >>> level_holds(rule, c, c["kappa"] >= 0.8), level_holds(rule, c.iloc[[0, 2]], c["kappa"].iloc[[0, 2]] >= 0.8)
    (True, False)
    """
    n = len(conditions)
    for c in clauses:
        if c.column == "pass":
            meets = ~passes.to_numpy(bool) if c.negate else passes.to_numpy(bool)
        else:
            if c.column not in conditions:
                raise ValueError(f"a level rule reads column {c.column!r}, which the inputs do not carry")
            meets = COMPARE[c.op](conditions[c.column].to_numpy(float), c.value)
        k = int(np.sum(meets))
        if c.aggregate in ("share", "count"):
            holds = n > 0 and bool(COMPARE[c.outer_op](k / n if c.aggregate == "share" else k, c.outer_value))
        else:
            holds = {"all": n > 0 and k == n, "any": k > 0, "none": k == 0}[c.aggregate]
        if not holds:
            return False
    return True


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
    """Classification verdict of one category.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per condition: condition_id, the rules' ``classification_statistic`` (default
        kappa_within) and any column a level rule reads (kappa, recall, precision). Rows without
        the statistic are left out.
    rules : VerdictRules, optional
        Default :func:`default_rules`.

    Returns
    -------
    ClassificationVerdict
        ``verdict``, counts and names of passing conditions, ``model_dependent`` (note 1 read
        literally) and the ``rule`` that decided.

    Notes
    -----
    A condition passes at ``statistic >= kappa_pass``. The levels are tried in
    ``classification_verdict_order``; the first whose ``classification_when_<level>`` rule holds
    (:func:`level_holds`) is the verdict. ``model_dependent`` is true when some condition passes
    and another has ``statistic < kappa_fail``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.3,
    4.1, 4.6 (Table 8 note 1) and 5.1; docs/stats.md, "Replaceability verdicts (Table 8)".
    Cohen (1960), A coefficient of agreement for nominal scales, *Educ. Psychol. Meas.* 20(1),
    37-46.

    Examples
    --------
    The seed's rows: every condition reaches .80 -> calibratable; most but not all ->
    model_dependent; fewer -> not_replaceable.

    >>> mk = lambda k: pd.DataFrame({"condition_id": list("abc")[: len(k)], "kappa_within": k})
    >>> [classification_verdict(mk(k)).verdict for k in ([0.9, 0.85, 0.81], [0.9, 0.85, 0.5], [0.9, 0.3, 0.5])]
    ['calibratable', 'model_dependent', 'not_replaceable']
    """
    rules = rules or default_rules()
    stat = rules.classification_statistic
    if stat not in conditions:
        raise ValueError(f"the classification rule reads {stat!r}, which the inputs do not carry")
    c = conditions.dropna(subset=[stat])
    passes = c[stat] >= rules.kappa_pass
    numbers = _numbers(asdict(rules))
    level, text = next(
        (lv, t) for lv, t in rules.classification_levels if level_holds(parse_level_rule(t, numbers), c, passes)
    )
    return ClassificationVerdict(
        verdict=level,
        n_conditions=len(c),
        n_conditions_passing=int(passes.sum()),
        passing_conditions=_names(c, passes, stat),
        model_dependent=bool(passes.any() and (c[stat] < rules.kappa_fail).any()),
        rule=(
            f"pass: {stat} >= {rules.kappa_pass:g}; {level}: {text}; order "
            f"{'>'.join(rules.classification_verdict_order)}"
        ),
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
