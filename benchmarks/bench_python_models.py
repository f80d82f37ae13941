"""CPU seconds of dbt Python models' own work, on the inputs of a built warehouse.

Each model file's `model(dbt, session)` runs in this process with a `dbt` whose `ref` returns what
dbt-duckdb's does (`con.query("select * from <table>")`) and whose `config.get` returns the value
the build's manifest recorded; its frame is then written as dbt-duckdb's `materialize` writes it
(register, `create table ... as select *`). Nothing is written to the warehouse: it is copied to a
temporary file first. Printed per model: the minimum over --rounds of the process's CPU seconds
for the call and for the write, imports excluded (dbt pays them once per process, the first
model that needs them). With --profile the cProfile of one more call, by cumulative time.

    .venv/bin/python benchmarks/bench_python_models.py PROJECT [--models judge_ worth_ ...]
        [--rounds 3] [--profile NAME] [--json out.json] [--checkout DIR]

On a shared machine CPU seconds move with the load; compare two trees (--checkout, e.g.
`git archive main | tar -x -C DIR`) in alternating runs of the same minutes.

PROJECT is a project folder built by `rater1001 run` or `build` (its warehouse/rater1001.duckdb
and target/manifest.json).
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import importlib.util
import json
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
for _i, _arg in enumerate(sys.argv):  # --checkout: that tree's package and model files, imported first
    if _arg == "--checkout" and _i + 1 < len(sys.argv):
        REPO = Path(sys.argv[_i + 1]).resolve()
        sys.path.insert(0, str(REPO / "python"))


class _Config:
    def __init__(self, values: dict):
        self._values = values

    def get(self, key, default=None):
        return self._values.get(key, default)


class _Dbt:
    """What a model file uses of dbt-duckdb's `dbt` object."""

    def __init__(self, con, config: dict):
        self._con, self.config = con, _Config(config)

    def ref(self, name: str):
        return self._con.query(f"select * from {name}")


def python_models(manifest: dict, prefixes: list[str]) -> dict[str, dict]:
    nodes = {
        n["name"]: n
        for n in manifest["nodes"].values()
        if n["resource_type"] == "model" and n.get("language") == "python"
    }
    return {k: v for k, v in sorted(nodes.items()) if not prefixes or any(k.startswith(p) for p in prefixes)}


def compiled_config(project: Path, node: dict) -> dict:
    """The config values the build wrote into the model's compiled code (the study's settings
    included, macros/study_setting.sql), else the manifest's."""
    compiled = project / "target" / "compiled" / "rater1001" / node["original_file_path"]
    for line in compiled.read_text().splitlines() if compiled.exists() else []:
        if line.startswith("config_dict = "):
            return ast.literal_eval(line.removeprefix("config_dict = "))
    return {k: node["config"].get(k) for k in node["config"].get("config_keys_used", [])}


def load(node: dict):
    path = REPO / node["original_file_path"]
    spec = importlib.util.spec_from_file_location(node["name"], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model


def _cpu() -> float:
    return time.process_time()


def measure(con, node: dict, config: dict, rounds: int) -> dict:
    model = load(node)
    model(_Dbt(con, config), con)  # warm: imports, the yml of the marts, caches
    calls, writes = [], []
    for _ in range(rounds):
        t0 = _cpu()
        df = model(_Dbt(con, config), con)
        t1 = _cpu()
        con.register("__bench_df", df)
        con.execute("create or replace temp table __bench_out as select * from __bench_df")
        con.unregister("__bench_df")
        t2 = _cpu()
        calls.append(t1 - t0)
        writes.append(t2 - t1)
    return {"call": min(calls), "write": min(writes), "rows": len(df)}


def differences(con, name: str, df, tolerance: float = 1e-12) -> list[str]:
    """Where the model's frame differs from the warehouse's table of the same name (rows in the
    order of every column, numbers at `tolerance` relative and absolute): what --check prints."""
    import numpy as np
    import pandas as pd

    built = con.query(f"select * from {name}").df()
    mine = con.query("select * from __bench_out").df() if df is None else df
    if list(built.columns) != list(mine.columns) or len(built) != len(mine):
        return [f"shape {list(mine.columns)} x {len(mine)} against {list(built.columns)} x {len(built)}"]
    order = list(built.columns)
    built = built.sort_values(order, na_position="last", kind="stable").reset_index(drop=True)
    mine = mine.sort_values(order, na_position="last", kind="stable").reset_index(drop=True)
    out = []
    for col in order:
        a, b = built[col], mine[col]
        if pd.api.types.is_float_dtype(a) and pd.api.types.is_float_dtype(b):
            x, y = a.to_numpy(float), b.to_numpy(float)
            same = np.isclose(x, y, rtol=tolerance, atol=tolerance, equal_nan=True)
            if not same.all():
                out.append(f"{col}: {int((~same).sum())} rows, largest {np.nanmax(np.abs(x - y)):.3g}")
        elif not (a.isna().equals(b.isna()) and (a[a.notna()].astype(str) == b[b.notna()].astype(str)).all()):
            out.append(f"{col}: values differ")
    return out


def profile(con, node: dict, config: dict, top: int) -> None:
    model = load(node)
    model(_Dbt(con, config), con)
    prof = cProfile.Profile()
    prof.enable()
    model(_Dbt(con, config), con)
    prof.disable()
    pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(top)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("--models", nargs="*", default=[], help="name prefixes (default: every Python model)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", help="one model to profile")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--check", action="store_true", help="compare each frame with the warehouse's table")
    ap.add_argument("--checkout", type=Path, help="another source tree of the repository (default: this one)")
    args = ap.parse_args(argv)
    manifest = json.loads((args.project / "target" / "manifest.json").read_text())
    nodes = python_models(manifest, [args.profile] if args.profile else args.models)
    t0 = _cpu()
    import rater1001.marts  # noqa: F401  (the package; each module is imported by its first model)

    imports = _cpu() - t0
    with tempfile.TemporaryDirectory(prefix="bench-pym-") as tmp:
        db = Path(tmp) / "w.duckdb"
        shutil.copy(args.project / "warehouse" / "rater1001.duckdb", db)
        con = duckdb.connect(str(db))
        con.execute("set threads = 1")
        if args.profile:
            node = nodes[args.profile]
            profile(con, node, compiled_config(args.project, node), args.top)
            return 0
        results = {}
        for name, node in nodes.items():
            results[name] = measure(con, node, compiled_config(args.project, node), args.rounds)
            if args.check:
                results[name]["differences"] = differences(con, name, None)
    print(f"import rater1001.marts: {imports:.2f} CPU s")
    print(f"{'model':40s} {'call':>7s} {'write':>7s} {'rows':>7s}")
    for name, r in sorted(results.items(), key=lambda kv: -kv[1]["call"]):
        same = (
            "" if "differences" not in r else "  same" if not r["differences"] else "  " + "; ".join(r["differences"])
        )
        print(f"{name:40s} {r['call']:7.3f} {r['write']:7.3f} {r['rows']:7d}{same}")
    total = sum(r["call"] + r["write"] for r in results.values())
    print(f"{'total':40s} {total:7.3f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
