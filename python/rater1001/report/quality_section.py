"""The data-quality summary that opens the report: provenance banner, the quality gate's verdict
(paths.raw/_quality.json), landing counts, exclusions, and links to the data-quality report and dbt docs."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import pandas as pd

from ..freshness import built_from, warehouse_problems
from ..paths import ProjectPaths
from .. import build_record
from .reader import Unavailable, WarehouseReader

# Bookkeeping counts of what the analyses exclude (images with < 2 ratings or SD 0, unparsed
# answers). They are row counts over warehouse tables, not statistics.
EXCLUSIONS_SQL = """
SELECT dimension, count(*) AS images, count(*) FILTER (WHERE n_ratings < 2) AS images_with_fewer_than_2_ratings,
       count(*) FILTER (WHERE human_sd = 0) AS images_with_sd_0,
       min(n_ratings) AS fewest_ratings_per_image, max(n_ratings) AS most_ratings_per_image
FROM int_image_human_stats GROUP BY dimension ORDER BY dimension"""
PREDICTION_GAPS_SQL = """
SELECT x.condition_id, count(*) AS predictions,
       count(*) FILTER (WHERE x.predicted_category IS NULL) AS without_label,
       count(*) FILTER (WHERE x.parse_path = 'failed') AS parse_failed,
       (SELECT count(*) FROM stg_stimuli) - count(DISTINCT x.image_id) AS images_not_predicted
FROM int_model_vs_human x GROUP BY x.condition_id ORDER BY x.condition_id"""


@dataclass
class QualitySummary:
    data_origin: str = "unknown"
    provenance: dict = field(default_factory=dict)
    gate: dict | None = None
    gate_note: str = ""
    manifest: pd.DataFrame | None = None
    exclusions: pd.DataFrame | None = None
    prediction_gaps: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # freshness.warehouse_problems: shown as a banner
    build_problems: list[str] = field(default_factory=list)  # the last build's failures: a banner too
    built_from: str = ""
    data_docs_href: str | None = None
    dbt_docs_href: str | None = None


def _relative_link(target, report_dir) -> str | None:
    return os.path.relpath(target, report_dir).replace(os.sep, "/") if target.exists() else None


def _try(reader: WarehouseReader, tables, sql, notes: list[str]):
    try:
        reader.require(tables)
        return reader.query(sql)
    except Unavailable as exc:
        notes.append(str(exc))
        return None


def build_problems(paths: ProjectPaths) -> list[str]:
    """One line per model the last build could not build (failed, with dbt's error, or skipped
    after an upstream failure) and per failed data test, from warehouse/last_build.json. The
    warehouse a report reads is the last complete one; these lines say what a later build lacked."""
    built = build_record.read(paths)
    if not built or built.get("status") != "failed":
        return []
    landing = str(built.get("landing_sha256") or "unknown")[:12]
    head = f"the build of landing {landing} started {built.get('started_at', '?')} FAILED; this report is of the last complete build"
    lines = [f"{f['node']} {f['status']}: {f['message']}" for f in built.get("failures", [])]
    skipped = built.get("skipped_models", [])
    if skipped:
        lines.append(f"not built because an upstream model failed: {', '.join(skipped)}")
    return [head, *(lines or [built.get("cause") or "see logs/dbt.log"])]


def quality_summary(paths: ProjectPaths, reader: WarehouseReader) -> QualitySummary:
    s = QualitySummary()
    prov = _try(reader, ["int_study_provenance"], "SELECT * FROM int_study_provenance", s.notes)
    if prov is not None and len(prov):
        s.provenance = prov.iloc[0].to_dict()
        s.data_origin = str(s.provenance.get("data_origin", "unknown"))
    s.stale = warehouse_problems(paths, s.provenance)
    s.build_problems = build_problems(paths)
    s.built_from = built_from(s.provenance)
    gate_file = paths.raw / "_quality.json"
    if gate_file.exists():
        s.gate = json.loads(gate_file.read_text(encoding="utf-8"))
    else:
        s.gate_note = f"{gate_file}: the quality gate has not been run (`rater1001 check`)."
    s.manifest = _try(reader, ["stg_landing_manifest"],
                      "SELECT table_name, source, rows_landed, rows_rejected, is_simulated, landed_at "
                      "FROM stg_landing_manifest ORDER BY table_name", s.notes)
    s.exclusions = _try(reader, ["int_image_human_stats"], EXCLUSIONS_SQL, s.notes)
    s.prediction_gaps = _try(reader, ["int_model_vs_human", "stg_stimuli"], PREDICTION_GAPS_SQL, s.notes)
    s.data_docs_href = _relative_link(paths.data_docs / "index.html", paths.report)
    s.dbt_docs_href = _relative_link(paths.root / "target" / "static_index.html", paths.report)
    return s
