"""The data-quality report `rater1001 check` writes: one offline HTML page (styles inline, no
script, no network) with every check of the gate, its verdict and what it means, and for each
failing check a link to the rows it rejected (the first rows in the page, every row in a CSV
beside it), followed by the rows ingest set aside with their reasons.

Every value goes through Jinja's autoescaping or pages.table.frame_html (which escapes), so a
landed value such as `<script>` is shown as text, never run. Replaces Great Expectations' Data
Docs, which load their styling from public CDNs and write raw values into the page.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import jinja2
import pandas as pd
from markupsafe import Markup

from ..pages.fonts import font_face_css
from ..pages.table import frame_html
from ..paths import ProjectPaths
from .gx_run import Outcome

ROWS_SHOWN = 50  # per failing check in the page; the CSV beside it holds all of them
TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class CheckRow:
    key: str
    frame: str
    status: str  # passed | failed | warning (an allowed design count) | error
    means: str  # the expectation's plain-language note
    n_bad: int
    anchor: str
    csv: str | None  # relative link to every failing row
    rows: pd.DataFrame | None
    error: str | None


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", key)


def _index_as_column(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame's index (row number in the file, or the cell / image / rater) as its first column."""
    name = frame.index.name or "row"
    if name in frame.columns:
        name = f"{name} (row label)"
    return frame.rename_axis(name).reset_index()


def _status(o: Outcome, allow_unbalanced: bool) -> str:
    if o.success:
        return "passed"
    if o.error:
        return "error"
    return "warning" if (o.check.design and allow_unbalanced) else "failed"


def check_rows(outcomes: list[Outcome], allow_unbalanced: bool, out_dir: Path) -> list[CheckRow]:
    """One row per check, failing ones first; writes rows/<check>.csv for each failing check."""
    rows_dir = out_dir / "rows"
    rows = []
    for o in outcomes:
        status = _status(o, allow_unbalanced)
        slug = _slug(o.check.key)
        csv = None
        bad = o.bad_rows if len(o.bad_rows) else None
        if bad is not None:
            bad = _index_as_column(bad)
            rows_dir.mkdir(parents=True, exist_ok=True)
            bad.to_csv(rows_dir / f"{slug}.csv", index=False)
            csv = f"rows/{slug}.csv"
        rows.append(
            CheckRow(
                o.check.key,
                o.check.shown_frame,
                status,
                str(o.check.expectation.notes or ""),
                len(o.bad_rows),
                f"rows-{slug}",
                csv,
                bad.head(ROWS_SHOWN) if bad is not None else None,
                o.error,
            )
        )
    order = {"failed": 0, "error": 1, "warning": 2, "passed": 3}
    return sorted(rows, key=lambda r: (order[r.status], r.key))


def ingest_rejects(paths: ProjectPaths, out_dir: Path) -> list[dict]:
    """Rows `rater1001 ingest` set aside (data/rejected/<table>.parquet), with their reasons."""
    found = []
    for path in sorted(paths.rejected.glob("*.parquet")) if paths.rejected.exists() else []:
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # an unreadable rejects file is reported, not fatal
            found.append({"table": path.stem, "n": None, "rows": None, "error": str(exc), "href": None})
            continue
        href = Path(os.path.relpath(path, out_dir)).as_posix()
        if "_reason" in frame:  # a list of reasons per row (docs/ingest.md); one line of text on the page
            frame["_reason"] = frame["_reason"].map(lambda r: r if isinstance(r, str) else "; ".join(map(str, r)))
        found.append({"table": path.stem, "n": len(frame), "rows": frame.head(ROWS_SHOWN), "error": None, "href": href})
    return found


def write_quality_report(paths: ProjectPaths, result, outcomes: list[Outcome]) -> Path:
    """report/data_quality/index.html (and rows/*.csv) for the gate result `result`; the folder is
    replaced, so it shows this run only."""
    out_dir = paths.data_docs
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    env.filters["frame_html"] = lambda f: Markup(frame_html(f)) if f is not None else ""
    checks = check_rows(outcomes, result.allow_unbalanced, out_dir)
    html = env.get_template("data_quality.html.j2").render(
        result=result,
        checks=checks,
        rejects=ingest_rejects(paths, out_dir),
        rows_shown=ROWS_SHOWN,
        font_face_css=font_face_css(),
    )
    index = out_dir / "index.html"
    index.write_text(html, encoding="utf-8")
    return index
