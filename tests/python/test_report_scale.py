"""The report at scale: a PNG worker that dies ends `report` and `run` within seconds with one line
naming the figure and the cause, and the last complete report stays published; and the report's
size is bounded by the study's design, not by how many stimuli it has."""

from __future__ import annotations

import json
import shutil
import time

import numpy as np
import pandas as pd
import pytest
from conftest import build_only, query_warehouse
from fakes import png_faults
from rater1001 import cli
from rater1001.paths import project
from rater1001.report import build_report, png_worker

TRACEBACK = "Traceback (most recent call last)"


def _copy(src, dest):
    shutil.copytree(src.root, dest, ignore=shutil.ignore_patterns("figures", "logs"))
    return project(dest)


@pytest.fixture(scope="module")
def reported(small_warehouse, tmp_path_factory):
    """A copy of the small warehouse with its report published (`report --no-png`): the last
    complete report each fault below must leave in place. Tests work on copies of it."""
    paths = _copy(small_warehouse, tmp_path_factory.mktemp("reported") / "study")
    assert cli.main(["--home", str(paths.root), "report", "--no-png"]) == 0
    return paths


def _fail_pngs(monkeypatch, fault: str) -> None:
    monkeypatch.setattr(png_worker, "render_png", getattr(png_faults, fault))
    # where an older report module bound the name at import
    monkeypatch.setattr("rater1001.report.build.render_png", getattr(png_faults, fault), raising=False)


def _one_error_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert TRACEBACK not in out + err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("fault", "cause"),
    [("killed_on_victim", "killed by SIGKILL"), ("out_of_memory_on_victim", "out of memory (MemoryError")],
)
def test_a_png_worker_that_dies_ends_the_report_naming_the_figure(
    reported, tmp_path, monkeypatch, capsys, fault, cause
):
    paths = _copy(reported, tmp_path / "study")
    published = (paths.report / "index.html").read_bytes()
    capsys.readouterr()
    _fail_pngs(monkeypatch, fault)
    started = time.monotonic()
    rc = cli.main(["--home", str(paths.root), "report"])
    seconds = time.monotonic() - started
    line = _one_error_line(capsys)
    assert rc != 0
    assert "F4b" in line and png_faults.VICTIM in line and cause in line, line
    assert seconds < 120, f"{seconds:.0f} s: a dead worker was waited for"
    assert (paths.report / "index.html").read_bytes() == published  # the last complete report stays
    assert not paths.staging.exists()


def test_a_run_whose_png_worker_is_killed_exits_non_zero_and_keeps_the_last_report(
    reported, tmp_path, monkeypatch, capsys
):
    paths = _copy(reported, tmp_path / "study")
    published = (paths.report / "index.html").read_bytes()
    warehouse = paths.warehouse.read_bytes()
    capsys.readouterr()
    _fail_pngs(monkeypatch, "killed_on_victim")
    build_only(monkeypatch, "stg_stimuli")  # the run's build: conftest.build_only
    rc = cli.main(["--home", str(paths.root), "run", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc != 0
    assert TRACEBACK not in out + err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "F4b" in errors[0] and "killed by SIGKILL" in errors[0], err
    assert (paths.report / "index.html").read_bytes() == published
    assert paths.warehouse.read_bytes() == warehouse  # the run's build was not published either
    assert paths.failed_warehouse.read_bytes() != warehouse  # it was built, and kept aside


# --- the report marts against pandas / numpy, sharing no code with their SQL ----------------------

W = 0.25  # the default bin widths (vars report_space_bin_width, report_z_bin_width)


def _rounded(values, width=W):
    return np.floor(values / width + 0.5) * width  # nearest multiple, halves up (values here are >= 0)


def _same(ours, oracle, keys):
    ours = ours.sort_values(keys).reset_index(drop=True)
    oracle = oracle.sort_values(keys).reset_index(drop=True)[list(ours.columns)]
    pd.testing.assert_frame_equal(ours, oracle, check_dtype=False, check_exact=False, rtol=1e-9, atol=1e-12)


def test_space_bins_count_each_stimulus_once_in_its_bin(demo_warehouse):
    human = query_warehouse(
        demo_warehouse, "SELECT image_id, category, dimension, human_mean FROM int_image_human_stats"
    )
    wide = human.pivot(index=["image_id", "category"], columns="dimension", values="human_mean").reset_index()
    model = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, true_category AS category, model_valence, model_arousal FROM int_model_vs_human",
    )
    points = pd.concat(
        [
            wide.assign(condition_id="human").rename(columns={"valence": "x", "arousal": "y"}),
            model.rename(columns={"model_valence": "x", "model_arousal": "y"}),
        ]
    ).dropna(subset=["x", "y"])
    points["x_bin"], points["y_bin"] = _rounded(points["x"]), _rounded(points["y"])
    keys = ["condition_id", "category", "x_bin", "y_bin"]
    oracle = points.groupby(keys).size().rename("n").reset_index()
    centroids = points.groupby(["condition_id", "category"])[["x", "y"]].mean().reset_index()
    oracle = oracle.merge(centroids.rename(columns={"x": "centroid_x", "y": "centroid_y"}))
    ours = query_warehouse(
        demo_warehouse,
        "SELECT condition_id, category, x_bin, y_bin, n, centroid_x, centroid_y FROM report_space_bins "
        "WHERE x_dimension = 'valence' AND y_dimension = 'arousal'",
    )
    _same(ours, oracle, keys)
    assert oracle["n"].sum() == len(points)


def test_model_z_histogram_is_numpys(demo_warehouse):
    z = query_warehouse(
        demo_warehouse, "SELECT condition_id, dimension, category, z FROM int_model_vs_human_long WHERE z IS NOT NULL"
    )
    z["bin_lower"] = np.floor(z["z"].round(9) / W) * W  # a z on a bin edge, whatever its last bits
    keys = ["condition_id", "dimension", "category", "bin_lower"]
    oracle = z.groupby(keys).size().rename("n").reset_index()
    oracle["share"] = oracle["n"] / oracle.groupby(keys[:3])["n"].transform("sum")
    ours = query_warehouse(demo_warehouse, f"SELECT {', '.join(keys)}, n, share FROM report_model_z_histogram")
    _same(ours, oracle, keys)


def test_sd_boxes_are_tukeys_boxes(demo_warehouse):
    sds = query_warehouse(
        demo_warehouse, "SELECT dimension, category, source, sd FROM response_diversity_images WHERE sd IS NOT NULL"
    )
    rows = []
    for (dimension, category, source), g in sds.groupby(["dimension", "category", "source"]):
        v = np.sort(g["sd"].to_numpy())
        q1, median, q3 = np.percentile(v, [25, 50, 75], method="linear")
        inside = v[(v >= q1 - 1.5 * (q3 - q1)) & (v <= q3 + 1.5 * (q3 - q1))]
        rows.append(
            dict(
                dimension=dimension,
                category=category,
                source=source,
                n=len(v),
                q1=q1,
                median=median,
                q3=q3,
                whisker_low=inside.min(),
                whisker_high=inside.max(),
                n_outside=len(v) - len(inside),
            )
        )
    ours = query_warehouse(demo_warehouse, "SELECT * EXCLUDE (data_origin) FROM report_sd_boxes")
    _same(ours, pd.DataFrame(rows), ["dimension", "category", "source"])


# --- the page's size ---------------------------------------------------------------------------------


def _figure_rows(html: str) -> dict[str, int]:
    line = next(x for x in html.splitlines() if x.strip().startswith("const reportFigures = "))
    figures = json.loads(line.strip()[len("const reportFigures = ") :].rstrip(";"))
    return {f["ours"]: sum(len(rows) for rows in f["spec"].get("datasets", {}).values()) for f in figures}


def _rows(result, html: str) -> dict[str, int]:
    """Rows the page carries per block: each figure's embedded datasets, each table's frame."""
    rows = _figure_rows(html)
    rows.update({b.ours: len(b.frame) for _, bs in result.blocks for b in bs if b.kind == "table"})
    return rows


def test_the_page_does_not_grow_with_the_stimuli(demo_warehouse, small_warehouse, tmp_path):
    """The demo (1,440 stimuli x 50 ratings) against the small study of the same conditions and
    factors (72 stimuli x 5 ratings): 20 times the stimuli. Asserted: the demo's page is under
    20 MB, and the blocks both pages show (figures and tables) carry at most 3 times the rows in the
    demo's: a block of one row per stimulus carries 20 times as many and fails this, while bins fill
    up with more stimuli until their grid is full (hence 3, not 1). A table shown as stored keeps
    300 rows in the page and is whole in report/data/ as Parquet and CSV (CSV up to a spreadsheet's
    1,048,575 rows)."""
    from rater1001.report.build import CSV_MAX_ROWS, FALLBACK_ROWS

    pages = {}
    for name, paths in (("small", small_warehouse), ("demo", demo_warehouse)):
        result = build_report(paths, write_pngs=False, out_dir=tmp_path / name)
        html = result.html.read_text(encoding="utf-8")
        pages[name] = (result, html, _rows(result, html))
    demo, demo_html, demo_rows = pages["demo"]
    small_rows = pages["small"][2]
    common = sorted(set(small_rows) & set(demo_rows))
    assert {"F4a", "F4b", "F4f", "F5f"} <= set(common)  # F6 needs more raters than the small study has
    ratio = sum(demo_rows[b] for b in common) / sum(small_rows[b] for b in common)
    size = len(demo_html.encode())
    print(f"demo page {size:,} bytes; rows demo/small {ratio:.2f} over {len(common)} blocks")
    assert size < 20_000_000
    assert ratio < 3, {b: (small_rows[b], demo_rows[b]) for b in common}
    blocks = [b for _, bs in demo.blocks for b in bs if b.kind == "table"]
    long = [b for b in blocks if b.downloads]
    assert long, "the demo has tables of one row per stimulus"
    for b in long:
        table = b.tables[0]
        n = query_warehouse(demo_warehouse, f"SELECT count(*) AS n FROM {table}")["n"].item()
        assert n > FALLBACK_ROWS
        parquet, csv = (tmp_path / "demo" / "data" / f"{table}.{ext}" for ext in ("parquet", "csv"))
        assert len(pd.read_parquet(parquet)) == n and f'href="data/{table}.parquet"' in demo_html
        if n <= CSV_MAX_ROWS:
            assert len(pd.read_csv(csv)) == n and f'href="data/{table}.csv"' in demo_html
        else:
            assert not csv.exists()
