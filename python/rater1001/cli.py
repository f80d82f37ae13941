"""The command line: the only place that prints, reads arguments and chooses exit codes.
Each subcommand calls one function of a module and reports what it returned."""
from __future__ import annotations

import argparse
import sys

from .paths import project

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNREADABLE = 2
EXIT_PARTIAL = 3


def _cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import ingest_file, IngestError

    paths = project(args.home)
    try:
        result = ingest_file(paths, args.table, args.file)
    except IngestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(result.summary())
    return EXIT_OK if result.rows_rejected == 0 else EXIT_PARTIAL


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate_study

    paths = project(args.home)
    summary = simulate_study(paths, seed=args.seed)
    print(summary)
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    from .quality import run_quality_gate

    paths = project(args.home)
    result = run_quality_gate(paths, allow_unbalanced=args.allow_unbalanced)
    print(result.summary())
    return EXIT_OK if result.passed else EXIT_FAILED


def _cmd_build(args: argparse.Namespace) -> int:
    from .warehouse import dbt_build

    paths = project(args.home)
    return EXIT_OK if dbt_build(paths, select=args.select) else EXIT_FAILED


def _cmd_run(args: argparse.Namespace) -> int:
    """The main job: quality gate, then the warehouse, then its docs."""
    from .quality import run_quality_gate
    from .warehouse import dbt_build, dbt_docs

    paths = project(args.home)
    gate = run_quality_gate(paths, allow_unbalanced=args.allow_unbalanced)
    print(gate.summary())
    if not gate.passed:
        print("quality gate failed: the warehouse was not built (see the report above).", file=sys.stderr)
        return EXIT_FAILED
    if not dbt_build(paths):
        return EXIT_FAILED
    dbt_docs(paths)
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    rc = _cmd_simulate(args)
    if rc != EXIT_OK:
        return rc
    return _cmd_run(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rater1001", description="Can this AI model replace my human raters?")
    p.add_argument("--home", default=None, help="project folder (default: $RATER1001_HOME or the current folder)")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="validate a file and land it as data/raw/TABLE.parquet")
    s.add_argument("table", help="stimuli, raters, human_ratings, model_conditions or model_predictions")
    s.add_argument("file", help="CSV, XLSX, JSONL or Parquet file")
    s.set_defaults(func=_cmd_ingest)

    s = sub.add_parser("simulate", help="write the embedded (SIMULATED) demo study into data/raw")
    s.add_argument("--seed", type=int, default=20251129)
    s.set_defaults(func=_cmd_simulate)

    s = sub.add_parser("check", help="run the Great Expectations quality gate on data/raw")
    s.add_argument("--allow-unbalanced", action="store_true", help="report design violations but do not fail")
    s.set_defaults(func=_cmd_check)

    s = sub.add_parser("build", help="dbt build the warehouse from data/raw")
    s.add_argument("--select", default=None, help="dbt selection (default: everything)")
    s.set_defaults(func=_cmd_build)

    for name, func, helptext in (
        ("run", _cmd_run, "quality gate + dbt build + docs on data/raw"),
        ("demo", _cmd_demo, "simulate the demo study, then run"),
    ):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("--allow-unbalanced", action="store_true")
        if name == "demo":
            s.add_argument("--seed", type=int, default=20251129)
        s.set_defaults(func=func)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
