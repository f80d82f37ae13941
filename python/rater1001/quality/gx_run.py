"""Running the checks through Great Expectations: an in-memory context that writes no file, one
validation per frame, results mapped back to the checks (quality/report.py renders them); a
contract check's failing classes are mapped back to the landed rows (quality/landed.py).

The context is ephemeral so nothing is written into the repository tree, and usage statistics
are switched off so a quality run never opens a network connection.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import duckdb
import pandas as pd

from .checks import Check
from .gx import great_expectations
from .landed import LandingDB

CHECK_META = "rater1001_check"


@dataclass(frozen=True)
class Outcome:
    check: Check
    success: bool
    bad_rows: pd.DataFrame  # the frame's failing rows (empty when success or on error)
    error: str | None = None  # GX could not evaluate the expectation


def _context():
    gx = great_expectations()
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    # No Data Docs site: GX's pages load their styling from public CDNs and write landed values
    # into the HTML unescaped; quality/report.py renders the results offline instead.
    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
        data_docs_sites={},
    )
    return gx.get_context(project_config=config, mode="ephemeral")


def run_checks(frames: dict[str, pd.DataFrame], checks: list[Check], db: LandingDB) -> list[Outcome]:
    """Validate every frame with its checks; one outcome per check, in the checks' order. A
    contract check's class frame is computed here, from `db`."""
    gx = great_expectations()
    from great_expectations.validator.v1_validator import Validator

    ctx = _context()
    # One asset for every frame (the frame is passed at run time): each asset added re-serialises
    # the whole context configuration.
    batch = (
        ctx.data_sources.add_pandas("landing_zone")
        .add_dataframe_asset("frame")
        .add_batch_definition_whole_dataframe("all rows")
    )
    by_frame: dict[str, list[Check]] = defaultdict(list)
    for c in checks:
        c.expectation.meta = {**(c.expectation.meta or {}), CHECK_META: c.key}
        by_frame[c.frame].append(c)

    outcomes: dict[str, Outcome] = {}
    frames, errors = _with_class_frames(frames, by_frame, db)
    for frame_name, group in by_frame.items():
        if frame_name in errors:
            outcomes.update({c.key: Outcome(c, False, pd.DataFrame(), errors[frame_name]) for c in group})
            continue
        frame = frames[frame_name]
        # The suite is validated on the batch directly, not added to the context with a validation
        # definition: the context is ephemeral, so nothing stored was ever read again, and storing
        # the suite, the definition and each result serialised them all, a fixed cost per frame
        # (~80 frames on a small study: ~13 % of the checks' CPU).
        results = _validate(gx, Validator, batch, frame, group)
        keyed = {c.key: c for c in group}
        for r in results:
            check = keyed[r.expectation_config.meta[CHECK_META]]
            outcome = _outcome(check, r, frame)
            if check.rows is not None and len(outcome.bad_rows):
                outcome = Outcome(check, False, db.rows(check.rows, outcome.bad_rows[check.rows.column]))
            outcomes[check.key] = outcome
    return [outcomes[c.key] for c in checks]


def _validate(gx, validator, batch, frame: pd.DataFrame, group: list[Check]) -> list:
    """GX's results for `group` on `frame`: a first pass that asks only whether each expectation
    holds (half of GX's work per expectation, which is most of the gate's), then the expectations
    that did not hold, or raised, again with their failing rows (result format COMPLETE)."""

    def run(checks: list[Check], result_format: str) -> list:
        suite = gx.ExpectationSuite(name="checks", expectations=[c.expectation for c in checks])
        # A Validator on the batch definition: Batch.validate would build the batch (and hash the
        # frame) a second time for a validator of its own.
        return (
            validator(
                batch_definition=batch,
                batch_parameters={"dataframe": frame},
                result_format={"result_format": result_format},
            )
            .validate_expectation_suite(suite)
            .results
        )

    results = {r.expectation_config.meta[CHECK_META]: r for r in run(group, "BOOLEAN_ONLY")}
    again = [c for c in group if not results[c.key].success]
    if again:
        results.update({r.expectation_config.meta[CHECK_META]: r for r in run(again, "COMPLETE")})
    return [results[c.key] for c in group]


def _with_class_frames(
    frames: dict[str, pd.DataFrame], by_frame: dict[str, list[Check]], db: LandingDB
) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """`frames` plus the class frame of every contract check (one scan per landed table), and
    the frames that could not be computed with the reason."""
    out, errors = {**frames}, {}
    by_table: dict[str, dict] = defaultdict(dict)
    for name, group in by_frame.items():
        if name not in frames:
            by_table[group[0].rows.table][name] = group[0].rows
    for classes in by_table.values():
        try:
            out.update(db.class_frames(list(classes.values())))
        except duckdb.Error as exc:  # e.g. a damaged data page: the checks cannot be evaluated
            errors.update(dict.fromkeys(classes, str(exc)))
    return out, errors


def _exception_message(info: dict) -> str | None:
    """GX reports errors either flat or keyed by the metric that raised; gather the messages."""
    found = [info] if "raised_exception" in info else [v for v in info.values() if isinstance(v, dict)]
    messages = [e.get("exception_message") or "error" for e in found if e.get("raised_exception")]
    return "; ".join(dict.fromkeys(messages)) or None


def _outcome(check: Check, r, frame: pd.DataFrame) -> Outcome:
    error = _exception_message(r.exception_info or {})
    if error:
        return Outcome(check, False, frame.iloc[0:0], error)
    if r.success:
        return Outcome(check, True, frame.iloc[0:0])
    entries = (r.result or {}).get("unexpected_index_list") or []
    # With a named index GX reports {column: value, index_name: label}; otherwise the bare label.
    labels = [e[frame.index.name] if isinstance(e, dict) else e for e in entries]
    return Outcome(check, False, frame.loc[list(dict.fromkeys(labels))])
