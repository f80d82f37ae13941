"""CPU seconds of dbt Python models' functions on a built warehouse's own inputs, without dbt.

A node's execution_time in a build is wall time shared with the other thread's node and the
machine's load; this calls a model's `model(dbt, session)` directly, each ref a relation of the
given warehouse (read-only), and prints the process's CPU seconds (user + system) of the first
call (its imports beyond numpy, pandas, scipy and duckdb, and its caches, included) and the least
of --runs further calls. --checkout runs another source tree's models and package (its `python/`
first on the path), so a before/after is two commands on the same warehouse.

    .venv/bin/python benchmarks/bench_python_mart.py WAREHOUSE.duckdb demographic_tukey [...] \
        [--runs 2] [--profile 25] [--checkout DIR]

Results: docs/marts_demographics.md ("Speed").
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import pstats
import resource
import sys
import time
from pathlib import Path


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("warehouse", type=Path)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--profile", type=int, default=0, help="print this many cProfile rows (CPU clock)")
    ap.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.checkout / "python"))
    import duckdb
    import numpy  # noqa: F401  (loaded by the dbt process before any model)
    import pandas  # noqa: F401
    import scipy.stats  # noqa: F401

    con = duckdb.connect(str(args.warehouse), read_only=True)
    con.execute("set threads = 1")

    class Config:
        def get(self, key, default=None):
            return default

    class Dbt:
        config = Config()

        def ref(self, name):
            return con.table(name)

    for name in args.models:
        path = next((args.checkout / "models").rglob(f"{name}.py"))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        t0 = cpu()
        rows = len(module.model(Dbt(), con))
        first = cpu() - t0
        again = []
        for _ in range(args.runs):
            t0 = cpu()
            module.model(Dbt(), con)
            again.append(cpu() - t0)
        warm = f"{min(again):.3f}" if again else "-"
        print(f"{name:36s} rows {rows:6d}  first call {first:7.3f}  later {warm:>7s} CPU s")
        if args.profile:
            profile = cProfile.Profile(time.process_time)
            profile.runcall(module.model, Dbt(), con)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
