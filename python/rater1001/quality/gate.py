"""The quality gate: read the landing zone, validate it, decide, and say so in words.

Writes two things: the offline data-quality report (paths.data_docs, quality/report.py) and
data/raw/_quality.json, the verdict later steps (dbt, the report) read to say whether the study was
analysed as unbalanced and whether the landing they read passed.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..freshness import landing_fingerprint
from ..landing import is_simulated
from ..paths import ProjectPaths
from ..study import load_study
from .checks import build_checks, cell_check_key, count
from .declaration import declaration_warnings
from .frames import assemble_frames, read_landing_zone
from .gx_run import Outcome, run_checks
from .landed import LandingDB
from .report import write_quality_report

# Lines shown per failing check; the data-quality report holds every failing row.
MAX_LINES_PER_CHECK = 10


@dataclass
class QualityResult:
    passed: bool
    allow_unbalanced: bool
    unbalanced: bool  # some design count is off (whether or not that was allowed)
    failures: list[str]
    warnings: list[str]
    checked_at: str
    docs_path: Path
    simulated: bool = False
    n_checks: int = 0
    failed_checks: list[str] = field(default_factory=list)  # check keys, for programs
    landing_sha256: str | None = None  # the landing checked (freshness.landing_fingerprint)
    design: list[str] = field(default_factory=list)  # the declared design counts and their outcome

    def summary(self) -> str:
        head = "SIMULATED study. " if self.simulated else ""
        verdict = "PASSED" if self.passed else "FAILED"
        lines = [
            f"{head}Quality gate {verdict}: {count(self.n_checks, 'check')}, "
            f"{count(len(self.failures), 'failure')}, {count(len(self.warnings), 'warning')}."
        ]
        if self.unbalanced and self.allow_unbalanced and self.passed:
            lines.append(
                "The design is not balanced; --allow-unbalanced is set, so the study is "
                "analysed as UNBALANCED (the design-count problems are listed as warnings)."
            )
        elif self.unbalanced and self.allow_unbalanced:
            lines.append(
                "The design is not balanced (allowed by --allow-unbalanced: listed as "
                "warnings), but the failures below are not design counts and still stop "
                "the pipeline."
            )
        elif self.unbalanced:
            lines.append(
                "The design is not balanced. Fix the data, or rerun with --allow-unbalanced "
                "to analyse it knowingly as an unbalanced study."
            )
        if self.design:
            lines.append("Design:")
            lines += [f"  - {d}" for d in self.design]
        if self.failures:
            lines.append("Failures:")
            lines += [f"  - {f}" for f in self.failures]
        if self.warnings:
            lines.append("Warnings:")
            lines += [f"  - {w}" for w in self.warnings]
        lines.append(f"Data-quality report: {self.docs_path}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        d = asdict(self)
        d["docs_path"] = str(self.docs_path)
        return d

    @classmethod
    def from_json(cls, d: dict) -> QualityResult:
        """The inverse of to_json (a verdict read back from data/raw/_quality.json)."""
        return cls(**{**d, "docs_path": Path(d["docs_path"])})


def _lines(outcome: Outcome) -> list[str]:
    if outcome.error:
        return [f"check {outcome.check.key} could not be evaluated: {outcome.error}"]
    lines = outcome.check.describe(outcome.bad_rows)
    if len(lines) > MAX_LINES_PER_CHECK:
        rest = len(lines) - MAX_LINES_PER_CHECK
        lines = lines[:MAX_LINES_PER_CHECK] + [
            f"... and {rest:,} more like the above ({outcome.check.key}; every row is in the data-quality report)"
        ]
    return lines


def decide(
    outcomes: list[Outcome], skipped: list[str], not_landed: list[str], allow_unbalanced: bool
) -> tuple[bool, bool, list[str], list[str]]:
    """(passed, unbalanced, failures, warnings) from the check outcomes: design counts become
    warnings when the user allows an unbalanced study; everything else fails the gate."""
    failures: list[str] = []
    warnings = [f"optional table {t}" for t in not_landed] + list(skipped)
    unbalanced = False
    for o in outcomes:
        if o.success:
            continue
        if o.check.design and not o.error:
            unbalanced = True
            (warnings if allow_unbalanced else failures).extend(_lines(o))
        else:
            failures.extend(_lines(o))
    return not failures, unbalanced, failures, warnings


DESIGN_UNDECLARED = "the design is undeclared (study.yml has no design counts): no balance checks were made"


def design_lines(study, outcomes: list[Outcome]) -> list[str]:
    """One line per declared design count, with whether the landed data meets it."""
    if not study.design_declared:
        return [DESIGN_UNDECLARED]
    status = {o.check.key: ("met" if o.success else "NOT met") for o in outcomes}
    declared = [
        (key, f"{c.stimuli} images per {c.label} cell")
        for key, c in ((cell_check_key(c, study), c) for c in study.cells)
    ]
    if study.ratings_per_image is not None:
        declared.append(("design.ratings_per_image", f"{study.ratings_per_image} human ratings per image"))
    if study.images_per_rater is not None:
        declared.append(("design.images_per_rater", f"{study.images_per_rater} images per rater"))
    return [
        f"{text}: {status.get(key, 'not checked (the columns it needs have not landed)')}" for key, text in declared
    ]


def write_verdict(result: QualityResult, path: Path) -> None:
    """data/raw/_quality.json, replaced atomically so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".quality.", suffix=".json", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(result.to_json(), fh, ensure_ascii=False, indent=2)
    os.replace(tmp, path)


def run_quality_gate(paths: ProjectPaths, allow_unbalanced: bool = False) -> QualityResult:
    verdict = paths.raw / "_quality.json"
    verdict.unlink(missing_ok=True)  # a gate that crashes must not leave an older pass behind
    # Taken before reading, so data landing during the check make the verdict name an older landing.
    landing = landing_fingerprint(paths)
    study = load_study(paths)
    landed = read_landing_zone(paths)
    with LandingDB() as db:
        gate = assemble_frames(landed, study, paths.root, db)
        checks = build_checks(gate, study)
        outcomes = run_checks(gate.frames, checks, db)
    tables = gate.frames["landing_zone"]
    not_landed = [
        f"{r.table_name} is not landed yet ({r.file}); its checks were skipped"
        for r in tables[tables["status"] == "not landed yet"].itertuples()
    ]
    passed, unbalanced, failures, warnings = decide(outcomes, gate.skipped, not_landed, allow_unbalanced)
    warnings += declaration_warnings(paths, study)
    design = design_lines(study, outcomes)
    result = QualityResult(
        passed=passed,
        allow_unbalanced=allow_unbalanced,
        unbalanced=unbalanced,
        failures=failures,
        warnings=warnings,
        checked_at=datetime.now(UTC).isoformat(timespec="seconds"),
        docs_path=paths.data_docs / "index.html",
        simulated=is_simulated(paths),
        n_checks=len(outcomes),
        failed_checks=[o.check.key for o in outcomes if not o.success],
        landing_sha256=landing,
        design=design,
    )
    write_quality_report(paths, result, outcomes)
    write_verdict(result, verdict)
    return result
