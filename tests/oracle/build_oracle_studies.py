"""Build the oracle's studies, all in this one process (dbt's parse state is kept between builds):
write each study, land its files with `rater1001 ingest`, then a `dbt build` of the marts the
oracle checks and what they read. The harness is the only file here that imports rater1001; the
test module runs it as a child process and reads the results from disk.

    python build_oracle_studies.py OUT_DIR [STUDY_NAME ...]   (default: the whole matrix)
Writes OUT_DIR/<study>/ (a project folder) and OUT_DIR/builds.json {study: {ok, cpu_s, error}}."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle_studies import MATRIX, write_study  # noqa: E402

# What the oracle compares, and the answer's tables.
MARTS = (
    "alpha_delta",
    "zscore_summary",
    "dimensional_agreement",
    "classification_summary",
    "classification_by_category",
    "demographic_slices",
    "demographic_rater_agreement",
    "demographic_rater_panels",
    "demographic_stratified_anova",
    "demographic_glmm_lrt",
    "demographic_omnibus",
    "demographic_tukey",
    "calibration_scores",
    "headline_intervals",
    "query_condition_headline",
    "replaceability_verdicts",
)
LOAD_ORDER = ("stimuli", "raters", "model_conditions", "human_ratings", "model_predictions")


def build(root: Path, files: dict[str, Path]) -> dict:
    from rater1001.cli import main
    from rater1001.paths import project
    from rater1001.warehouse import dbt_build

    codes = {}
    for table in LOAD_ORDER:
        with contextlib.redirect_stdout(io.StringIO()):
            codes[table] = main(["--home", str(root), "ingest", table, str(files[table])])
    # Models only: the data tests are the build's own checks, not the oracle's; leaving them out
    # halves the nodes. A model that fails leaves its table missing, which the oracle reports.
    os.environ["DBT_INDIRECT_SELECTION"] = "empty"
    summary = dbt_build(project(root), select=" ".join(f"+{m}" for m in MARTS))
    return {"ingest": codes, "ok": bool(summary), "error": getattr(summary, "error", None)}


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    wanted = set(argv[1:])
    results = {}
    for shape in MATRIX:
        if wanted and shape.name not in wanted:
            continue
        root = out / shape.name
        files = write_study(root, shape)
        t0 = time.process_time()
        results[shape.name] = build(root, files) | {"cpu_s": time.process_time() - t0}
    (out / "builds.json").write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
