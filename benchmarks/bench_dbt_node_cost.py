"""dbt's fixed cost per node, whatever the data: a throwaway dbt-duckdb project (the settings of the
repository's profiles.yml that matter here: a DuckDB file, no transactions) with one trivial model,
built as it is and, right after, with N more trivial nodes of one kind (a SQL table, a SQL view, a Python
model, a data test); each build runs in a child process after a `dbt parse` of the same project, and
the cost of a node is the difference of the child's CPU seconds (user + system) divided by N.

    .venv/bin/python benchmarks/bench_dbt_node_cost.py [--n 100] [--kinds table view python test]

CPU seconds, not wall: on a shared machine the wall moves with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

DBT = str(Path(sys.executable).parent / "dbt")


def _project(folder: Path, kind: str, n: int) -> None:
    (folder / "models").mkdir()
    (folder / "dbt_project.yml").write_text(
        'name: probe\nversion: "0.1"\nconfig-version: 2\nprofile: probe\nmodel-paths: ["models"]\n'
    )
    (folder / "profiles.yml").write_text(
        textwrap.dedent("""\
        probe:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: probe.duckdb
              threads: 1
              disable_transactions: true
        """)
    )
    (folder / "models" / "base.sql").write_text("select 1 as x")
    tests = []
    for i in range(n):
        if kind in ("table", "view"):
            body = f"{{{{ config(materialized='{kind}') }}}} select x from {{{{ ref('base') }}}}"
            (folder / "models" / f"m{i}.sql").write_text(body)
        elif kind == "python":
            body = "def model(dbt, session):\n    dbt.config(materialized='table')\n    return dbt.ref('base').df()\n"
            (folder / "models" / f"m{i}.py").write_text(body)
        else:  # a data test: accepted_values, each with its own value list so that each is a node
            tests.append(
                f"          - accepted_values:\n              arguments:\n                values: [1, {i + 2}]"
            )
    if tests:
        head = "version: 2\nmodels:\n  - name: base\n    columns:\n      - name: x\n        data_tests:\n"
        (folder / "models" / "schema.yml").write_text(head + "\n".join(tests) + "\n")


def build_cpu(kind: str, n: int) -> tuple[float, int]:
    """CPU seconds of `dbt build` of the project with n nodes of `kind` (after a parse), and the
    number of nodes it ran."""
    with tempfile.TemporaryDirectory(prefix="dbt-node-cost-") as tmp:
        folder = Path(tmp)
        _project(folder, kind, n)
        env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
        where = ["--project-dir", str(folder), "--profiles-dir", str(folder), "--log-level", "none"]
        subprocess.run([DBT, "parse", *where], env=env, cwd=folder, check=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([DBT, "build", *where], env=env, cwd=folder, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        nodes = len(json.loads((folder / "target" / "run_results.json").read_text())["results"])
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--kinds", nargs="+", default=["table", "view", "python", "test"])
    args = ap.parse_args()
    for kind in args.kinds:
        # the empty project again beside each kind: on a shared machine the load moves between minutes
        base, _ = build_cpu("table", 0)
        cpu, nodes = build_cpu(kind, args.n)
        print(
            f"{kind:<7} {nodes:>4} nodes: {cpu:6.2f} CPU s against {base:.2f} for one node: "
            f"{(cpu - base) / args.n * 1000:5.1f} ms per node"
        )


if __name__ == "__main__":
    main()
