"""The main job at scale: the full `rater1001 run` (quality gate, dbt build of every model and test,
dbt docs, report) on simulated studies of 1x, 10x, 100x the paper's 72,000 ratings.

Per scale it prints the wall time of the run and of its phases, the peak RSS of the whole process
tree (sampled from /proc every 0.2 s, and the kernel's own high-water mark of the largest process),
the slowest dbt nodes (execution_time from the build's run_results.json), and each figure's ratio
to a floor measured in the same run: one DuckDB aggregate over the ratings Parquet (per image: count,
mean, SD of each dimension), in a process of its own. The floor moves with the machine's load as
the pipeline does, so the ratios compare across machines and busy hours better than the seconds.

The simulated landing of each scale is cached on disk (--cache, keyed by scale, seed and a digest
of the simulator's code and profiles), so a second run of the benchmark skips the simulation.
Every run starts from a fresh copy of the landing: no warehouse, no target/, no report. The dbt
parse state the repository keeps (target/parse_cache) is used as `rater1001 run` would use it;
--cold-parse removes it first.

    .venv/bin/python benchmarks/bench_pipeline.py --scales 1 10 100 [--top 12] [--json out.json]

After the last scale it prints one table of every dbt model's seconds per scale and each model's
growth from one scale to the next (seconds ratio over ratings ratio: 1.0 is linear, above 1 is
worse). A scale that fails (an error, the kernel's OOM kill, --timeout) is reported as failed with
the tail of its dbt log and the benchmark goes on to the next scale, so it runs unattended.

--alone SECONDS then runs each model whose node seconds at the largest scale reached SECONDS by
itself on the two largest scales' projects (kept until the end) and prints its growth alone, the
verdict's measure (alone.py); --alone-only SMALL LARGE does only that, on built projects.

Method and results: docs/performance.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import alone
from run_results import dbt_start_seconds, model_seconds, node_seconds

REPO = Path(__file__).resolve().parents[1]
SEED = 20251129
PAPER_IDENTITIES = 40  # 1x: 1,440 images x 50 ratings = 72,000 ratings

# Runs inside the measured child process: the unchanged `rater1001 run` entry point, with its
# phases' start and end times recorded, and the build's run_results.json kept before `dbt docs`
# overwrites it (the CLI imports these functions late, so patching the modules is enough).
_CHILD = r"""
import json, shutil, sys, time
from pathlib import Path
import rater1001.quality, rater1001.report, rater1001.warehouse
from rater1001 import cli

home, out = Path(sys.argv[1]), Path(sys.argv[2])
phases = {}

def timed(module, name, phase, after=None):
    inner = getattr(module, name)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            phases[phase] = time.perf_counter() - t0
            if after:
                after()
    setattr(module, name, wrapper)

keep = lambda: shutil.copy(home / "target" / "run_results.json", out.with_name("run_results_build.json"))
# where the gate runs in a child process beside dbt's parse (cli._gate_and_parse), both together
if hasattr(cli, "_gate_and_parse"):
    timed(cli, "_gate_and_parse", "gate")
else:
    timed(rater1001.quality, "run_quality_gate", "gate")
timed(rater1001.warehouse, "dbt_build", "dbt build", keep)
timed(rater1001.warehouse, "dbt_docs", "dbt docs")
timed(rater1001.report, "build_report", "report")
t0 = time.perf_counter()
# what the `rater1001` command runs (cli.entry where the checkout has it)
sys.argv = ["rater1001", "--home", str(home), "run", "--no-progress"]
rc = cli.entry() if hasattr(cli, "entry") else cli.main(sys.argv[1:])
phases["in-process total"] = time.perf_counter() - t0
out.write_text(json.dumps({"rc": rc, "phases": phases}))
"""

_FLOOR = r"""
import json, resource, sys, time, duckdb
t0 = time.perf_counter()
con = duckdb.connect()
rows = con.execute(
    "select image_id, count(valence), avg(valence), stddev_samp(valence), count(arousal), avg(arousal), "
    "stddev_samp(arousal), count(naturalness), avg(naturalness), stddev_samp(naturalness) "
    "from read_parquet(?) group by image_id", [sys.argv[1]]
).fetchall()
print(json.dumps({"seconds": time.perf_counter() - t0, "groups": len(rows),
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def simulator_digest() -> str:
    """The cache key's code part: the simulator's sources, its profiles and the study defaults."""
    h = hashlib.sha256()
    roots = [
        REPO / "python" / "rater1001" / "simulate",
        REPO / "python" / "rater1001" / "data" / "demo_profiles",
        REPO / "python" / "rater1001" / "judge" / "simulate.py",
        REPO / "seeds",
        REPO / "study.yml",
    ]
    for root in roots:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        )
        for p in files:
            h.update(str(p.relative_to(REPO)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:12]


def simulated_landing(cache: Path, scale: int, seed: int) -> tuple[Path, float | None]:
    """The cached project folder holding the scale's landing; simulated when absent. Returns the
    folder and the simulation's seconds (None when it came from the cache)."""
    folder = cache / f"scale{scale}-seed{seed}-{simulator_digest()}"
    if (folder / ".complete").exists():
        return folder, None
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    t0 = time.perf_counter()
    code = (
        "import sys; from rater1001.paths import project; from rater1001.simulate import simulate_study; "
        "from rater1001.runs.judge.simulate import simulate_judge_study; p = project(sys.argv[1]); "
        "simulate_study(p, seed=int(sys.argv[2]), n_identities=int(sys.argv[3])); "
        "simulate_judge_study(p, seed=int(sys.argv[2]))"
    )
    subprocess.run([sys.executable, "-c", code, str(folder), str(seed), str(PAPER_IDENTITIES * scale)], check=True)
    seconds = time.perf_counter() - t0
    (folder / ".complete").write_text(f"{seconds:.1f}\n")
    return folder, seconds


def fresh_copy(landing: Path, work: Path) -> Path:
    """The landing (data/raw, study.yml, the project's own seeds when it has them) in an empty folder."""
    shutil.copytree(landing / "data" / "raw", work / "data" / "raw")
    for extra in ("study.yml", "seeds"):
        src = landing / extra
        if src.is_dir():
            shutil.copytree(src, work / extra)
        elif src.exists():
            shutil.copy(src, work / extra)
    return work


def _tree_rss_kib(root: int) -> int:
    """Resident memory of `root` and all its descendants now, from /proc (KiB)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{entry.name}/statm") as fh:
                pages = int(fh.read().split()[1])
        except OSError:
            continue
        pid = int(entry.name)
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def measured_run(cmd: list[str], env: dict) -> tuple[float, int, int]:
    """Runs cmd; returns wall seconds, peak sampled RSS of its process tree, and the kernel's
    high-water mark of its largest process (both KiB); exits when cmd fails (the other benchmark
    scripts' contract)."""
    wall, peak, largest, rc, _ = measured_run_full(cmd, env)
    if rc != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {rc}")
    return wall, peak, largest


def measured_run_full(cmd: list[str], env: dict, timeout: float | None = None) -> tuple[float, int, int, int, float]:
    """Runs cmd (killed with its process group after `timeout` seconds); returns wall seconds, peak
    sampled RSS of its process tree, the kernel's high-water mark of its largest process (both KiB),
    the exit code (negative: the signal that ended it) and the CPU seconds (user + system) of the
    process and the children it waited for: on a shared machine the wall time moves with the load,
    the CPU time much less."""
    peak = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, start_new_session=True)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.2):
            peak = max(peak, _tree_rss_kib(proc.pid))
            if timeout is not None and time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    return wall, peak, usage.ru_maxrss, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def floor(ratings: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _FLOOR, str(ratings)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout[out.stdout.rindex("{") :])  # after any DuckDB progress bar (100x)


def parse_kind(dbt_log: Path) -> str:
    """How the build's dbt parsed the project, from the first parse message in its log."""
    try:
        text = dbt_log.read_text(errors="replace")
    except OSError:
        return "unknown"
    if "Unable to do partial parsing" in text.split("Concurrency:", 1)[0]:
        return "full"
    return "reused"


def _log_tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no dbt log)"


@contextmanager
def _run_folder(prefix: str, hold: list[Path] | None):
    """A temporary folder, removed afterwards unless `hold` is a list: then appended to it."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        yield tmp
    finally:
        if hold is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            hold.append(Path(tmp))


def bench_scale(
    scale: int,
    cache: Path,
    seed: int,
    keep: Path | None,
    timeout: float | None = None,
    cold_parse: bool = False,
    hold: list[Path] | None = None,
) -> dict:
    """One scale's whole run. With `hold` (a list), the run's temporary folder is not removed but
    appended to it, and the result names its project (for the alone phase; the caller removes it)."""
    landing, sim_seconds = simulated_landing(cache, scale, seed)
    if cold_parse:  # the parse state the repository keeps (python/rater1001/warehouse.py, PARSE_CACHE)
        shutil.rmtree(REPO / "target" / "parse_cache", ignore_errors=True)
    with _run_folder(f"bench{scale}x-", hold) as tmp:
        work = fresh_copy(landing, Path(tmp) / "project")
        fl = floor(work / "data" / "raw" / "human_ratings.parquet")
        out = Path(tmp) / "phases.json"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        wall, peak_tree, peak_one, rc, cpu = measured_run_full(
            [sys.executable, "-c", _CHILD, str(work), str(out)], env, timeout
        )
        child = json.loads(out.read_text()) if out.exists() else {"rc": rc, "phases": {}}
        build_results = Path(tmp) / "run_results_build.json"
        nodes = node_seconds(build_results, with_kind=True) if build_results.exists() else []
        import duckdb  # the count the floor scanned, from the same file

        n_ratings = (
            duckdb.connect()
            .execute("select count(*) from read_parquet(?)", [str(work / "data" / "raw" / "human_ratings.parquet")])
            .fetchone()[0]
        )
        failed = None
        if rc != 0 or child["rc"] != 0:
            why = f"killed by signal {-rc}" if rc < 0 else f"exited {rc if rc else child['rc']}"
            failed = f"rater1001 run {why} after {wall:.0f} s; the end of its dbt log:\n{_log_tail(work / 'logs' / 'dbt.log')}"
        result = {
            "scale": scale,
            "ratings": n_ratings,
            "simulate_s": sim_seconds,
            "wall_s": wall,
            "cpu_s": cpu,
            "phases": child["phases"],
            "peak_rss_tree_kib": peak_tree,
            "peak_rss_largest_kib": peak_one,
            "floor": fl,
            "nodes": nodes,
            "failed": failed,
            "dbt_start_s": dbt_start_seconds(build_results) if build_results.exists() else None,
            "parse": parse_kind(work / "logs" / "dbt.log"),
            "index_html_bytes": page.stat().st_size if (page := work / "report" / "index.html").exists() else None,
        }
        if keep is not None:
            dest = keep / f"scale{scale}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(work, dest, ignore=shutil.ignore_patterns("data"))
        if hold is not None:
            result["project"] = str(work)
    return result


def report(r: dict, top: int) -> None:
    f = r["floor"]["seconds"]
    gib = lambda kib: kib / 2**20  # noqa: E731
    sim = "cached" if r["simulate_s"] is None else f"{r['simulate_s']:.1f} s"
    print(
        f"\n== {r['scale']}x: {r['ratings']:,} ratings (simulation: {sim}); floor {f:.3f} s, "
        f"{gib(r['floor']['maxrss_kib']):.2f} GiB"
    )
    peak = max(r["peak_rss_tree_kib"], r["peak_rss_largest_kib"])
    print(f"   {'figure':<44} {'seconds':>9} {'x floor':>9}")
    print(f"   {'wall (rater1001 run, process start to exit)':<44} {r['wall_s']:>9.1f} {r['wall_s'] / f:>9.0f}")
    print(f"   {'CPU, user + system (all its processes)':<44} {r['cpu_s']:>9.1f} {r['cpu_s'] / f:>9.0f}")
    for name, s in r["phases"].items():
        print(f"   {name:<44} {s:>9.1f} {s / f:>9.0f}")
    if r.get("dbt_start_s") is not None:
        print(
            f"   {'dbt start-up + parse (' + r['parse'] + ')':<44} {r['dbt_start_s']:>9.1f} {r['dbt_start_s'] / f:>9.0f}"
        )
    if r.get("index_html_bytes") is not None:
        print(f"   {'report/index.html':<44} {r['index_html_bytes'] / 1e6:>7.1f} MB")
    if r.get("failed"):
        print(f"   FAILED: {r['failed']}")
    nodes = r["nodes"]
    print(
        f"   {'sum of dbt node execution times':<44} {sum(s for _, s in nodes):>9.1f} "
        f"{sum(s for _, s in nodes) / f:>9.0f}   ({len(nodes)} nodes)"
    )
    kinds: dict[str, list[float]] = {}
    for name, s in nodes:
        kinds.setdefault(name.split(".", 1)[0], []).append(s)
    for kind, secs in sorted(kinds.items(), key=lambda kv: -sum(kv[1])):
        print(f"     {kind + ' nodes':<42} {sum(secs):>9.1f} {sum(secs) / f:>9.0f}   ({len(secs)})")
    print(
        f"   peak RSS: {gib(peak):.2f} GiB (tree sampled {gib(r['peak_rss_tree_kib']):.2f}, largest process "
        f"{gib(r['peak_rss_largest_kib']):.2f}), {peak / r['floor']['maxrss_kib']:.1f} x floor's"
    )
    print(f"   slowest {top} dbt nodes:")
    for name, s in nodes[:top]:
        print(f"     {name:<60} {s:>8.2f} {s / f:>9.0f}")


def growth_table(results: list[dict]) -> None:
    """Every dbt model's seconds per scale and its growth between consecutive scales, as the
    seconds ratio over the ratings ratio (1.0: linear), slowest at the largest scale first."""
    done = [r for r in results if r["nodes"]]
    if len(done) < 2:
        return
    per = [{n: s for n, s in r["nodes"] if n.startswith("model.")} for r in done]
    names = sorted(set().union(*per), key=lambda n: -max(p.get(n, 0.0) for p in per))
    pairs = list(zip(done, done[1:]))
    head = "".join(f"{str(r['scale']) + 'x s':>10}" for r in done)
    grow = "".join(f"{str(a['scale']) + 'x->' + str(b['scale']) + 'x':>12}" for a, b in pairs)
    print("\n== per model: seconds per scale; growth = seconds ratio / ratings ratio (1.0 linear)")
    print(f"   {'model':<44}{head}{grow}")
    rows = [("wall", [r["wall_s"] for r in done]), ("CPU", [r["cpu_s"] for r in done])]
    rows += [(name, [r["phases"].get(name) for r in done]) for name in done[-1]["phases"]]
    rows += [(n.split(".", 1)[1], [p.get(n) for p in per]) for n in names]
    for label, secs in rows:
        cells = "".join(f"{s:>10.2f}" if s is not None else f"{'-':>10}" for s in secs)
        growth = ""
        for (a, b), sa, sb in zip(pairs, secs, secs[1:]):
            ok = sa and sb is not None
            growth += f"{(sb / sa) / (b['ratings'] / a['ratings']):>12.2f}" if ok else f"{'-':>12}"
        print(f"   {label:<44}{cells}{growth}")
    peaks = "".join(f"{max(r['peak_rss_tree_kib'], r['peak_rss_largest_kib']) / 2**20:>10.2f}" for r in done)
    print(f"   {'peak RSS (GiB)':<44}{peaks}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--top", type=int, default=12, help="slowest dbt nodes listed per scale")
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rater1001-bench",
        help="folder of the cached simulated landings",
    )
    ap.add_argument("--json", type=Path, default=None, help="also write every figure (all nodes) as JSON")
    ap.add_argument("--keep", type=Path, default=None, help="keep each scale's warehouse, target/ and report here")
    ap.add_argument("--timeout", type=float, default=None, help="seconds after which a scale's run is killed")
    ap.add_argument(
        "--cold-parse",
        action="store_true",
        help="remove the repository's kept dbt parse state before each scale (a first run)",
    )
    ap.add_argument(
        "--alone",
        type=float,
        default=None,
        metavar="SECONDS",
        help="then run alone each model whose node seconds at the largest scale reached SECONDS, on the "
        "two largest scales' projects (alone.py)",
    )
    ap.add_argument(
        "--alone-only",
        type=Path,
        nargs=2,
        metavar=("SMALL", "LARGE"),
        help="only the alone phase, on these built projects (e.g. kept by --keep); --alone defaults to 0.5",
    )
    ap.add_argument("--alone-models", nargs="+", help="with --alone-only: these models instead of --alone's")
    ap.add_argument("--alone-repeats", type=int, default=3, help="runs of each model alone (one if long)")
    ap.add_argument(
        "--alone-long",
        type=float,
        default=alone.LONG_S,
        help="CPU seconds of a first run alone that make it the only one",
    )
    args = ap.parse_args()
    if args.alone_only:
        small, large = args.alone_only
        threshold = 0.5 if args.alone is None else args.alone
        models = args.alone_models or alone.reached(alone.build_node_seconds(large), threshold)
        out = alone.alone_phase((small, large), models, (small.name, large.name), args.alone_repeats, args.alone_long)
        if args.json:
            args.json.write_text(json.dumps(out, indent=1))
        return
    held: list[Path] = []
    pair = sorted(args.scales)[-2:] if args.alone is not None and len(args.scales) > 1 else []
    results = []
    try:
        for scale in args.scales:
            hold = held if scale in pair else None
            r = bench_scale(scale, args.cache, args.seed, args.keep, args.timeout, args.cold_parse, hold)
            report(r, args.top)
            results.append(r)
            if args.json:
                args.json.write_text(json.dumps(results, indent=1))
        growth_table(results)
        if pair:
            alone_after(results, pair, args)
    finally:
        for folder in held:
            shutil.rmtree(folder, ignore_errors=True)
    if any(r["failed"] for r in results):
        sys.exit(1)


def alone_after(results: list[dict], pair: list[int], args: argparse.Namespace) -> None:
    """The alone phase on the two largest scales' projects, its result in the largest's record."""
    small, large = (next(r for r in results if r["scale"] == s) for s in pair)
    if small["failed"] or large["failed"]:
        print(f"\n== each model alone: skipped, the {pair[0]}x or {pair[1]}x run failed")
        return
    models = alone.reached(model_seconds(large["nodes"]), args.alone)
    projects = (Path(small["project"]), Path(large["project"]))
    labels = (f"{pair[0]}x", f"{pair[1]}x")
    large["alone"] = alone.alone_phase(projects, models, labels, args.alone_repeats, args.alone_long)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
