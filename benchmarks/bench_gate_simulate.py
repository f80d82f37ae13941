"""The quality gate and `simulate` at 1x, 10x, 100x the paper's 72,000 ratings, each in a child
process of its own: wall seconds and peak RSS of the process tree, each also as a multiple of the
same-run floor of benchmarks/bench_pipeline.py (one DuckDB aggregate over the ratings Parquet).

    .venv/bin/python benchmarks/bench_gate_simulate.py --what gate simulate --scales 1 10 \\
        [--landing 10=DIR ...] [--work DIR] [--src PYTHON_DIR]

The gate runs on a fresh copy of a simulated landing: `--landing SCALE=DIR` names a project folder
holding data/raw and study.yml (for example a cached landing of bench_pipeline.py); a scale without
one is simulated first (not measured). `simulate` writes the demo study (the demo's seed,
40 x SCALE identities per cell) into an empty folder. `--src` runs another checkout's code (its
`python/` folder first on the path), to measure before and after on the same inputs in the same
minutes. 10x and 100x runs need several GiB: run them under the shared heavy lock.

Method and results: docs/performance.md ("Quality gate and simulate").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import PAPER_IDENTITIES, SEED, floor, fresh_copy, measured_run  # noqa: E402

_GATE = (
    "import sys; from rater1001.paths import project; from rater1001.quality import run_quality_gate; "
    "r = run_quality_gate(project(sys.argv[1])); print(r.passed, r.n_checks, len(r.failures))"
)
_SIMULATE = (
    "import sys; from rater1001.paths import project; from rater1001.simulate import simulate_study; "
    "simulate_study(project(sys.argv[1]), seed=int(sys.argv[2]), n_identities=int(sys.argv[3]))"
)


def _env(src: Path | None) -> dict:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def simulate_into(folder: Path, scale: int, seed: int, src: Path | None) -> tuple[float, int]:
    folder.mkdir(parents=True, exist_ok=True)
    wall, tree, largest = measured_run(
        [sys.executable, "-c", _SIMULATE, str(folder), str(seed), str(PAPER_IDENTITIES * scale)], _env(src)
    )
    return wall, max(tree, largest)


def bench(what: str, scale: int, landing: Path | None, work: Path, seed: int, src: Path | None) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"gate{scale}x-", dir=work) as tmp:
        tmp = Path(tmp)
        if what == "simulate":
            wall, peak = simulate_into(tmp / "project", scale, seed, src)
            ratings = tmp / "project" / "data" / "raw" / "human_ratings.parquet"
        else:
            if landing is None:
                landing = tmp / "landing"
                simulate_into(landing, scale, seed, src)
            project = fresh_copy(landing, tmp / "project")
            ratings = project / "data" / "raw" / "human_ratings.parquet"
            wall, tree, largest = measured_run([sys.executable, "-c", _GATE, str(project)], _env(src))
            peak = max(tree, largest)
        fl = floor(ratings)
    return {"what": what, "scale": scale, "seconds": wall, "peak_rss_kib": peak, "floor": fl}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--what", nargs="+", choices=["gate", "simulate"], default=["gate", "simulate"])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument(
        "--landing",
        action="append",
        default=[],
        metavar="SCALE=DIR",
        help="project folder with the scale's landing (data/raw, study.yml) for the gate",
    )
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--work", type=Path, default=None, help="folder for the temporary copies")
    ap.add_argument("--src", type=Path, default=None, help="python/ folder of the code to measure")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    landings = {int(k): Path(v) for k, v in (s.split("=", 1) for s in args.landing)}
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
    results = []
    print(f"{'what':<9} {'scale':>5} {'seconds':>9} {'x floor':>8} {'peak GiB':>9} {'x floor':>8} {'floor s':>8}")
    for what in args.what:
        for scale in args.scales:
            r = bench(what, scale, landings.get(scale), args.work, args.seed, args.src)
            f = r["floor"]
            print(
                f"{what:<9} {scale:>4}x {r['seconds']:>9.1f} {r['seconds'] / f['seconds']:>8.0f} "
                f"{r['peak_rss_kib'] / 2**20:>9.2f} {r['peak_rss_kib'] / f['maxrss_kib']:>8.1f} "
                f"{f['seconds']:>8.3f}",
                flush=True,
            )
            results.append(r)
            if args.json:
                args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
