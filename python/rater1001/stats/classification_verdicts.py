"""The classification verdict of a category (paper 4.6, Table 8).

Classification: the levels are rows of the seed, tried in `classification_verdict_order`, each
`classification_when_<level>` a condition over the cell's conditions (see
:func:`parse_level_rule`), e.g. calibratable = all(pass), model_dependent = share(pass) > 0.5,
not_replaceable = always; a condition passes at `classification_statistic` >= kappa_pass (the
default statistic is the within-category free-marginal kappa, docs/stats.md). The flag
`model_dependent` is Table 8 note 1 read literally: some condition passes and another is below
kappa_fail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .verdict_rules import COMPARE, Clause, VerdictRules, condition_names, default_rules, parse_level_rule, rule_numbers


@dataclass(frozen=True)
class ClassificationVerdict:
    """One category's classification cell of the verdict matrix."""

    verdict: str
    n_conditions: int
    n_conditions_passing: int
    passing_conditions: str  # comma-separated, highest kappa first
    model_dependent: bool
    rule: str


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
    numbers = rule_numbers(asdict(rules))
    level, text = next(
        (lv, t) for lv, t in rules.classification_levels if level_holds(parse_level_rule(t, numbers), c, passes)
    )
    return ClassificationVerdict(
        verdict=level,
        n_conditions=len(c),
        n_conditions_passing=int(passes.sum()),
        passing_conditions=condition_names(c, passes, stat),
        model_dependent=bool(passes.any() and (c[stat] < rules.kappa_fail).any()),
        rule=(
            f"pass: {stat} >= {rules.kappa_pass:g}; {level}: {text}; order "
            f"{'>'.join(rules.classification_verdict_order)}"
        ),
    )
