"""Each model alone on built projects: its own growth, free of the node that ran beside it.

A whole build runs two nodes at once on 2 cores under one DuckDB memory limit, so a node's
seconds there carry whatever ran beside it. Here each model runs alone on a project a build left
(`dbt run -s MODEL --threads 1`: it rebuilds the same table in place), in ONE child process per
project that parses once and hands dbt that manifest (`dbtRunner(manifest=...)`, as `rater1001
run` does), after importing the table builders and the libraries they import late. Per
invocation: dbt's execution_time of the node (wall), the process CPU (user + system, DuckDB's
threads included) around it, and the process's peak RSS during it (VmHWM, reset before).
"own CPU" is that CPU minus a trivial node's (int_study_provenance: dbt's own cost per run).

Repeats: every model runs `repeats` times (rounds over the models, so a change of the machine's
load spreads over all), except one whose first run took --alone-long CPU seconds or more (CPU: a
loaded machine stretches the wall seconds), which runs once: it costs the most. A model's figure is the median of its runs.
Noise is measured, not assumed: a model's spread is (max - min) / median of its runs, and a
single run gets the median spread of the repeated models of the same project.

Growth between two projects = (seconds ratio) / (ratings ratio), 1.0 linear. Its noise interval
divides the larger project's figure +- its whole spread by the smaller's -+ its whole spread (half
the spread was too narrow: a project against itself, 2 runs, came out above 1.0 for 2 of 6 models
in own CPU; the whole spread for none); a model "exceeds 1.0 beyond noise" when the interval's
low end does (docs/performance.md, "Each model alone").

    .venv/bin/python benchmarks/bench_pipeline.py --scales 1 10 100 --alone 0.5   # after the runs
    .venv/bin/python benchmarks/bench_pipeline.py --alone-only DIR10 DIR100 [--alone 0.5] [--json out.json]

--alone-only takes built projects (kept by `bench_pipeline.py --keep`, or any project folder) and
the models whose node seconds in the larger one's build (its target/run_results.json) reached
--alone. A kept project's views read the landing by the path it was built from: run_alone names
that path when it is gone (link it to the cached landing's data/raw). bench_one_model.py runs
named models on one project.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from run_results import model_seconds, node_seconds

BASELINE = "int_study_provenance"
# The machine's own growth, measured the same way: one pass over the ratings grouped by stimulus,
# the least any per-stimulus model does. Its hash table is keyed by stimulus, and so leaves the
# CPU's cache as the study grows; a model is judged against it as well as against 1.0.
FLOOR = "(floor)"
# A first run of this many CPU seconds or more is a model's only one. At 10 s a dozen 100x models
# ran once, and one run can be far off: `ablation_disagreement_split` 6.59 s once, 3.01 s as the
# median of three on the same project (docs/performance.md, "Each model alone").
LONG_S = 60.0

FLOOR_SQL = (
    "create or replace temp table floor as select image_id, dimension, count(*) as n, avg(rating) as mean, "
    "stddev_samp(rating) as sd from int_human_ratings_long group by image_id, dimension"
)

# The child: one parse, the builders imported, then every model's runs. sys.argv: project folder,
# JSON of the models (BASELINE first), repeats, long seconds, output file.
_CHILD = r"""
import json, resource, sys, time
from contextlib import suppress
from rater1001 import warehouse
from rater1001.marts._preload import import_builders
from rater1001.paths import project

paths, models = project(sys.argv[1]), json.loads(sys.argv[2])
repeats, long_s, out = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
manifest = warehouse.dbt_parse(paths)
if manifest is None:
    sys.exit(f"dbt could not parse the project: see {paths.root / 'logs' / 'dbt.log'}")
import_builders()

def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime

def hwm_kib():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))

def once(model):
    with suppress(OSError), open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak RSS starts again from the current RSS
    c0, t0 = cpu(), time.perf_counter()
    r = warehouse._invoke(paths, ["run", "-s", model, "--threads", "1"], manifest=manifest)
    wall, used = time.perf_counter() - t0, cpu() - c0
    nodes = [x for x in (r.result.results if r.result else []) if x.node.name == model]
    if not r.success or not nodes:
        sys.exit(f"dbt run -s {model} failed: see {paths.root / 'logs' / 'dbt.log'}")
    run = {"node": nodes[0].execution_time, "cpu": used, "wall": wall, "rss_kib": hwm_kib()}
    print(f"  {model:<44} node {run['node']:8.2f} s  CPU {used:8.2f} s", file=sys.stderr, flush=True)
    return run

once(models[0])  # dbt's first invocation in a process opens the adapter: not a model's cost
runs = {m: [] for m in models}
for round_ in range(repeats):
    for m, done in runs.items():
        if not done or done[0]["cpu"] < long_s:
            done.append(once(m))
with open(out, "w") as fh:
    json.dump(runs, fh)
"""


def _warehouse(project: Path):
    """The project's warehouse, read-only (a connection that closes at the end of a `with`)."""
    import duckdb

    return duckdb.connect(str(project / "warehouse" / "rater1001.duckdb"), read_only=True)


def missing_landing(project: Path) -> list[str]:
    """The Parquet paths the warehouse's views read that do not exist (a kept project's landing
    was the build's temporary folder)."""
    with _warehouse(project) as con:
        sqls = [s for (s,) in con.execute("select sql from duckdb_views() where not internal").fetchall()]
    paths = {part.split("'", 1)[0] for s in sqls for part in s.split("read_parquet('")[1:]}
    return sorted(p for p in paths if not Path(p).exists())


def build_node_seconds(project: Path) -> dict[str, float]:
    """Each model's node seconds in the build that left the project (target/run_results.json)."""
    record = project / "target" / "run_results.json"
    if json.loads(record.read_text()).get("args", {}).get("which") != "build":
        raise SystemExit(f"{record} is not a build's: name the models (--alone-models)")
    return model_seconds(node_seconds(record, with_kind=True))


def reached(node_seconds: dict[str, float], seconds: float) -> list[str]:
    """The models whose node seconds reached `seconds`, slowest first."""
    return sorted((m for m, s in node_seconds.items() if s >= seconds), key=lambda m: -node_seconds[m])


def run_alone(project: Path, models: list[str], repeats: int = 3, long_s: float = LONG_S) -> dict[str, list[dict]]:
    """Every model's runs alone on `project` (BASELINE's first): {model: [{node, cpu, wall, rss_kib}]}."""
    if gone := missing_landing(project):
        raise SystemExit(
            f"{project}: the warehouse's views read {gone[0]}, which does not exist: link its data/raw "
            "folder to the landing the project was built from (e.g. ~/.cache/rater1001-bench/scale<k>-.../data/raw)"
        )
    record = project / "target" / "run_results.json"
    build = record.read_bytes() if record.exists() else None  # each dbt run writes its own
    with tempfile.TemporaryDirectory(prefix="bench-alone-") as tmp:
        out = Path(tmp) / "runs.json"
        print(f"alone: {project} ({len(models)} models)", file=sys.stderr, flush=True)
        names = json.dumps([BASELINE, *(m for m in models if m != BASELINE)])
        cmd = [sys.executable, "-c", _CHILD, str(project), names, str(repeats), str(long_s), str(out)]
        try:
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
        finally:
            if build is not None:  # the build's record stays, for a later --alone-only
                record.write_bytes(build)
        if rc:
            raise SystemExit(f"the alone phase on {project} exited {rc} (its message above)")
        return json.loads(out.read_text()) | {FLOOR: floor_runs(project, repeats)}


def floor_runs(project: Path, repeats: int = 3) -> list[dict]:
    """FLOOR_SQL `repeats` times on the project's warehouse (after one run that reads its pages in):
    [{node: wall, cpu: process CPU, DuckDB's threads included}]."""
    import resource
    import time

    def cpu() -> float:
        u = resource.getrusage(resource.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime

    # DuckDB's default threads and memory, as the runs in dbt have (no RATER1001_DUCKDB_* set)
    with _warehouse(project) as con:
        con.execute("set enable_progress_bar = false")
        runs = []
        for _ in range(max(repeats, 1) + 1):
            c0, t0 = cpu(), time.perf_counter()
            con.execute(FLOOR_SQL)
            wall = time.perf_counter() - t0
            runs.append({"node": wall, "cpu": cpu() - c0, "wall": wall})
        return runs[1:]


MEASURES = ("node", "own_cpu")  # dbt's execution_time (wall); process CPU minus BASELINE's


def summarize(runs: dict[str, list[dict]]) -> dict[str, dict]:
    """Per model and measure: the median of its runs, and their relative spread (max - min) /
    median (None for one run, or a median of 0 or less); also the runs' count, the median CPU and
    the largest peak RSS (GiB). Own CPU is each run's CPU minus BASELINE's median CPU (FLOOR's is
    its CPU: it runs outside dbt)."""
    base = statistics.median(r["cpu"] for r in runs[BASELINE]) if runs.get(BASELINE) else 0.0
    out = {}
    for model, rs in runs.items():
        own = 0.0 if model == FLOOR else base
        values = {"node": [r["node"] for r in rs], "own_cpu": [r["cpu"] - own for r in rs]}
        row = {"n": len(rs), "cpu": statistics.median(r["cpu"] for r in rs)}
        row["rss_gib"] = max(r.get("rss_kib", 0) for r in rs) / 2**20
        for key, xs in values.items():
            mid = statistics.median(xs)
            row[key] = mid
            row[f"{key}_spread"] = (max(xs) - min(xs)) / mid if len(xs) > 1 and mid > 0 else None
        out[model] = row
    return out


def typical_spread(summary: dict[str, dict], key: str) -> float:
    """The median relative spread of a measure over the models run more than once (0.0 if none)."""
    spreads = [s[f"{key}_spread"] for m, s in summary.items() if m != BASELINE and s[f"{key}_spread"] is not None]
    return statistics.median(spreads) if spreads else 0.0


def growth(small: dict, large: dict, ratings_ratio: float, key: str, typical: tuple[float, float]) -> dict:
    """One model's growth in a measure between two projects' summaries, (large / small) / ratings
    ratio, and its noise interval: each figure +- its spread (a run without one takes the
    project's typical spread), the larger's low end at least 0. Growth and low end are NaN where
    the smaller figure is not positive, the high end infinite where its low end is not."""
    es = typical[0] if small[f"{key}_spread"] is None else small[f"{key}_spread"]
    el = typical[1] if large[f"{key}_spread"] is None else large[f"{key}_spread"]

    def g(a: float, b: float, empty: float = float("nan")) -> float:
        return (b / a) / ratings_ratio if a > 0 else empty

    a, b = small[key], large[key]
    return {
        "growth": g(a, b),
        "low": g(a * (1 + es), max(0.0, b * (1 - el))),
        "high": g(a * (1 - es), b * (1 + el), float("inf")),
    }


def growth_rows(small: dict[str, dict], large: dict[str, dict], ratings_ratio: float) -> list[dict]:
    """Every model of both summaries but BASELINE, slowest (node seconds) in the larger first:
    {model, small, large, node: growth(...), own_cpu: growth(...)}."""
    typical = {k: (typical_spread(small, k), typical_spread(large, k)) for k in MEASURES}
    models = sorted((m for m in large if m in small and m != BASELINE), key=lambda m: -large[m]["node"])
    return [
        {"model": m, "small": small[m], "large": large[m]}
        | {k: growth(small[m], large[m], ratings_ratio, k, typical[k]) for k in MEASURES}
        for m in models
    ]


def verdict(rows: list[dict]) -> dict[str, dict[str, list[str]]]:
    """Per measure, the models whose alone growth exceeds 1.0, those whose noise interval lies
    wholly above 1.0 (beyond noise), and, where FLOOR is a row, those whose interval lies wholly
    above the floor's (beyond the floor)."""
    floor = next((r for r in rows if r["model"] == FLOOR), None)
    models = [r for r in rows if r["model"] != FLOOR]
    out = {}
    for k in MEASURES:
        out[k] = {
            "above_1": [r["model"] for r in models if r[k]["growth"] > 1.0],
            "beyond_noise": [r["model"] for r in models if r[k]["low"] > 1.0],
        }
        if floor is not None:
            out[k]["beyond_floor"] = [r["model"] for r in models if r[k]["low"] > floor[k]["high"]]
    return out


def print_table(rows: list[dict], labels: tuple[str, str], typical: dict[str, tuple[float, float]]) -> None:
    a, b = labels
    print(
        f"\n== each model alone (dbt run -s MODEL --threads 1, median of its runs) at {a} and {b}; "
        "growth = seconds ratio / ratings ratio (1.0 linear), [noise interval]"
    )
    for k in MEASURES:
        print(
            f"   typical spread of {k} ((max - min) / median, repeated models): {a} {typical[k][0]:.1%}, {b} {typical[k][1]:.1%}"
        )
    w = max(9, len(a) + 6, len(b) + 6)  # a figure's column, wide enough for its heading
    print(
        f"   {'model':<36}{'runs':>6}{a + ' s':>{w}}{b + ' s':>{w}}{'growth':>8}{'[interval]':>15}"
        f"{a + ' CPU':>{w}}{b + ' CPU':>{w}}{'growth':>8}{'[interval]':>15}{b + ' GiB':>{w}}"
    )

    def cells(g: dict) -> str:
        interval = f"[{g['low']:.2f}, {g['high']:.2f}]".replace("nan", "-")
        return f"{g['growth']:>8.2f}{interval:>15}".replace("nan", "  -")

    for r in rows:
        s, lg = r["small"], r["large"]
        print(
            f"   {r['model']:<36}{str(s['n']) + ',' + str(lg['n']):>6}{s['node']:>{w}.2f}{lg['node']:>{w}.2f}"
            f"{cells(r['node'])}{s['own_cpu']:>{w}.2f}{lg['own_cpu']:>{w}.2f}{cells(r['own_cpu'])}{lg['rss_gib']:>{w}.2f}"
        )
    for k, v in verdict(rows).items():
        print(f"   alone growth of {k} above 1.0: {', '.join(v['above_1']) or 'none'}")
        print(f"     ... its noise interval wholly above 1.0: {', '.join(v['beyond_noise']) or 'none'}")
        if "beyond_floor" in v:
            print(f"     ... wholly above the floor's interval: {', '.join(v['beyond_floor']) or 'none'}")


def ratings(project: Path) -> int:
    """The ratings the project's build read (its warehouse's staged human ratings)."""
    with _warehouse(project) as con:
        return con.execute("select count(*) from stg_human_ratings").fetchone()[0]


def alone_phase(
    projects: tuple[Path, Path], models: list[str], labels: tuple[str, str], repeats: int, long_s: float
) -> dict:
    """Both projects' runs, their summaries, growth rows and verdict; prints the table."""
    runs = [run_alone(p, models, repeats, long_s) for p in projects]
    small, large = (summarize(r) for r in runs)
    ratio = ratings(projects[1]) / ratings(projects[0])
    rows = growth_rows(small, large, ratio)
    typical = {k: (typical_spread(small, k), typical_spread(large, k)) for k in MEASURES}
    print_table(rows, labels, typical)
    out = {"labels": labels, "ratings_ratio": ratio, "typical_spread": typical, "rows": rows}
    return out | {"verdict": verdict(rows), "runs": dict(zip(labels, runs))}
