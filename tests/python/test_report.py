"""The report: every figure draws exactly the warehouse rows it claims to show, absent inputs give
visible notes instead of failures, the HTML is self-contained and renders in headless Chromium
without console errors, and every figure has a PNG."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import shutil
import struct
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import duckdb
import pandas as pd
import pytest
import yaml
from conftest import query_warehouse
from rater1001.paths import project
from rater1001.report import build_report

# What each figure claims to show, stated independently of the report code: the table and the rows.
# A figure missing here fails test_every_figure_is_checked.
FIGURE_CLAIMS = {
    "F2": ("dimensional_agreement", "dimension = 'valence' AND category <> 'all' AND condition_id NOT LIKE 'human%'"),
    "F3": ("dimensional_agreement", "dimension = 'arousal' AND category <> 'all' AND condition_id NOT LIKE 'human%'"),
    "F4a": ("report_space_bins", "condition_id = 'human' AND x_dimension = 'valence' AND y_dimension = 'arousal'"),
    "F4b": ("report_space_bins", "condition_id <> 'human' AND x_dimension = 'valence' AND y_dimension = 'arousal'"),
    "F4f": [("report_loo_z_histogram", "dimension = 'valence'"), ("report_model_z_histogram", "dimension = 'valence'")],
    "F5f": [("report_loo_z_histogram", "dimension = 'arousal'"), ("report_model_z_histogram", "dimension = 'arousal'")],
    "F5": ("response_diversity_k_human", ""),
    "F6": ("report_sd_boxes", ""),
    "F7": ("demographic_slices", "slice_type = 'race'"),
    "F7a": ("demographic_slices", "slice_type = 'gender'"),
    "F7b": ("demographic_slices", "slice_type = 'race_gender'"),
    "F7d": ("demographic_stratified_anova", "term = 'race:gender'"),
    "F8": ("replaceability_verdicts", ""),
    "FJ1": ("judge_win_rates", ""),
    "FJ2": ("judge_bradley_terry", ""),
    "F1": [("pipeline_stages", "element = 'node'"), ("pipeline_stages", "element = 'edge'")],
    "FW1": ("worth_k_star", "factor = 'all'"),
    "FW2": ("worth_budget", ""),
}


@pytest.fixture(scope="module")
def report(demo_warehouse):
    return build_report(demo_warehouse)


def _embedded_figures(html: str) -> list[dict]:
    line = next(l for l in html.splitlines() if l.strip().startswith("const reportFigures = "))
    return json.loads(line.strip()[len("const reportFigures = ") :].rstrip(";"))


def _canonical(frame: pd.DataFrame) -> list[tuple]:
    def norm(v):
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            return None
        if isinstance(v, float):
            return round(v, 9)
        if hasattr(v, "item"):
            return norm(v.item())
        return v

    frame = frame[sorted(frame.columns)]
    return sorted((tuple(norm(v) for v in row) for row in frame.astype(object).itertuples(index=False)), key=repr)


def test_every_figure_is_checked(report):
    shown = {b.ours for _, blocks in report.blocks for b in blocks if b.ours.startswith("F")}
    assert shown <= set(FIGURE_CLAIMS), f"figures without a stated claim: {shown - set(FIGURE_CLAIMS)}"


def test_each_figure_draws_exactly_its_warehouse_rows(report, demo_warehouse):
    html = report.html.read_text(encoding="utf-8")
    figures = _embedded_figures(html)
    assert figures, "the demo report has no figure at all"
    for fig in figures:
        claims = FIGURE_CLAIMS[fig["ours"]]
        claims = claims if isinstance(claims, list) else [claims]
        datasets = list(fig["spec"].get("datasets", {}).values())
        assert len(datasets) == len(claims), fig["ours"]
        for rows, (table, where) in zip(datasets, claims):
            chart = pd.DataFrame(rows)
            cols = ", ".join(f'"{c}"' for c in chart.columns)
            expected = query_warehouse(
                demo_warehouse, f"SELECT {cols} FROM {table}" + (f" WHERE {where}" if where else "")
            )
            assert len(chart) == len(expected), f"{fig['ours']}: {len(chart)} rows drawn, {len(expected)} in {table}"
            assert _canonical(chart) == _canonical(expected), f"{fig['ours']}: drawn values differ from {table}"


def test_paper_tables_show_warehouse_numbers(report, demo_warehouse):
    """Spot checks of two layouts: a plain table (Table 4c) and a pivot (Table 3)."""
    blocks = {b.ours: b for _, bs in report.blocks for b in bs}
    t4c = blocks["T4c"]
    assert t4c.kind == "table" and not t4c.note, f"alpha_delta not in the expected layout: {t4c.note}"
    stored = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, alpha FROM alpha_delta WHERE dimension = 'valence' "
        "AND category = 'all' AND metric = 'interval'",
    )
    # a condition without valence answers (a FER model that outputs labels only) has no alpha
    assert sorted(t4c.frame["alpha"].dropna().round(12)) == sorted(stored["alpha"].dropna().round(12))
    assert t4c.frame["alpha"].isna().sum() == stored["alpha"].isna().sum()
    ordinal = query_warehouse(
        demo_warehouse,
        "SELECT alpha FROM alpha_delta WHERE dimension = 'valence' AND category = 'all' AND metric = 'ordinal'",
    )
    assert sorted(t4c.frame["alpha_ordinal"].dropna().round(12)) == sorted(ordinal["alpha"].dropna().round(12))
    t3 = blocks["T3"]
    recall = query_warehouse(
        demo_warehouse,
        "SELECT c.short_name, r.category, r.recall FROM classification_by_category r "
        "JOIN stg_model_conditions c USING (condition_id)",
    )
    for row in recall.itertuples():
        # the category column is headed by the study's name for it (slot_headers)
        shown = t3.frame.loc[t3.frame["emotion"] == row.category, row.short_name].item()
        assert shown == f"{row.recall:.3f}"


def test_data_quality_comes_first_and_simulated_is_flagged(report, demo_warehouse):
    html = report.html.read_text(encoding="utf-8")
    origin = query_warehouse(demo_warehouse, "SELECT data_origin FROM int_study_provenance")["data_origin"].item()
    assert origin == "SIMULATED"
    assert 'id="simulated-banner"' in html
    assert html.index('id="data-quality"') < html.index('id="section-1"')
    gate_file = demo_warehouse.raw / "_quality.json"
    if gate_file.exists():
        assert f"{json.loads(gate_file.read_text())['n_checks']} checks" in html
    else:
        assert "the quality gate has not been run" in html
    manifest = query_warehouse(demo_warehouse, "SELECT table_name, rows_landed FROM stg_landing_manifest")
    for row in manifest.itertuples():
        assert f"<td>{row.table_name}</td>" in html and f"<td>{row.rows_landed}</td>" in html


def _warehouse_copy(demo_warehouse, tmp_path):
    paths = project(tmp_path)
    paths.warehouse.parent.mkdir(parents=True)
    shutil.copy(demo_warehouse.warehouse, paths.warehouse)
    return paths


@pytest.fixture(scope="module")
def failed_gate_report(demo_warehouse, tmp_path_factory):
    """`rater1001 report --no-png` on a copy of the demo warehouse whose quality gate failed: its
    exit code, what it printed and its folder (one report for the CLI's and the gate's tests)."""
    from rater1001.cli import main

    paths = _warehouse_copy(demo_warehouse, tmp_path_factory.mktemp("failed_gate"))
    paths.raw.mkdir(parents=True)
    gate = {
        "passed": False,
        "allow_unbalanced": False,
        "n_checks": 17,
        "checked_at": "2026-01-01T00:00:00+00:00",
        "failures": ["human_ratings: 3 images have fewer than 50 ratings"],
        "warnings": ["raters: age missing"],
    }
    (paths.raw / "_quality.json").write_text(json.dumps(gate))
    paths.data_docs.mkdir(parents=True)
    (paths.data_docs / "index.html").write_text("<html></html>")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--home", str(paths.root), "report", "--no-png"])
    return code, out.getvalue(), paths


def test_quality_gate_verdict_and_links_are_shown(failed_gate_report):
    _, _, paths = failed_gate_report
    html = (paths.report / "index.html").read_text(encoding="utf-8")
    assert '<strong class="bad">failed</strong>' in html and "17 checks, 1 failures, 1 warnings" in html
    assert "failure: human_ratings: 3 images have fewer than 50 ratings" in html
    assert "warning: raters: age missing" in html
    assert 'href="data_quality/index.html"' in html
    assert "dbt docs: not generated" in html  # no target/static_index.html in this folder


def test_html_is_self_contained(report):
    html = report.html.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", html), "a script is loaded from elsewhere"
    assert not re.search(r"<link[^>]+href=\"https?:", html)
    assert "window.vegaEmbed" in html  # the bundle is inline


def test_every_figure_has_a_png(report):
    assert report.figures
    for block in report.figures:
        data = block.png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", block.png
        width, height = struct.unpack(">II", data[16:24])
        assert width > 100 and height > 100, (block.ours, width, height)


def test_absent_marts_give_notes_not_failures(demo_warehouse, tmp_path):
    paths = _warehouse_copy(demo_warehouse, tmp_path)
    con = duckdb.connect(str(paths.warehouse))
    for table in ("dimensional_agreement", "replaceability_verdicts", "report_loo_z_histogram"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    con.close()
    result = build_report(paths, write_pngs=False)
    notes = {b.ours: b.note for b in result.unavailable}
    assert notes["F2"] == "not available: table dimensional_agreement has not been built"
    assert notes["T8"] == "not available: table replaceability_verdicts has not been built"
    assert "report_loo_z_histogram has not been built" in notes["F4f"]
    html = result.html.read_text(encoding="utf-8")
    assert "not available: table dimensional_agreement has not been built" in html
    assert "the quality gate has not been run" in html  # no _quality.json in this folder


def test_cli_report_writes_the_file(failed_gate_report, tmp_path):
    from rater1001.cli import main

    code, out, paths = failed_gate_report
    assert code == 0 and "report written to" in out
    assert (paths.report / "index.html").stat().st_size > 500_000  # the inlined Vega bundle alone is ~900 kB
    assert not (paths.report / "figures").exists()
    assert main(["--home", str(tmp_path / "nothing"), "report"]) == 2


CHART_CHECK_JS = """JSON.stringify(Array.from(document.querySelectorAll('.block-figure .chart')).map(el => {
  const svg = el.querySelector('svg'); const r = svg ? svg.getBoundingClientRect() : null;
  return {id: el.id, svg: !!svg, marks: svg ? svg.querySelectorAll('path, circle, rect, line, text').length : 0,
          width: r ? r.width : 0, height: r ? r.height : 0};
}))"""


LAYOUT_JS = """JSON.stringify({
  answer: document.getElementById('answer').getBoundingClientRect().toJSON(),
  matrix: document.getElementById('answer-verdict-matrix').getBoundingClientRect().toJSON(),
  charts: Array.from(document.querySelectorAll('.block-figure .chart svg')).map(
    s => [s.parentNode.id, s.getBoundingClientRect().height]),
  breakInside: Array.from(document.querySelectorAll('.block-figure')).map(e => getComputedStyle(e).breakInside)})"""
# Click Table 4c's alpha header twice: the column's numbers in order, then reversed.
SORT_JS = """(() => { const t = document.querySelector('#block-T4c table.sortable');
  const th = Array.from(t.tHead.rows[0].cells).find(c => c.textContent === 'alpha');
  const col = () => Array.from(t.tBodies[0].rows).map(r => parseFloat(r.cells[th.cellIndex].textContent)).filter(x => !isNaN(x));
  th.click(); const up = col(); th.click(); return [up, col()]; })()"""


def test_report_renders_in_headless_chromium(report, tmp_path):
    """Charts render without errors; the first 1,000 px show the answer with its verdict matrix;
    printed to A4 PDF the answer fits page 1 and no figure is taller than a page or breaks inside."""
    from report_browser import A4_TEXT_PX, open_page, require_chromium

    require_chromium()
    run = open_page(
        report.html,
        tmp_path / "chromium-profile",
        "window.reportRendered",
        f"JSON.stringify({{charts: JSON.parse({CHART_CHECK_JS}), layout: JSON.parse({LAYOUT_JS}), sorted: {SORT_JS}}})",
        print_js=LAYOUT_JS,
    )
    assert run.errors == []
    screen, printed = run.value["layout"], run.print_value
    assert screen["answer"]["top"] < 300 and screen["matrix"]["bottom"] < 1000, screen
    up, down = run.value["sorted"]
    assert len(up) > 3 and up == sorted(up) and down == sorted(up, reverse=True)
    page_height = A4_TEXT_PX[1]
    assert printed["answer"]["bottom"] <= page_height, f"the printed answer ends at {printed['answer']['bottom']} px"
    assert printed["charts"] and all(h <= page_height for _, h in printed["charts"]), printed["charts"]
    assert printed["breakInside"] and set(printed["breakInside"]) <= {"avoid", "avoid-page"}
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", run.pdf))
    assert run.pdf[:5] == b"%PDF-" and 5 < pages < 200, pages
    charts = run.value["charts"]
    assert len(charts) == len(report.figures) > 0
    for chart in charts:
        assert chart["svg"] and chart["marks"] > 10 and chart["width"] > 50 and chart["height"] > 50, chart
    assert run.screenshot_png[:8] == b"\x89PNG\r\n\x1a\n" and len(run.screenshot_png) > 20_000


def test_judge_figures_draw_their_rows():
    """The demo study may carry no judge verdicts, so the judge charts are also drawn from a few
    hand-made rows in the marts' layout and rendered to SVG: one point and one interval per row."""
    import vl_convert
    from rater1001.report.build import figure_spec
    from rater1001.report.figures import FIGURES
    from rater1001.report.render import vl_version
    from rater1001.report.specs import ReportContext

    figures = {f.ours: f for f in FIGURES}
    rows = [
        dict(
            judge_id="j1",
            candidate_id=c,
            variant=v,
            axis=a,
            wins=5,
            ties=1,
            losses=4,
            win_rate=w,
            win_rate_ci_low=w - 0.2,
            win_rate_ci_high=w + 0.2,
        )
        for c, w in (("K", 0.55), ("Q", 0.3))
        for v in ("text", "audio")
        for a in ("overall", "empathy")
    ]
    bt = [
        dict(
            judge_id="j1",
            design="anchor",
            variant=v,
            axis="overall",
            candidate_id=c,
            log_strength=s,
            ci_low=s - 0.3,
            ci_high=s + 0.3,
        )
        for c, s in (("K", 0.2), ("Q", -0.4), ("P", 0.0))
        for v in ("text", "audio")
    ]
    for ours, frame in (("FJ1", pd.DataFrame(rows)), ("FJ2", pd.DataFrame(bt))):
        fig = figures[ours]
        assert list(frame.columns) == list(fig.sources[0].columns)
        spec = figure_spec(fig, [frame], ReportContext())
        assert spec["datasets"]["source_0"] == frame.to_dict("records")
        svg = vl_convert.vegalite_to_svg(spec, vl_version=vl_version())
        assert svg.count('aria-roledescription="point"') == len(frame), ours


def test_the_papers_analyses_without_a_table_are_shown_with_the_paper_beside(report, demo_warehouse):
    """Tables 1, S4, S6, sections 3.2, 2.5, 5.3 and the classification truth are tables on the demo;
    the paper's numbers sit beside ours and the truth in force is named."""
    blocks = {b.ours: b for _, bs in report.blocks for b in bs}
    for ours in ("T1", "TS4", "TS6p", "T3.2", "T2.5", "T5.3", "T3t"):
        assert blocks[ours].kind == "table" and not blocks[ours].note, (ours, blocks[ours].note)
    baseline = blocks["T3.2"].frame.set_index("dimension")
    assert baseline.loc["valence", "paper_alpha_ordinal"] == 0.498
    assert {"alpha_ordinal", "alpha_interval"} <= set(baseline.columns)
    assert blocks["T3t"].frame["truth"].tolist() == ["intended"]
    assert len(blocks["T1"].frame) == len(query_warehouse(demo_warehouse, "SELECT * FROM stg_model_conditions"))
    assert blocks["F1"].kind == "figure"


# --- The answer first -------------------------------------------------------------------------


class _Numbers(HTMLParser):
    """Every <a class="n"> inside the answer section: its address in the warehouse and its text."""

    def __init__(self):
        super().__init__()
        self.depth, self.numbers, self.current, self.ids = 0, [], None, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
        if tag == "section" and a.get("id") == "answer":
            self.depth = 1
        elif self.depth and tag == "section":
            self.depth += 1
        if self.depth and tag == "a" and a.get("class") == "n":
            self.current = dict(a, text="")

    def handle_endtag(self, tag):
        if tag == "section" and self.depth:
            self.depth -= 1
        if tag == "a" and self.current is not None:
            self.numbers.append(self.current)
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current["text"] += data


@pytest.fixture(scope="module")
def answer_numbers(report):
    parser = _Numbers()
    parser.feed(report.html.read_text(encoding="utf-8"))
    return parser


def _stored(con, table, column, key):
    where = " AND ".join(f'"{k}" = ?' for k in key)
    return con.execute(f'SELECT "{column}" FROM {table} WHERE {where}', list(key.values())).fetchall()


def test_the_answer_comes_first_with_the_verdict_matrix(report):
    html = report.html.read_text(encoding="utf-8")
    banner, answer = html.index('id="simulated-banner"'), html.index('<section id="answer">')
    assert banner < answer < html.index('id="answer-verdict-matrix"') < html.index('id="quality-status"')
    assert answer < html.index("<nav>") < html.index('id="data-quality"') < html.index('id="section-1"')
    between = re.sub(r'<p class="banner stale-banner">.*?</p>', "", html[html.index("</p>", banner) : answer])
    between = re.sub(r"<[^>]+>|\s", "", between)
    assert between == "", f"something stands between the banner and the answer: {between[:200]}"


def test_every_number_of_the_answer_is_a_mart_cell_and_links_to_its_table(answer_numbers, demo_warehouse):
    numbers = answer_numbers.numbers
    assert len(numbers) > 100, len(numbers)
    # one connection for all the lookups: opening the paper-scale warehouse costs more than a lookup
    with duckdb.connect(str(demo_warehouse.warehouse), read_only=True) as con:
        stored_rows = [_stored(con, n["data-table"], n["data-column"], json.loads(n["data-key"])) for n in numbers]
    for n, rows in zip(numbers, stored_rows):
        assert len(rows) == 1, (n, rows)
        stored, shown = rows[0][0], json.loads(n["data-value"])
        if isinstance(stored, float):
            assert shown == pytest.approx(stored, rel=1e-12, abs=1e-15), n
            text = n["text"].strip()
            decimals = len(text.split(".")[1]) if "." in text and "e" not in text else None
            if decimals is not None:  # the text is the stored value rounded to the digits it shows
                assert abs(float(text) - stored) <= 0.5 * 10**-decimals + 1e-12, n
            else:
                assert float(text) == pytest.approx(stored, rel=0.06), n
        else:
            assert shown == stored, n
        target = n["href"].lstrip("#")
        assert target in answer_numbers.ids, f"{n['text']} links to {n['href']}, which is not in the page"
        assert n["data-table"] in answer_numbers.ids[target].get("data-tables", "").split(","), n


def test_the_answer_covers_what_the_marts_hold(answer_numbers, demo_warehouse):
    shown = {}
    for n in answer_numbers.numbers:
        shown.setdefault((n["data-table"], n["data-column"]), []).append(json.loads(n["data-key"]))
    cells = query_warehouse(demo_warehouse, "SELECT category, measure FROM replaceability_verdicts")
    assert sorted((k["category"], k["measure"]) for k in shown[("replaceability_verdicts", "verdict")]) == sorted(
        cells.itertuples(index=False, name=None)
    )
    # every headline number, except a dimension on which the condition gave no answer at all
    heads = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, dimension, statistic FROM headline_intervals h "
        "WHERE category = 'all' AND statistic IN ('delta_alpha', 'w1sd', 'kappa') "
        "AND condition_id <> 'human' AND (statistic = 'kappa' OR NOT EXISTS ("
        "SELECT 1 FROM zscore_summary z WHERE z.condition_id = h.condition_id "
        "AND z.dimension = h.dimension AND z.category = 'all' AND z.n_images = 0))",
    )
    assert sorted(
        (k["condition_id"], k["dimension"], k["statistic"]) for k in shown[("headline_intervals", "estimate")]
    ) == sorted(heads.itertuples(index=False, name=None))
    gaps = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, dimension, category, term FROM demographic_stratified_anova "
        "WHERE q_bh < 0.05 ORDER BY eta_sq DESC LIMIT 5",
    )
    keys = ("condition_id", "dimension", "category", "term")
    assert [tuple(k[c] for c in keys) for k in shown[("demographic_stratified_anova", "eta_sq")]] == list(
        gaps.itertuples(index=False, name=None)
    )
    calibratable = query_warehouse(
        demo_warehouse, "SELECT count(*) FROM replaceability_verdicts WHERE coalesce(calibration_candidates, '') <> ''"
    ).iloc[0, 0]
    assert len(shown[("replaceability_verdicts", "calibration_candidates")]) == calibratable > 0
    judges = query_warehouse(demo_warehouse, "SELECT DISTINCT judge_id FROM judge_win_rates WHERE judge_kind = 'llm'")
    assert {k["judge_id"] for k in shown.get(("judge_win_rates", "win_rate"), [])} == set(judges["judge_id"])


def test_a_condition_without_answers_on_a_dimension_shows_a_dash_and_says_why(report, demo_warehouse):
    # The demo's FER classifiers BEiT and POSTER++ give labels only: their headline rows exist (W1SD 0
    # under the missing-answer policy), but the answer must not show them as results.
    silent = query_warehouse(
        demo_warehouse,
        "SELECT z.dimension, coalesce(c.short_name, z.condition_id) AS name "
        "FROM zscore_summary z JOIN stg_model_conditions c USING (condition_id) "
        "WHERE z.category = 'all' AND z.n_images = 0 ORDER BY z.dimension, z.condition_id",
    )
    assert len(silent) > 0
    html = report.html.read_text(encoding="utf-8")
    answer = html[html.index('<section id="answer">') : html.index("</section>", html.index('<section id="answer">'))]
    for dim, part in silent.groupby("dimension"):
        note = f"No {dim} answers from {', '.join(part['name'])}: their Δα and W1SD {dim} are shown as —."
        assert note in answer


def test_the_answer_for_each_llm_judge(tmp_path):
    """The judge part from hand-made mart rows: each LLM judge's win rates with intervals, position
    and verbosity checks and kappa with the human majority, per axis; human judges are left out."""
    from rater1001.report.answer import read_answer
    from rater1001.report.reader import WarehouseReader

    paths = project(tmp_path)
    paths.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(paths.warehouse))
    con.execute("""CREATE TABLE judge_win_rates AS SELECT * FROM (VALUES
        ('j1', 'llm', 'K', 'all', 'all', 'overall', 0.61, 0.52, 0.70), ('j1', 'llm', 'Q', 'all', 'all', 'overall', 0.31, 0.22, 0.40),
        ('j1', 'llm', 'K', 'text', 'all', 'overall', 0.99, 0.9, 1.0), ('h1', 'human', 'K', 'all', 'all', 'overall', 0.5, 0.4, 0.6))
        t(judge_id, judge_kind, candidate_id, variant, category, axis, win_rate, win_rate_ci_low, win_rate_ci_high)""")
    con.execute("""CREATE TABLE judge_bias_checks AS SELECT * FROM (VALUES
        ('j1', 'position_bias', 'all', 'overall', 0.58, 0.55, 0.61), ('j1', 'verbosity', 'all', 'overall', 0.41, 0.1, 0.7),
        ('j1', 'inconsistency', 'all', 'overall', 0.2, 0.1, 0.3)) t(judge_id, check_name, variant, axis, estimate, ci_low, ci_high)""")
    con.execute("""CREATE TABLE judge_agreement AS SELECT * FROM (VALUES
        ('j1', 'human-majority', 'human-majority-llm', 'overall', 0.37), ('j1', 'h1', 'human-llm', 'overall', 0.1))
        t(judge_1, judge_2, comparison, axis, kappa)""")
    con.close()
    with WarehouseReader(paths) as reader:
        answer = read_answer(reader, [])
    assert [j.judge for j in answer.judges] == ["j1"]
    cells = {
        k: (e.estimate.value, e.lo.value if e.lo else None, e.hi.value if e.hi else None)
        for k, e in answer.judges[0].cells.items()
    }
    assert cells == {
        ("overall", "K"): (0.61, 0.52, 0.70),
        ("overall", "Q"): (0.31, 0.22, 0.40),
        ("overall", "position_bias"): (0.58, 0.55, 0.61),
        ("overall", "verbosity"): (0.41, 0.1, 0.7),
        ("overall", "kappa"): (0.37, None, None),
    }
    assert answer.judges[0].cells[("overall", "verbosity")].estimate.text == "+0.41"


def _visible_text(html: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    body = re.sub(r'title="[^"]*"', lambda m: " " + m.group(0)[7:-1] + " ", body)  # tooltips are read too
    return unescape(re.sub(r"<[^>]+>", " ", body))


def test_no_issue_numbers_or_internal_names_in_the_text(report):
    text = _visible_text(report.html.read_text(encoding="utf-8"))
    for pattern in (r"(?i)\bissue \d", r"(?i)\bissue\b", r"(?i)\bseed 0\d\d\b", r"\b00[01]_"):
        found = re.search(pattern, text)
        assert not found, text[max(0, found.start() - 120) : found.end() + 60]


def test_every_paper_labelled_block_shows_the_paper_or_says_why(report, demo_warehouse):
    html = report.html.read_text(encoding="utf-8")
    labelled = [b for _, bs in report.blocks for b in bs if b.paper]
    assert len(labelled) > 30
    for b in labelled:
        assert b.paper_frame is not None or b.paper_reason, f"{b.ours} ({b.paper}): no paper numbers and no reason"
    # Spot check against the transcription in tests/reference: Table 4c's human baseline and Table 2's
    # first model row appear beside ours.
    t4c = html[html.index('id="block-T4c"') : html.index('id="block-T4d"')]
    assert "The paper's Table 4c, as printed" in t4c and "<td>0.498</td>" in t4c and "<td>+0.006</td>" in t4c
    t2 = html[html.index('id="block-T2"') : html.index('id="block-T3"')]
    assert "<td>Gemini 2.5 Flash (NoThink)</td>" in t2 and "<td>0.878</td>" in t2
    # Where the cells are plain numbers per model, ours minus the paper's (Table 4c: Gemma3-27B's
    # printed delta alpha is +0.006, the human-only alpha 0.498).
    diff = next(b for _, bs in report.blocks for b in bs if b.ours == "T4c").paper_diff.set_index("condition")
    stored = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, alpha, delta_alpha FROM alpha_delta WHERE "
        "dimension = 'valence' AND category = 'all' AND metric = 'interval' "
        "AND condition_id IN ('gemma3-27b-it', 'human')",
    ).set_index("condition_id")
    assert diff.loc["Gemma3-27B", "delta_alpha ours - paper"] == pytest.approx(
        stored.loc["gemma3-27b-it", "delta_alpha"] - 0.006
    )
    assert diff.loc["human", "alpha ours - paper"] == pytest.approx(stored.loc["human", "alpha"] - 0.498)
    assert len(diff) == 9 and "Ours beside the paper's, and the difference" in t4c


def test_the_packaged_paper_tables_are_the_reference_transcription():
    from rater1001.report.paper import PAPER_TABLES, PAPER_TABLES_DIR

    reference = Path(__file__).resolve().parents[1] / "reference" / "paper_tables"
    for tsv in reference.glob("*.tsv"):
        assert (PAPER_TABLES_DIR / tsv.name).read_bytes() == tsv.read_bytes(), tsv.name
    for stem in PAPER_TABLES.values():
        assert (PAPER_TABLES_DIR / f"{stem}.tsv").exists(), stem


def test_long_tables_fold_and_every_table_has_its_csv(report):
    html = report.html.read_text(encoding="utf-8")
    tables = [b for _, bs in report.blocks for b in bs if b.kind == "table"]
    assert any(len(b.frame) > 20 for b in tables) and any(len(b.frame) <= 20 for b in tables)
    for b in tables:
        start = html.index(f'id="block-{b.ours}"')
        block = html[start : html.index("</section>", start)]
        assert ('<details class="fold">' in block) == (len(b.frame) > 20), b.ours
        href = re.search(r'<a class="csv" download="[^"]+" href="data:text/csv;charset=utf-8,([^"]*)"', block).group(1)
        csv = pd.read_csv(io.StringIO(unquote(href)), dtype=str, keep_default_na=False)
        assert list(csv.columns) == [str(c) for c in b.frame.columns] and len(csv) == len(b.frame), b.ours
    assert "table.data sortable" not in html and 'class="data sortable"' in html


def test_a_study_not_of_the_papers_design_has_no_paper_labels(demo_warehouse, tmp_path):
    paths = _warehouse_copy(demo_warehouse, tmp_path)
    study = yaml.safe_load(paths.study_file.read_text(encoding="utf-8"))
    study["scale"] = {"min": 1, "max": 7}  # another scale: the paper's numbers are not comparable
    (paths.root / "study.yml").write_text(yaml.safe_dump(study), encoding="utf-8")
    result = build_report(paths, write_pngs=False)
    html = result.html.read_text(encoding="utf-8")
    assert "paper:" not in html and "as printed" not in html and "beyond the paper" not in html
    assert ">paper_accuracy<" not in html and "paper_" not in "".join(
        str(c) for _, bs in result.blocks for b in bs if b.frame is not None for c in b.frame.columns
    )
    titles = [t for t, _ in result.blocks]
    assert "How often does each model give the intended category?" in titles
    assert not any("paper" in t.lower() for t in titles), titles
    assert all(b.paper is None for _, bs in result.blocks for b in bs)


def test_sections_follow_the_declared_model_dimensions():
    from rater1001.report.layout import sections_for
    from rater1001.report.specs import Note

    one = {s.key: s for s in sections_for(("valence",))}
    assert isinstance(one["space"].items[0], Note) and "needs two model dimensions" in one["space"].items[0].note
    other = sections_for(("pleasantness", "dominance"))
    space = next(s for s in other if s.key == "space")
    assert all(
        "x_dimension = 'pleasantness' AND y_dimension = 'dominance'" in src.where
        for f in space.items
        for src in f.sources
    )
    extra = [s for s in other if s.key.startswith("dimension-")]
    assert [s.key for s in extra] == ["dimension-pleasantness", "dimension-dominance"]
    assert all(item.paper is None for s in extra for item in s.items)
    assert {s.key for s in sections_for(("valence", "arousal"))} == {
        s.key for s in sections_for(("valence", "arousal", "x"))
    } - {"dimension-x"}


def test_figures_draw_any_model_dimensions():
    """The rating space, the bias heatmap, the z distribution and the interaction heatmap drawn for
    dimensions other than valence and arousal from a few hand-made rows: one mark per row."""
    import vl_convert
    from rater1001.report.build import figure_spec
    from rater1001.report.figures import FIGURES, dimension_figures, space_figures
    from rater1001.report.render import vl_version
    from rater1001.report.specs import ReportContext

    ctx = ReportContext(categories=["a", "b"], conditions=["m1", "m2"])

    def space_bins(condition, k):  # report_space_bins rows: one bin per (condition, category)
        return [
            dict(
                condition_id=condition,
                category=e,
                x_bin=1.0 + i,
                y_bin=2.0 + k,
                n=3,
                centroid_x=1.0 + i,
                centroid_y=2.0 + k,
                n_points=3,
            )
            for i, e in enumerate("ab")
        ]

    human = pd.DataFrame(space_bins("human", 0))
    model = pd.DataFrame([row for k, c in enumerate(("m1", "m2")) for row in space_bins(c, k)])
    bias = pd.DataFrame(
        [dict(condition_id=c, category=e, bias=0.1 * k, sd_d=1.0) for k, c in enumerate(("m1", "m2")) for e in "ab"]
    )
    density = pd.DataFrame(
        [
            dict(dimension="dominance", category=e, bin_lower=x, bin_upper=x + 0.5, density=0.2)
            for e in "ab"
            for x in (-1.0, -0.5, 0.0, 0.5)
        ]
    )
    zs = pd.DataFrame(  # report_model_z_histogram rows: one bin per (condition, category)
        [
            dict(condition_id=c, category=e, bin_lower=0.25, bin_upper=0.5, n=1, share=1.0)
            for c in ("m1", "m2")
            for e in "ab"
        ]
    )
    anova = pd.DataFrame(
        [
            dict(condition_id="m1", dimension=d, category="a", eta_sq=0.2, q_bh=0.01)
            for d in ("pleasantness", "dominance", "third")
        ]
    )
    human_fig, model_fig = space_figures("pleasantness", "dominance")
    bias_fig, z_fig = dimension_figures("dominance", None, None, None, None)
    interaction = next(f for f in FIGURES if f.ours == "F7d")
    for fig, frames, marks, role in (
        (human_fig, [human], 2, "circle"),
        (model_fig, [model], 4, "circle"),
        (bias_fig, [bias], 4, "rect"),
        (z_fig, [density, zs], 4, "rect"),  # a bin per row (the |z| <= 1 band is not an item)
        (interaction, [anova], 3, "rect"),
    ):
        spec = figure_spec(fig, frames, ctx)
        svg = vl_convert.vegalite_to_svg(spec, vl_version=vl_version())
        drawn = len(re.findall(f'aria-roledescription="{role}( mark)?"', svg))
        assert drawn == marks, (fig.ours, role, drawn)
    assert "pleasantness" in vl_convert.vegalite_to_svg(figure_spec(human_fig, [human], ctx), vl_version=vl_version())
