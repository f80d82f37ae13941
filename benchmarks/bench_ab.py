"""Two checkouts' `rater1001 run` on the same simulated study, alternated in one session: on a
shared machine the load moves more between minutes than a change moves a run, so a before/after
is only meaningful measured side by side. Each round runs every checkout once (in turn, the order
swapped each round) from a fresh copy of the landing (bench_pipeline.py's cached simulation and
child process); it prints each run's wall and CPU seconds (process tree) and the wall seconds of its
phases (gate, dbt build, dbt docs, report), then the medians and their ratio to the first
checkout's.

    .venv/bin/python benchmarks/bench_ab.py --checkout /path/to/before --checkout . [--scale 1] [--rounds 3]

A checkout is a source tree of the repository (e.g. `git archive <commit> | tar -x -C DIR`); it runs
on this environment's packages with its own `python/` first on the path. --keep DIR keeps each
checkout's last warehouse (DIR/<n>/warehouse/rater1001.duckdb) for comparing the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_pipeline import _CHILD, SEED, fresh_copy, measured_run_full, simulated_landing


def one_run(checkout: Path, landing: Path, keep: Path | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
        work = fresh_copy(landing, Path(tmp) / "project")
        out = Path(tmp) / "phases.json"
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(checkout / "python")}
        wall, _, _, rc, cpu = measured_run_full([sys.executable, "-c", _CHILD, str(work), str(out)], env)
        phases = json.loads(out.read_text())["phases"] if out.exists() else {}
        if rc != 0:
            raise SystemExit(f"rater1001 run in {checkout} exited {rc}")
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(work / "warehouse", keep / "warehouse")
        return {
            "wall": wall,
            "cpu": cpu,
            "gate": phases.get("gate", float("nan")),
            "build": phases.get("dbt build", float("nan")),
            "docs": phases.get("dbt docs", float("nan")),
            "report": phases.get("report", float("nan")),
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--checkout", type=Path, action="append", required=True, help="twice or more; the first is the base"
    )
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", action="store_true", help="one uncounted run per checkout first (its parse state)")
    ap.add_argument("--keep", type=Path, default=None)
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rater1001-bench",
    )
    args = ap.parse_args()
    checkouts = [c.resolve() for c in args.checkout]
    landing, _ = simulated_landing(args.cache, args.scale, SEED)
    if args.warmup:
        for c in checkouts:
            one_run(c, landing, None)
    runs: dict[int, list[dict]] = {i: [] for i in range(len(checkouts))}
    for r in range(args.rounds):
        order = list(range(len(checkouts)))
        if r % 2:
            order.reverse()
        for i in order:
            keep = args.keep / str(i) if args.keep else None
            runs[i].append(one_run(checkouts[i], landing, keep))
            m = runs[i][-1]
            print(f"round {r + 1} {checkouts[i]}: " + ", ".join(f"{k} {v:.1f} s" for k, v in m.items()), flush=True)
    keys = ("wall", "cpu", "gate", "build", "docs", "report")
    base = {k: statistics.median(m[k] for m in runs[0]) for k in keys}
    for i, c in enumerate(checkouts):
        med = {k: statistics.median(m[k] for m in runs[i]) for k in keys}
        ratios = ", ".join(f"{k} {med[k]:.1f} s ({med[k] / base[k]:.3f})" for k in med)
        print(f"median of {len(runs[i])} {c}: {ratios}")


if __name__ == "__main__":
    main()
