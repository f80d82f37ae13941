"""The replaceability verdict rules as data (seeds/verdict_rules.csv): loading and checking the
seed, its parameters, and the small language of the classification levels
(``classification_when_<level>`` rows, :func:`parse_level_rule`)."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..paths import REPO_ROOT

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
            parse_level_rule(text, rule_numbers(values))
        except ValueError as err:
            raise ValueError(f"{source}: row {row_no}: {LEVEL_PREFIX}{level}: {err}") from None
        levels.append((level, text))
    if levels[-1][1] != "always":
        raise ValueError(f"{source}: the last level of classification_verdict_order ({order[-1]!r}) must be 'always'")
    return VerdictRules(**values, classification_levels=tuple(levels))


def rule_numbers(values: dict) -> dict[str, float]:
    """The numeric parameters of the rules, the names a level rule may compare with.

    Parameters
    ----------
    values : dict
        Parameter name to value (e.g. ``dataclasses.asdict`` of :class:`VerdictRules`).

    Returns
    -------
    dict of str to float
        The entries whose value is a number.

    Notes
    -----
    Text parameters (orders, scopes, level rules) are left out.

    References
    ----------
    seeds/verdict_rules.csv; docs/stats.md, "Replaceability verdicts (Table 8)".

    Examples
    --------
    >>> rule_numbers({"kappa_pass": 0.6, "verdict_order": ("replaceable",), "n": 2})
    {'kappa_pass': 0.6, 'n': 2.0}
    """
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


def condition_names(frame: pd.DataFrame, mask, sort_by: str) -> str:
    """The conditions a verdict names (passing, stereotyped, candidates), best first.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per condition, with condition_id and the ``sort_by`` column.
    mask : array_like of bool
        The conditions to name.
    sort_by : str
        Largest first; ties by condition_id.

    Returns
    -------
    str
        Comma-separated condition ids.

    Notes
    -----
    The verdict marts' list columns read it, so their order is the same everywhere.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Table 8.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"condition_id": ["m1", "m2", "m3"], "w1sd": [0.5, 0.7, 0.7]})
    >>> condition_names(c, c["w1sd"] > 0.6, "w1sd")
    'm2,m3'
    """
    # a few rows per call, many calls: plain Python sort, the order of sort_values([sort_by,
    # "condition_id"], ascending=[False, True]) with NULLs last (the marts' verdicts call it per cell)
    keep = np.asarray(mask, dtype=bool)
    ids = frame["condition_id"].to_numpy(object)[keep]
    values = frame[sort_by].to_numpy(float)[keep]
    order = sorted(
        range(len(ids)),
        key=lambda k: (
            bool(np.isnan(values[k])),
            0.0 if np.isnan(values[k]) else -values[k],
            pd.isna(ids[k]),
            "" if pd.isna(ids[k]) else ids[k],
        ),
    )
    return ",".join(str(ids[k]) for k in order)
