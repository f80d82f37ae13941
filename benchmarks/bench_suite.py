"""Where the test suite's time goes: runs pytest as `make test` does (`-n auto --dist loadgroup`,
lint not included) with a plugin that records, in every worker, each test's CPU (set-up, call and
teardown; the process's own CPU with dbt's threads, plus its reaped children's) and each dbt
invocation the tests make (`rater1001.warehouse._invoke`: its CPU, wall and arguments). Prints the
run's wall and CPU, how busy each worker was, the files and tests that cost the most and the dbt
invocations, so that docs/testing.md's figures can be measured again on any machine.

    .venv/bin/python benchmarks/bench_suite.py [--top 25] [--keep DIR] [-- extra pytest args]

A fresh clone measures what CI pays (every parse state and rewritten module is new); a second run
in the same checkout measures the warm suite. The figures include the plugin's own small cost. A
process a test starts counts only once it is reaped, with what it reaped: headless Chromium's
renderers are not (the browser test shows ~2 s of CPU for ~15 s of wall), the report's PNG workers
are; a command forked by a ForkedCli helper (tests/python/fakes/forked_cli.py) counts in the test
during which it ended, not when its helper is reaped.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

OUT_ENV = "RATER1001_BENCH_SUITE_OUT"
REPO = Path(__file__).resolve().parents[1]


# --- the plugin (runs in each pytest worker) ------------------------------------------------------


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # commands forked by a ForkedCli helper that ended before their helper was reaped
    forked = getattr(sys.modules.get("fakes.forked_cli"), "CPU", {"ended": 0.0, "reaped": 0.0})
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + forked["ended"] - forked["reaped"]


_current_test: list[str] = [""]


def _out_file(kind: str) -> Path:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return Path(os.environ[OUT_ENV]) / f"{worker}.{kind}.jsonl"


def _append(kind: str, record: dict) -> None:
    with _out_file(kind).open("a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def pytest_configure(config):
    if OUT_ENV not in os.environ:
        return
    import rater1001.warehouse as warehouse

    invoke = warehouse._invoke

    def timed_invoke(paths, args, *rest, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return invoke(paths, args, *rest, **kwargs)
        finally:
            record = {"test": _current_test[0], "command": " ".join(map(str, args[:4]))}
            record |= {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}
            _append("dbt", record)

    warehouse._invoke = timed_invoke


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if OUT_ENV not in os.environ:
        yield
        return
    _current_test[0] = item.nodeid
    start, cpu = time.time(), _cpu()
    yield
    _append("tests", {"test": item.nodeid, "start": start, "wall": time.time() - start, "cpu": _cpu() - cpu})


# --- the driver -------------------------------------------------------------------------------------


def _read(folder: Path, kind: str) -> list[dict]:
    rows = []
    for path in sorted(folder.glob(f"*.{kind}.jsonl")):
        worker = path.name.split(".")[0]
        rows += [{**json.loads(line), "worker": worker} for line in path.read_text().splitlines()]
    return rows


def _print_report(tests: list[dict], invocations: list[dict], began: float, wall: float, cpu: float, top: int) -> None:
    test_cpu = sum(t["cpu"] for t in tests)
    dbt_cpu = sum(i["cpu"] for i in invocations)
    print(f"pytest wall {wall:.1f} s; CPU of pytest and its children {cpu:.1f} s; {len(tests)} tests")
    print(f"tests' CPU {test_cpu:.1f} s, of which inside dbt invocations {dbt_cpu:.1f} s ({dbt_cpu / test_cpu:.0%})")
    for worker in sorted({t["worker"] for t in tests}):
        mine = [t for t in tests if t["worker"] == worker]
        busy = sum(t["wall"] for t in mine)
        first, last = min(t["start"] for t in mine) - began, max(t["start"] + t["wall"] for t in mine) - began
        print(
            f"  {worker}: {len(mine)} tests, busy {busy:.1f} s ({busy / wall:.0%} of the run); "
            f"first test began at {first:.1f} s, last ended at {last:.1f} s"
        )
    by_file = collections.Counter()
    for t in tests:
        by_file[t["test"].split("::")[0]] += t["cpu"]
    print(f"\nfiles by CPU (top {top}):")
    for name, seconds in by_file.most_common(top):
        print(f"  {seconds:7.1f} s  {name}")
    print(f"\ntests by CPU (top {top}):")
    for t in sorted(tests, key=lambda t: -t["cpu"])[:top]:
        print(f"  {t['cpu']:7.1f} s  wall {t['wall']:6.1f} s  {t['worker']}  {t['test'][:110]}")
    kinds = collections.defaultdict(list)
    for i in invocations:
        kinds[i["command"].split()[0]].append(i["cpu"])
    summary = ", ".join(f"{k} x{len(v)} {sum(v):.1f} s" for k, v in sorted(kinds.items(), key=lambda kv: -sum(kv[1])))
    print(f"\ndbt invocations: {len(invocations)}, {dbt_cpu:.1f} s of CPU ({summary}); the largest:")
    for i in sorted(invocations, key=lambda i: -i["cpu"])[:top]:
        print(f"  {i['cpu']:6.1f} s  wall {i['wall']:6.1f} s  {i['command'][:30]:30s} {i['test'][:90]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=25, help="rows per table")
    ap.add_argument("--keep", type=Path, help="keep the raw records in DIR (default: a temporary folder)")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args()

    out = args.keep or Path(tempfile.mkdtemp(prefix="bench-suite-"))
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.jsonl"):
        stale.unlink()
    # The plugin is this file, imported under a name of its own from a folder that holds only it:
    # benchmarks/ itself on PYTHONPATH would put every benchmark module on the workers' path.
    loader = out / "rater1001_bench_suite_plugin.py"
    loader.write_text(
        textwrap.dedent(f"""\
            import importlib.util
            _spec = importlib.util.spec_from_file_location("_bench_suite", {str(Path(__file__).resolve())!r})
            _module = importlib.util.module_from_spec(_spec)
            _spec.loader.exec_module(_module)
            pytest_configure = _module.pytest_configure
            pytest_runtest_protocol = _module.pytest_runtest_protocol
            """)
    )
    env = {**os.environ, OUT_ENV: str(out), "PYTHONDONTWRITEBYTECODE": ""}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(out), env.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "pytest", "-q", "-n", "auto", "--dist", "loadgroup"]
    command += ["-p", "rater1001_bench_suite_plugin", *args.pytest_args]
    began, start = time.time(), time.perf_counter()
    code = subprocess.run(command, cwd=REPO, env=env).returncode
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print()
    _print_report(_read(out, "tests"), _read(out, "dbt"), began, wall, children.ru_utime + children.ru_stime, args.top)
    print(f"\nrecords: {out}")
    sys.exit(code)


if __name__ == "__main__":
    main()
