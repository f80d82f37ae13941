"""Cost of the five resampling marts (bootstrap_psig, headline_intervals, small_pool_alpha,
response_diversity_k_human, response_diversity_images) at 1x, 10x, ... the demo study.

Reads the marts' inputs (int_model_vs_human_long, int_model_vs_human, int_image_human_stats,
int_image_value_counts, int_condition_pools, int_study_provenance) from a
built warehouse, repeats every image `scale` times under new image ids (so a 10x study has 10x the
images, each with its 50 humans, as the simulated scale studies do; the copies' |z| are moved by
1e-9 per copy so they do not tie with the original), and runs each mart's Python
body (the same calls as models/marts/...) in a child process of its own, printing wall and CPU
seconds (CPU is the steadier figure on a shared machine) and the child's peak RSS (the whole
child: inputs read included). The dbt start-up and the warehouse read are not included: this measures the
statistics, which is what grew super-linearly.

    nice -n 10 .venv/bin/python benchmarks/bench_resampling.py --scales 1 10 [--warehouse PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import duckdb
import pandas as pd

MARTS = (
    "bootstrap_psig",
    "headline_intervals",
    "small_pool_alpha",
    "response_diversity_k_human",
    "response_diversity_images",
)
TABLES = (
    "int_model_vs_human_long",
    "int_model_vs_human",
    "int_image_human_stats",
    "int_image_value_counts",
    "int_condition_pools",
    "int_study_provenance",
)


def scaled_inputs(source: str, scale: int, out: str) -> None:
    """Each input table with every image repeated `scale` times (ids suffixed ~i), as Parquet.
    `source`: a warehouse file, or a folder of <table>.parquet exports."""
    folder = os.path.isdir(source)
    con = duckdb.connect() if folder else duckdb.connect(source, read_only=True)
    for t in TABLES:
        rel = f"'{source}/{t}.parquet'" if folder else t
        columns = [c[0] for c in con.execute(f"describe select * from {rel}").fetchall()]
        # a copy's |z| moves by i * 1e-9 so that it does not tie with its original, as a new
        # image would not (exact copies would make the signed-rank ties unrealistically dense)
        shifted = {"z": "z + r.i * 1e-9", "loo_abs_z": "loo_abs_z + r.i * 1e-9"}
        replace = ", ".join(
            ["image_id || '~' || r.i as image_id"] + [f"{e} as {c}" for c, e in shifted.items() if c in columns]
        )
        sql = (
            f"select * replace ({replace}) from {rel}, range({scale}) r(i)"
            if "image_id" in columns and scale > 1
            else f"select * from {rel}"
        )
        con.execute(f"copy ({sql}) to '{out}/{t}.parquet' (format parquet)")


def run_mart(mart: str, folder: str, save: str = "") -> None:
    from rater1001.marts import diversity, intervals, small_pools, zscores

    def read(t):
        return pd.read_parquet(f"{folder}/{t}.parquet")

    provenance = read("int_study_provenance")
    inputs = {
        "bootstrap_psig": ("int_model_vs_human_long", "int_image_value_counts"),
        "response_diversity_k_human": ("int_model_vs_human_long", "int_condition_pools", "int_image_value_counts"),
        "response_diversity_images": ("int_model_vs_human_long", "int_condition_pools", "int_image_value_counts"),
        "small_pool_alpha": ("int_model_vs_human", "int_image_value_counts"),
        "headline_intervals": ("int_model_vs_human", "int_image_human_stats"),
    }[mart]
    frames = [read(t) for t in inputs]
    builder = getattr(
        {"bootstrap_psig": zscores, "small_pool_alpha": small_pools, "headline_intervals": intervals}.get(
            mart, diversity
        ),
        mart,
    )
    t0, c0 = time.perf_counter(), time.process_time()
    out = builder(*frames, provenance)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if save:
        out.to_parquet(f"{save}/{mart}.parquet")
    print(f"{seconds:.3f} {cpu:.3f} {len(out)} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--marts", nargs="+", default=list(MARTS), choices=MARTS)
    ap.add_argument(
        "--warehouse",
        default="warehouse/rater1001.duckdb",
        help="a built warehouse, or a folder of Parquet exports of its tables",
    )
    ap.add_argument("--save", default="", help="write each mart's table to SAVE/<mart>.parquet (last scale)")
    ap.add_argument("--one", nargs=3, metavar=("MART", "FOLDER", "SAVE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return run_mart(*args.one)
    print(f"{'mart':<28} {'scale':>5} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12} {'rows':>6}")
    for scale in args.scales:
        with tempfile.TemporaryDirectory() as folder:
            scaled_inputs(args.warehouse, scale, folder)
            for mart in args.marts:
                res = subprocess.run(
                    [sys.executable, __file__, "--one", mart, folder, args.save],
                    capture_output=True,
                    text=True,
                    env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")},
                )
                if res.returncode:
                    print(f"{mart:<28} {scale:>5} failed: {res.stderr.strip().splitlines()[-1:]}")
                    continue
                seconds, cpu, rows, peak_kb = res.stdout.split()
                print(
                    f"{mart:<28} {scale:>5} {float(seconds):>8.2f} {float(cpu):>8.2f} {int(peak_kb) / 1024:>12.0f} "
                    f"{rows:>6}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
