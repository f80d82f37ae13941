"""The offline data-quality report `rater1001 check` writes, and hostile values in every page the
project writes: a study whose image id is `<script>alert(1)</script>` and whose design is off by
one rating fails the gate; the report lists every check, links the failing one to the rows it
rejects (in the page and a CSV), shows the ingest rejects, and renders styled in headless Chromium
with no request leaving the disk; neither it nor the main report (built from that landing by a
plain build) runs the value."""

from __future__ import annotations

import hashlib
import re

import pandas as pd
import pytest
from conftest import SMALL_DESIGN
from failed_gate_study import PAYLOAD
from rater1001.cli import main

# The shared study that fails the gate, built once: one xdist unit with its other reader
# (test_verdict_marts_warehouse.py), handed out early under `make test` (conftest.py).
pytestmark = pytest.mark.xdist_group("failed_gate_study")
# Runs before the page's own scripts: any alert/confirm/prompt the page makes is recorded.
RECORD_DIALOGS = (
    "window.__dialogs = [];"
    "for (const f of ['alert', 'confirm', 'prompt']) window[f] = (m) => { window.__dialogs.push(String(m)); };"
)


@pytest.fixture(scope="module")
def hostile(failed_gate_warehouse):
    """(paths, gate result, report result) of the shared study that fails the gate
    (failed_gate_study.py): one image renamed to PAYLOAD, one of its ratings removed (a design
    count the gate fails), one ingest reject carrying PAYLOAD; a plain build of every model passed
    (the fixture asserts it), and the main report is written from it here."""
    from rater1001.report import build_report

    paths = failed_gate_warehouse.paths
    return paths, failed_gate_warehouse.gate, build_report(paths, write_pngs=False)


def test_failing_check_links_to_the_rows_it_rejects(hostile):
    paths, gate, _ = hostile
    # One rating fewer: the image and its rater are both off the declared design.
    assert not gate.passed and sorted(gate.failed_checks) == ["design.images_per_rater", "design.ratings_per_image"]
    html = (paths.data_docs / "index.html").read_text(encoding="utf-8")
    assert PAYLOAD not in html
    # Every check is listed once, with its status; the failing one links to its rows' section.
    rows = re.findall(r'<tr class="(passed|failed|warning|error)" id="check-rows-([^"]+)">', html)
    assert len(rows) == gate.n_checks
    assert sorted(key for status, key in rows if status == "failed") == sorted(gate.failed_checks)
    assert 'href="#rows-design.ratings_per_image"' in html
    section = html[html.index('<section class="rejected" id="rows-design.ratings_per_image">') :]
    section = section[: section.index("</section>")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section  # the image, shown as text
    assert f"<td>{SMALL_DESIGN['ratings_per_image'] - 1}</td>" in section  # its count of ratings
    # The CSV beside the page holds every rejected row, value intact.
    every = pd.read_csv(paths.data_docs / "rows" / "design.ratings_per_image.csv")
    assert every["image_id"].tolist() == [PAYLOAD]
    # Ingest rejects are listed with their reasons, escaped.
    assert 'id="ingest-human_ratings"' in html
    assert "image_id &lt;script&gt;alert(1)&lt;/script&gt; &amp; valence &#39;&lt;b&gt;12&lt;/b&gt;&#39;" in html


def test_main_report_warns_it_was_built_from_a_failed_landing_and_links_the_quality_report(hostile, capsys):
    paths, _, report = hostile
    html = report.html.read_text(encoding="utf-8")
    assert 'class="banner stale-banner"' in html and "FAILED the quality gate" in html
    assert 'href="data_quality/index.html" id="data-quality-link"' in html
    sha = hashlib.sha256(paths.manifest.read_bytes()).hexdigest()
    assert (
        f'<p id="built-from">Warehouse built from landing {sha[:12]} (quality gate at build time: failed).</p>' in html
    )
    assert main(["--home", str(paths.root), "summary"]) == 1
    assert "FAILED the quality gate" in capsys.readouterr().err
    from rater1001.freshness import gate_status

    assert gate_status(paths) == "failed"  # the Python twin of the status the build recorded


def test_the_payload_reached_the_main_report_only_as_data(hostile):
    html = hostile[2].html.read_text(encoding="utf-8")
    assert PAYLOAD not in html
    assert "\\u003cscript\\u003ealert(1)" in html or "&lt;script&gt;alert(1)" in html


STYLE_CHECK_JS = """JSON.stringify({
  scripts: document.scripts.length,
  text: document.body.innerText,
  thBackground: getComputedStyle(document.querySelector('table.checks th')).backgroundColor,
  failedColor: getComputedStyle(document.querySelector('tr.failed td.status')).color,
  linkTargets: Array.from(document.querySelectorAll('a[href^="#"]')).map(a => !!document.getElementById(a.getAttribute('href').slice(1))),
  dialogs: window.__dialogs})"""


def _browser():
    from report_browser import open_page, require_chromium

    require_chromium()
    return open_page


def test_quality_report_renders_styled_offline_and_runs_nothing(hostile, tmp_path):
    open_page = _browser()
    paths = hostile[0]
    run = open_page(
        paths.data_docs / "index.html",
        tmp_path / "chromium",
        "document.readyState === 'complete'",
        STYLE_CHECK_JS,
        init_js=RECORD_DIALOGS,
    )
    assert run.errors == []
    assert all(url.startswith("file://") for url in run.requests), run.requests  # nothing from the network
    page = run.value
    assert page["dialogs"] == [] and page["scripts"] == 0
    assert PAYLOAD in page["text"]  # shown as text
    assert page["thBackground"] == "rgb(244, 244, 244)" and page["failedColor"] == "rgb(176, 0, 32)"  # styled
    assert page["linkTargets"] and all(page["linkTargets"])


def test_main_report_with_the_payload_runs_nothing(hostile, tmp_path):
    open_page = _browser()
    report = hostile[2]
    run = open_page(
        report.html,
        tmp_path / "chromium",
        "window.reportRendered",
        "JSON.stringify({dialogs: window.__dialogs, rendered: window.reportRendered})",
        init_js=RECORD_DIALOGS,
    )
    assert run.errors == []
    assert run.value["dialogs"] == []
    assert run.value["rendered"]["failed"] == [] and run.value["rendered"]["total"] == len(report.figures) > 0
    assert all(url.startswith(("file://", "data:")) for url in run.requests), run.requests
