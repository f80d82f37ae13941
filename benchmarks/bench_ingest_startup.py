"""How long one `rater1001 ingest human_ratings` of a 1,000-row CSV takes as a command, against a bare
interpreter start (`python -c pass`) and against importing pandas + pyarrow alone (the floor of any
command that reads a table with them), each measured in the same run on the same machine.

    .venv/bin/python benchmarks/bench_ingest_startup.py [--rows 1008] [--repeat 5]

Reports the best of --repeat runs, as wall time and as CPU time of the child process (user + sys;
steadier than wall time on a shared machine). The target: the ingest spends well under a second
beyond the bare interpreter start. Byte-compiled packages matter here: `make venv` installs with
--compile-bytecode; without .pyc files every command recompiles pandas from source.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_ingest import IMAGES_PER_RATER, write_study


def timed(cmd: list[str], repeat: int, cwd: Path) -> tuple[float, float]:
    """Best (wall seconds, CPU seconds) over `repeat` runs of cmd."""
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1008, help="ratings in the CSV (a multiple of 72)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    cli = [python, "-m", "rater1001.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ratings = write_study(folder, args.rows - args.rows % IMAGES_PER_RATER)
        for table, name in (("stimuli", "stimuli.csv"), ("raters", "raters.csv")):
            subprocess.run(
                [*cli, "--home", tmp, "ingest", table, name], cwd=folder, check=True, stdout=subprocess.DEVNULL
            )
        n_rows = sum(1 for _ in open(ratings, encoding="utf-8")) - 1
        rows = [
            ("bare interpreter (python -c pass)", [python, "-c", "pass"]),
            ("import pandas, pyarrow.parquet", [python, "-c", "import pandas, pyarrow.parquet"]),
            (
                f"rater1001 ingest human_ratings ({n_rows:,} rows)",
                [*cli, "--home", tmp, "ingest", "human_ratings", ratings.name],
            ),
        ]
        results = {label: timed(cmd, args.repeat, folder) for label, cmd in rows}
    bare_wall, bare_cpu = results[rows[0][0]]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; best of {args.repeat}")
    print(f"{'command':<48} {'wall s':>7} {'cpu s':>6} {'wall - bare':>12} {'x bare (wall)':>14}")
    for label, (wall, cpu) in results.items():
        print(f"{label:<48} {wall:>7.2f} {cpu:>6.2f} {wall - bare_wall:>12.2f} {wall / bare_wall:>14.0f}")
    ingest_wall, ingest_cpu = results[rows[2][0]]
    print(f"ingest beyond interpreter start: {ingest_wall - bare_wall:.2f} s wall, {ingest_cpu - bare_cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
