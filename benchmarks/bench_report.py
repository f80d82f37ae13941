"""How long `rater1001 report` takes on the demo study, against a baseline measured in the same
run: one plain query that reads every stored human rating of the warehouse
(SELECT * FROM int_human_ratings_long, 216,000 rows, fetched into pandas). Prints the report time
with and without the PNG copies of the figures, each as a ratio to the baseline, and the size of
index.html and of the long tables beside it (report/data).

    .venv/bin/python benchmarks/bench_report.py [--home FOLDER]

Without --home a fresh demo study is simulated and built into a temporary folder first (about a
minute); with --home an already built project folder is used.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import duckdb
from rater1001.paths import project
from rater1001.report import build_report


def baseline_seconds(paths, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        con = duckdb.connect(str(paths.warehouse), read_only=True)
        con.execute("SELECT * FROM int_human_ratings_long").df()
        con.close()
        best = min(best, time.perf_counter() - t0)
    return best


def run(paths) -> None:
    base = baseline_seconds(paths)
    build_report(paths, write_pngs=False)  # warm-up: imports and the JavaScript runtime start once
    t0 = time.perf_counter()
    html_only = build_report(paths, write_pngs=False)
    t_html = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = build_report(paths, write_pngs=True)
    t_full = time.perf_counter() - t0
    print(f"baseline (one full read of int_human_ratings_long): {base:.3f} s")
    print(
        f"report, HTML only : {t_html:6.2f} s  ratio {t_html / base:7.1f}x  "
        f"({len(html_only.figures)} figures, {len(html_only.unavailable)} sections not available)"
    )
    print(f"report, HTML + PNG: {t_full:6.2f} s  ratio {t_full / base:7.1f}x  ({len(full.figures)} PNGs)")
    data = sorted((full.html.parent / "data").glob("*"))
    print(
        f"index.html {full.html.stat().st_size / 1e6:.1f} MB; report/data: {len(data)} files, "
        f"{sum(f.stat().st_size for f in data) / 1e6:.1f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", default=None, help="a project folder with a built warehouse")
    args = ap.parse_args()
    if args.home:
        run(project(args.home))
        return
    from rater1001.simulate import simulate_study
    from rater1001.warehouse import dbt_build

    with tempfile.TemporaryDirectory() as tmp:
        paths = project(tmp)
        simulate_study(paths)
        if not dbt_build(paths):
            raise SystemExit("dbt build of the demo study failed")
        run(paths)


if __name__ == "__main__":
    main()
