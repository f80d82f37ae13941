"""The command line: the only place that prints, reads arguments and chooses exit codes.
Each subcommand calls one function of a module and reports what it returned."""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import sys
from pathlib import Path

from .paths import project

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNREADABLE = 2
EXIT_PARTIAL = 3
EXIT_BUSY = 75  # EX_TEMPFAIL: another command is writing to the project folder; try again later

# Commands that write into the project folder hold its lock (lock.py); their dry runs only read.
WRITERS = frozenset({"init", "ingest", "simulate", "check", "build", "run", "demo", "report", "infer", "judge"})


def _at_least(kind, floor: float, *, inclusive: bool):
    """argparse type: a number above floor (or at least floor); `--limit -1` or `--timeout 0` would
    silently mean something odd, so they are refused while the command line is read."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
        if not (value >= floor if inclusive else value > floor):
            raise argparse.ArgumentTypeError(
                f"{text!r}: must be {'at least' if inclusive else 'greater than'} {floor:g}"
            )
        return value

    return parse


def _positive(kind):
    return _at_least(kind, 0, inclusive=False)


def _cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import IngestError, ingest_file

    paths = project(args.home)
    try:
        result = ingest_file(
            paths,
            args.table,
            args.file,
            encoding=args.encoding,
            drop_columns=args.drop_columns,
            sheet=args.sheet,
        )
    except IngestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(result.summary())
    return EXIT_OK if result.rows_rejected == 0 else EXIT_PARTIAL


def _scale(text: str) -> tuple[int, int]:
    low, sep, high = text.partition("-")
    try:
        scale = (int(low), int(high))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MIN-MAX, e.g. 1-7") from None
    if not sep or scale[0] >= scale[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MIN-MAX with MIN < MAX, e.g. 1-7")
    return scale


def _cmd_init(args: argparse.Namespace) -> int:
    from .ingest import IngestError
    from .init import InitError, Options, init_study
    from .init.judge import PairsOptions
    from .init.judge_files import init_judge, is_pairs_file
    from .study import StudyError

    paths = project(args.home)
    options = Options(
        stimulus_col=args.stimulus_col,
        rater_col=args.rater_col,
        label_col=args.label_col,
        dimensions=tuple(args.dimension),
        audit=tuple(args.audit),
        category=args.category,
        identity_col=args.identity_col,
        rater_attributes=tuple(args.rater_attribute),
        model_col=args.model_col,
        ignore=tuple(args.ignore),
        scale=args.scale,
        name=args.name,
        model_kind=tuple(args.model_kind),
    )
    files = {"stimuli": args.stimuli, "raters": args.raters, "predictions": args.predictions}
    if args.verdicts or is_pairs_file(args.ratings, tuple(args.ignore), args.sheet):  # a judge study (docs/init.md)
        if given := [f"--{k}" for k, v in files.items() if v]:
            print(
                f"error: {', '.join(given)}: a rating study's files, not a judge study's; nothing was written",
                file=sys.stderr,
            )
            return EXIT_UNREADABLE
        judge = PairsOptions(args.pair_col, tuple(args.verdict_col), args.judge_col, args.category, tuple(args.ignore))
        call = functools.partial(
            init_judge, paths, args.ratings, args.verdicts, judge, name=args.name, ingest=args.yes, sheet=args.sheet
        )
    else:
        call = functools.partial(init_study, paths, args.ratings, options, **files, ingest=args.yes, sheet=args.sheet)
    try:
        try:
            result = call()
        except FileExistsError as exc:
            if not _confirm(f"{exc} exist(s) with other contents: overwrite? [y/N] ", args.yes):
                print(
                    f"error: {exc} already exist(s) with other contents; nothing was written "
                    "(answer y on a terminal, or remove the file(s))",
                    file=sys.stderr,
                )
                return EXIT_UNREADABLE
            result = call(overwrite=True)
    except InitError as exc:
        print(f"error: {exc}; nothing was written", file=sys.stderr)
        return EXIT_UNREADABLE
    except (IngestError, StudyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(result.table())
    for note in result.notes:
        print(f"note: {note}")
    print(f"wrote {', '.join(str(p) for p in result.written)} and data/init/*.csv")
    if not args.yes:
        home = f" --home {args.home}" if args.home else ""
        print("next: check study.yml, then ingest:")
        for table, path in result.landing_files.items():
            print(f"  rater1001{home} ingest {table} {path}")
        return EXIT_OK
    for ingest in result.ingested.values():
        print(ingest.summary())
    partial = any(r.rows_rejected for r in result.ingested.values())
    print("next: rater1001 run, then rater1001 summary")
    return EXIT_PARTIAL if partial else EXIT_OK


def _confirm(question: str, assume_no: bool) -> bool:
    """Asked on a terminal only: a script (or --yes) never overwrites a study the user wrote."""
    if assume_no or not sys.stdin.isatty():
        return False
    return input(question).strip().lower() in ("y", "yes")


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate_study

    paths = project(args.home)
    print(simulate_study(paths, seed=args.seed))
    if not getattr(args, "no_judge", False):
        from .runs.judge.simulate import simulate_judge_study

        print(simulate_judge_study(paths, seed=args.seed))
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    from .quality import run_quality_gate

    paths = project(args.home)
    result = run_quality_gate(paths, allow_unbalanced=args.allow_unbalanced)
    print(result.summary())
    _refresh_stale_report(paths)
    return EXIT_OK if result.passed else EXIT_FAILED


def _refresh_stale_report(paths) -> None:
    """An existing report built from a warehouse that is no longer current is written again from
    that warehouse, so that the page itself carries the warning (no figure PNGs: quick)."""
    from .freshness import WarehouseUnavailable, built_warehouse_problems

    try:
        if (paths.report / "index.html").exists() and built_warehouse_problems(paths):
            print("the report is not current: writing it again with a warning banner", file=sys.stderr)
            _write_report(paths, write_pngs=False)
    except WarehouseUnavailable as exc:  # no complete warehouse to write it from: said, not fatal
        print(f"note: the report was left as it was: {exc}", file=sys.stderr)


def _build_warehouse(paths, progress: bool, select: str | None = None, publish: bool = True, manifest=None):
    """dbt build behind a progress bar (stderr, terminals only); prints the one-line summary and
    the failing nodes, and on failure one line naming the cause and what was kept. dbt's own output
    is in logs/dbt.log."""
    from tqdm import tqdm

    from . import build_record
    from .warehouse import dbt_build

    bar = None

    def on_node(done: int, total: int, name: str) -> None:
        nonlocal bar
        if bar is None:
            # disable=None: drawn only on a terminal, so logs and pipes get the summary alone
            bar = tqdm(
                total=total,
                desc="dbt build",
                unit="node",
                file=sys.stderr,
                disable=None if progress else True,
                dynamic_ncols=True,
                leave=False,
            )
        bar.total = total
        bar.set_postfix_str(name[:40], refresh=False)
        bar.update(done - bar.n)

    try:
        result = dbt_build(paths, select=select, on_node=on_node, publish=publish, manifest=manifest)
    finally:
        if bar is not None:
            bar.close()
    if result:
        print(result.summary())
    else:
        cause = (build_record.read(paths) or {}).get("cause") or "a node failed"
        print(result.summary(max_failures=3), file=sys.stderr)
        print(f"build FAILED: {cause}. {_kept(paths)}", file=sys.stderr)
    return result


def _has_published(paths) -> bool:
    from .freshness import WarehouseUnavailable, read_provenance

    try:
        return read_provenance(paths) is not None
    except WarehouseUnavailable:
        return False


def _kept(paths) -> str:
    """What a failed or stopped build left for readers."""
    from .freshness import WarehouseUnavailable, built_from, read_provenance

    try:
        provenance = read_provenance(paths)
    except WarehouseUnavailable:
        provenance = None
    if provenance is None:
        return "No warehouse was published (there is none yet)."
    return f"The last complete warehouse was kept ({built_from(provenance)}); full log: logs/dbt.log"


def _cmd_build(args: argparse.Namespace) -> int:
    from .freshness import LANDING_PROBLEMS, gate_status

    paths = project(args.home)
    status = gate_status(paths)
    if status in LANDING_PROBLEMS:  # said before dbt starts, and by _warn_if_stale once it is built
        print(
            f"WARNING: building anyway: the landing in {paths.raw} {LANDING_PROBLEMS[status]}; run `rater1001 check`",
            file=sys.stderr,
        )
    ok = _build_warehouse(paths, not args.no_progress, select=args.select)
    _warn_if_stale(paths)
    return EXIT_OK if ok else EXIT_FAILED


def _quality_gate(paths, allow_unbalanced: bool):
    from .quality import run_quality_gate

    return run_quality_gate(paths, allow_unbalanced=allow_unbalanced)


def _gate_and_parse(paths, allow_unbalanced: bool):
    """The quality gate, in a child process while dbt parses the project here and the table
    builders are imported (both sides mostly Python: two interpreters on two cores). Returns the
    gate's result and dbt's manifest (None: the build parses)."""
    from .forked import Forked

    # forked before this process imports DuckDB, dbt or the gate's modules: each side imports its own
    with Forked(_quality_gate, paths, allow_unbalanced, what="the quality gate") as gate:
        from .marts._preload import import_builders
        from .warehouse import dbt_parse

        manifest = dbt_parse(paths)
        import_builders()
        return gate.result(), manifest


def _cmd_run(args: argparse.Namespace) -> int:
    """The main job: quality gate, then the warehouse, its docs, then the report."""
    paths = project(args.home)
    gate, manifest = _gate_and_parse(paths, args.allow_unbalanced)
    from .warehouse import abandon_build, dbt_docs, failure_cause, publish_build, staged_report

    print(gate.summary())
    if not gate.passed:
        print("quality gate failed: the warehouse was not built (see the report above).", file=sys.stderr)
        _refresh_stale_report(paths)
        return EXIT_FAILED
    # the figure workers start their engines while the build runs (its Python models leave a core)
    with _png_writer(staged_report(paths), not args.no_png) as pngs:
        if not _build_warehouse(paths, not args.no_progress, publish=False, manifest=manifest):
            pngs.close()
            if _has_published(paths):
                # the last complete build's report again, its first screen naming what the failed build
                # could not build and why (warehouse/last_build.json)
                _write_report(paths, write_pngs=False)
            return EXIT_FAILED
        try:
            docs = dbt_docs(paths, staged=True, manifest=manifest)
            print(f"dbt docs: {docs}" if docs else "dbt docs: not written (see logs/dbt.log)")
            # The report is written from the staged warehouse and published with it, in one step.
            rc = _write_report(paths, write_pngs=not args.no_png, staged=True, pngs=pngs)
            if rc != EXIT_OK:
                abandon_build(paths, "the report could not be written")
                return rc
            publish_build(paths)
        except BaseException as exc:
            abandon_build(paths, failure_cause(paths, f"{type(exc).__name__}: {exc}"))
            raise
    print(f"published: {paths.warehouse} and {paths.report / 'index.html'}")
    _warn_if_stale(paths)
    return EXIT_OK


@contextlib.contextmanager
def _png_writer(report, write_pngs: bool):
    """The report's figure workers, started now, closed at the end of the block."""
    from .report.png_pool import PngWriter

    pngs = PngWriter(report / "figures" if write_pngs else None).start()
    try:
        yield pngs
    finally:
        pngs.close()


def _write_report(paths, write_pngs: bool, staged: bool = False, pngs=None) -> int:
    """The report of a run's staged build (published by the run with it), or of the published
    warehouse, written beside it and then published in one step; `pngs`: its figure workers, started
    ahead."""
    import shutil

    from .report import build_report
    from .report.png_pool import FigureExportError
    from .warehouse import publish_build, staged_report

    try:
        if staged:
            result = build_report(paths, write_pngs, paths.staged_warehouse, staged_report(paths), pngs)
        else:
            _complete_warehouse(paths)
            shutil.rmtree(paths.staging, ignore_errors=True)  # only a killed build's; we hold the lock
            result = build_report(paths, write_pngs, out_dir=staged_report(paths))
            publish_build(paths)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    except FigureExportError as exc:  # the report stays the last complete one
        if not staged:
            shutil.rmtree(paths.staging, ignore_errors=True)
        print(f"error: {exc}; the report was not published", file=sys.stderr)
        return EXIT_FAILED
    print(result.summary().replace(str(staged_report(paths)), str(paths.report)))
    # One line per reason, naming its blocks: a study of another shape has dozens of blocks that
    # do not apply for the same one or two reasons.
    blocks_by_note: dict[str, list[str]] = {}
    for block in result.unavailable:
        blocks_by_note.setdefault(block.note, []).append(block.ours)
    for note, blocks in blocks_by_note.items():
        print(f"  {', '.join(blocks)}: {note}")
    if not staged:
        _warn_if_stale(paths)
    return EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    """report/index.html (offline, self-contained) and report/figures/*.png from the warehouse."""
    return _write_report(project(args.home), write_pngs=not args.no_png)


def _cmd_demo(args: argparse.Namespace) -> int:
    rc = _cmd_simulate(args)
    if rc != EXIT_OK:
        return rc
    return _cmd_run(args)


def _error(what) -> int:
    notes = "".join(f"\n  {n}" for n in getattr(what, "__notes__", []))
    print(f"error: {what}{notes}", file=sys.stderr)
    return EXIT_UNREADABLE


def _draining(n: int, seconds: float) -> None:
    print(
        f"interrupted: waiting up to {seconds:g} s for {n} call(s) in flight so their answers are kept "
        "(Ctrl-C again to stop waiting)",
        file=sys.stderr,
        flush=True,
    )


def _interrupted(exc: KeyboardInterrupt) -> int:
    """Ctrl-C during infer / judge: say what happened to the calls that were in flight."""
    from .runs.runner import Interrupted

    waited = ""
    if isinstance(exc, Interrupted) and exc.in_flight:
        stopped = f", {exc.stopped} stopped before a retry" if exc.stopped else ""
        waited = (
            f"waited {exc.waited_s:.1f} s for the {exc.in_flight} call(s) in flight: {exc.recorded} finished "
            f"and were recorded in the ledger, {exc.abandoned} abandoned{stopped} (redone on the next run). "
        )
    print(
        f"interrupted: {waited}Finished calls are in the ledger and were landed; run the same command again to resume.",
        file=sys.stderr,
    )
    return 130


def _print_refused(refused) -> None:
    if refused:
        more = f" (and {len(refused) - 10} more)" if len(refused) > 10 else ""
        print(
            f"{len(refused)} stimulus/condition pair(s) refused, not sent{more}:\n  "
            + "\n  ".join(r.message for r in refused[:10]),
            file=sys.stderr,
        )


def _cmd_infer(args: argparse.Namespace) -> int:
    """Model runs: dry run (calls, tokens, cost), or the resumable run, then a summary."""
    from pathlib import Path

    import pandas as pd

    from .runs.infer.backends.mlx_backend import MlxUnavailable
    from .runs.infer.fer_model import FerUnavailable
    from .runs.infer.plan import PlanError
    from .runs.infer.run import InferOptions, dry_run, run_infer
    from .runs.runner import RetryPolicy

    paths = project(args.home)
    concurrency = {}
    for item in args.concurrency or []:
        name, _, n = item.partition("=")
        if not n.isdigit() or int(n) < 1:
            print(f"error: --concurrency {item!r}: expected BACKEND=N with N >= 1", file=sys.stderr)
            return EXIT_UNREADABLE
        concurrency[name] = int(n)
    opts = InferOptions(
        condition_ids=args.conditions,
        images_dir=Path(args.images).resolve() if args.images else None,
        conditions_file=Path(args.conditions_file) if args.conditions_file else None,
        strategy=args.strategy,
        run_id=args.run_id,
        limit=args.limit,
        base_url=args.base_url,
        concurrency=concurrency,
        timeout_s=args.timeout,
        retry=RetryPolicy(max_attempts=args.max_attempts, max_retry_time_s=args.max_retry_time),
        progress=not args.no_progress,
        parse_policy=args.parse_policy,
        on_drain=_draining,
    )
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        try:
            if args.dry_run:
                table = dry_run(paths, opts)
                _print_refused(table.attrs.get("refused"))
                print("dry run (no call made):")
                print(table.to_string(index=False))
                total = table["est_cost_usd"].dropna().sum() if len(table) else 0.0
                print(
                    f"calls to make: {int(table['calls_todo'].sum()) if len(table) else 0}; "
                    f"estimated cost: ${total:.2f} (seeds/api_prices.csv; check current prices)"
                )
                return EXIT_OK
            plan = dry_run(paths, opts)
            _print_refused(plan.attrs.get("refused"))
            if len(plan):
                print(
                    f"plan: {int(plan['calls_todo'].sum())} call(s) to make of {int(plan['calls_total'].sum())}; "
                    f"estimated cost ${plan['est_cost_usd'].dropna().sum():.2f}",
                    file=sys.stderr,
                )
            result = run_infer(paths, opts)
        except (PlanError, KeyError, ValueError, MlxUnavailable, FerUnavailable, OSError) as exc:
            return _error(exc if isinstance(exc, OSError) else exc.args[0] if exc.args else exc)
        except KeyboardInterrupt as exc:
            return _interrupted(exc)
        print(result.summary.to_string(index=False))
    print(
        f"calls made {result.calls_made}, reused from the ledger {result.calls_cached}, "
        f"failed {result.calls_failed}, retries {result.retries}; "
        f"{len(result.rows)} predictions -> {result.predictions_path}"
    )
    if result.incomplete:
        print(
            f"{len(result.incomplete)} unit(s) without an answer (retried on the next run), e.g. "
            + "; ".join(f"{c}/{i}: {e}" for c, i, e in result.incomplete[:3]),
            file=sys.stderr,
        )
    if result.refused:
        print(f"{len(result.refused)} stimulus/condition pair(s) refused and not sent (listed above)", file=sys.stderr)
    for cid in result.summary.loc[result.summary["share_failed"] == 1.0, "condition_id"]:
        first = result.rows.loc[result.rows["condition_id"] == cid, "raw_responses"].iloc[0]
        print(
            f"warning: no answer of {cid} could be parsed (the first: {first[:200]}); is the endpoint "
            "answering with errors?",
            file=sys.stderr,
        )
    return EXIT_PARTIAL if result.incomplete or result.refused else EXIT_OK


def _cmd_judge(args: argparse.Namespace) -> int:
    """The pairwise judge (the lab log's protocol): dry run, or the resumable run over a pair plan."""
    from .runs.judge.plan import PlanError
    from .runs.judge.run import JudgeOptions, dry_run, run_judge
    from .runs.runner import RetryPolicy

    def split(value):
        return [v.strip() for v in value.split(",") if v.strip()] if value else None

    paths = project(args.home)
    opts = JudgeOptions(
        model_id=args.model,
        judge_id=args.judge_id,
        backend=args.backend,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        plan=args.plan,
        anchor=args.anchor,
        candidate_ids=split(args.candidates),
        variants=split(args.variants),
        sample_ids=split(args.samples),
        limit=args.limit,
        template=args.template,
        temperature=args.temperature,
        seed=args.seed,
        max_tokens=args.max_tokens,
        timeout_s=args.timeout,
        concurrency=args.concurrency,
        retry=RetryPolicy(max_attempts=args.max_attempts),
        progress=not args.no_progress,
        on_drain=_draining,
    )
    try:
        if args.dry_run:
            est = dry_run(paths, opts)
            print("dry run (no call made): " + ", ".join(f"{k}={v}" for k, v in est.items()))
            return EXIT_OK
        result = run_judge(paths, opts)
    except (PlanError, KeyError, ValueError, OSError) as exc:
        return _error(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    print(result.summary())
    return EXIT_PARTIAL if result.calls_failed or (result.rows["parse_status"] == "call_failed").any() else EXIT_OK


def _cmd_summary(args: argparse.Namespace) -> int:
    from .freshness import label
    from .summary import WarehouseNotBuilt, headline

    paths = project(args.home)
    try:
        provenance = _complete_warehouse(paths)
        print(headline(paths))
        print(label(paths, provenance))
    except WarehouseNotBuilt as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    # The numbers were printed, but not from the current, checked landing: a script must notice.
    return EXIT_FAILED if _warn_if_stale(paths) else EXIT_OK


def _complete_warehouse(paths) -> dict:
    """The published warehouse's provenance; raises WarehouseUnavailable when it is not a complete
    build (handled by main)."""
    from .freshness import WarehouseUnavailable, read_provenance, require_complete
    from .landing import pending_publish

    if pending_publish(paths):  # a publisher killed between its renames: finished by taking the lock
        from .lock import ProjectBusy, ProjectLockError, project_lock

        with contextlib.suppress(ProjectBusy, ProjectLockError), project_lock(paths, "finish a publish", 5):
            pass
    provenance = read_provenance(paths)
    if provenance is None:
        raise WarehouseUnavailable(
            f"{paths.warehouse} does not exist; run `rater1001 run` (or `rater1001 build`) first"
        )
    require_complete(paths, provenance)
    return provenance


def _warn_if_stale(paths) -> bool:
    """Say on stderr what is wrong with the warehouse outputs are read from, and what happened to
    builds after it (running, killed, failed); True when the warehouse is not current."""
    from .build_record import notes
    from .freshness import built_warehouse_problems

    problems = built_warehouse_problems(paths)
    for p in problems:
        print(f"WARNING: {p}", file=sys.stderr)
    for note in notes(paths):
        print(f"note: {note}", file=sys.stderr)
    return bool(problems)


def _cmd_sql(args: argparse.Namespace) -> int:
    """Ad hoc SQL: one query as a table (or a CSV / Parquet file), or an interactive harlequin session."""
    import subprocess

    import duckdb

    from .adhoc import NoWarehouse, harlequin_command, run_query
    from .freshness import label

    paths = project(args.home)
    try:
        if args.write:
            _refuse_during_build(paths)
        provenance = _complete_warehouse(paths)
        if args.query is None:
            if args.csv or args.parquet:
                print("error: --csv / --parquet need a query", file=sys.stderr)
                return EXIT_UNREADABLE
            _warn_if_stale(paths)
            return subprocess.call(harlequin_command(paths, write=args.write))
        print(run_query(paths, args.query, csv=args.csv, parquet=args.parquet, write=args.write))
    except NoWarehouse as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    except duckdb.Error as exc:
        print(f"error: {str(exc).strip()}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(label(paths, provenance), file=sys.stderr)
    _warn_if_stale(paths)
    return EXIT_OK


def _refuse_during_build(paths) -> None:
    """`sql --write` changes the published warehouse in place; a build publishing meanwhile would
    replace it and lose the change, so it waits for no one and refuses."""
    from .freshness import WarehouseBusy
    from .lock import holder, lock_held

    if lock_held(paths.root):
        raise WarehouseBusy(
            f"{paths.root}: a command is writing this project folder ({holder(paths)}); "
            "`sql --write` waits for it to finish: try again then"
        )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rater1001", description="Can this AI model replace my human raters?")
    p.add_argument("--home", default=None, help="project folder (default: $RATER1001_HOME or the current folder)")
    p.add_argument(
        "--wait",
        type=_at_least(float, 0, inclusive=True),
        default=None,
        metavar="SECONDS",
        help="how long a writing command waits for another one on the same project folder (default 30)",
    )
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="validate a file and land it as data/raw/TABLE.parquet")
    s.add_argument("table", help="stimuli, raters, human_ratings, model_conditions or model_predictions")
    s.add_argument("file", help="CSV, XLSX, JSONL or Parquet file")
    s.add_argument(
        "--encoding",
        default=None,
        help="text encoding of a CSV/JSONL file (default UTF-8, with or without BOM; e.g. cp949)",
    )
    s.add_argument(
        "--drop-columns",
        action="store_true",
        help="ignore columns the table does not have instead of refusing the file",
    )
    s.add_argument("--sheet", default=None, help="worksheet of an XLSX file (default: the first)")
    s.set_defaults(func=_cmd_ingest)

    s = sub.add_parser("init", help="guess study.yml and the label seed from your own files (--yes: and ingest them)")
    s.add_argument(
        "ratings",
        help="the ratings: a row per stimulus x rater, per rater, or per stimulus; or a judge study's pairs (docs/init.md)",
    )
    s.add_argument(
        "--verdicts",
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="a judge study: one LLM judge's verdicts on the pairs (repeatable)",
    )
    s.add_argument("--pair-col", default=None, help="a judge study: the pairs file's column naming each pair")
    s.add_argument(
        "--verdict-col",
        action="append",
        default=[],
        metavar="COLUMN",
        help="a judge study: a verdict column (repeatable)",
    )
    s.add_argument("--judge-col", default=None, help="a judge study: the verdict file's column naming the judge")
    s.add_argument(
        "--stimuli",
        action="append",
        default=[],
        help="a file describing the stimuli (factors, text, file names; repeatable)",
    )
    s.add_argument("--raters", default=None, help="a file describing the raters (attributes, age)")
    s.add_argument(
        "--predictions",
        action="append",
        default=[],
        help="the models' answers (or a condition you computed), one row per model x stimulus (repeatable)",
    )
    s.add_argument(
        "--yes", action="store_true", help="write and ingest in one go (a differing study.yml is never overwritten)"
    )
    s.add_argument("--stimulus-col", default=None, help="the column naming the stimulus")
    s.add_argument("--rater-col", default=None, help="the column naming the rater")
    s.add_argument(
        "--label-col", default=None, help="the forced-choice label column (counts or wide files: the label's name)"
    )
    s.add_argument(
        "--dimension", action="append", default=[], metavar="[NAME=]COLUMN", help="a rating dimension (repeatable)"
    )
    s.add_argument("--audit", action="append", default=[], metavar="[NAME=]COLUMN", help="an audit factor (repeatable)")
    s.add_argument(
        "--category",
        default=None,
        metavar="COLUMN",
        help="the stimulus column with the intended label (a judge study: the pairs' category)",
    )
    s.add_argument(
        "--identity-col", default=None, metavar="COLUMN", help="the stimulus column naming whose face (source) it shows"
    )
    s.add_argument(
        "--rater-attribute", action="append", default=[], metavar="[NAME=]COLUMN", help="a rater attribute (repeatable)"
    )
    s.add_argument("--model-col", default=None, help="the predictions' column naming the model")
    s.add_argument(
        "--model-kind",
        action="append",
        default=[],
        metavar="[MODEL=]KIND",
        help="vlm, fer, llm or human-proxy (a crowd or panel answer): of every model, or of one (repeatable)",
    )
    s.add_argument("--ignore", action="append", default=[], metavar="COLUMN", help="a column to leave out")
    s.add_argument("--scale", type=_scale, default=None, metavar="MIN-MAX", help="the rating scale (default: seen)")
    s.add_argument("--name", default="my-study", help="the study's name in study.yml")
    s.add_argument("--sheet", default=None, help="worksheet of an XLSX ratings file (default: the first)")
    s.set_defaults(func=_cmd_init)

    s = sub.add_parser("simulate", help="write the embedded (SIMULATED) demo study into data/raw")
    s.add_argument("--seed", type=int, default=20251129)
    s.add_argument("--no-judge", action="store_true", help="only the face-rating study, not the judge demo study")
    s.set_defaults(func=_cmd_simulate)

    s = sub.add_parser("check", help="run the Great Expectations quality gate on data/raw")
    s.add_argument("--allow-unbalanced", action="store_true", help="report design violations but do not fail")
    s.set_defaults(func=_cmd_check)

    s = sub.add_parser("build", help="dbt build the warehouse from data/raw")
    s.add_argument("--select", default=None, help="dbt selection (default: everything)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_build)

    s = sub.add_parser("infer", help="run models on the stimuli, images or texts (resumable; --dry-run first)")
    s.add_argument(
        "conditions", nargs="+", help="condition ids from seeds/model_condition_catalog.csv or --conditions-file"
    )
    s.add_argument(
        "--images",
        default=None,
        help="folder the stimuli's file_path values are relative to (not needed when the study's stimuli are texts)",
    )
    s.add_argument("--conditions-file", default=None, help="YAML file adding or overriding conditions")
    s.add_argument(
        "--strategy",
        default=None,
        choices=["context-carry", "json-single", "plain"],
        help="override the condition's prompt strategy",
    )
    s.add_argument("--run-id", default="r1", help="run / replicate id (part of every ledger key)")
    s.add_argument("--limit", type=_positive(int), default=None, help="only the first N images (by image_id)")
    s.add_argument("--base-url", default=None, help="send every selected condition to this server")
    s.add_argument(
        "--concurrency",
        action="append",
        metavar="BACKEND=N",
        help="calls in flight per provider (default openai=8, gemini=8, anthropic=4, openai-compatible=2, mlx=1)",
    )
    s.add_argument(
        "--timeout", type=_positive(float), default=None, help="seconds before one call times out (default 120)"
    )
    s.add_argument(
        "--max-attempts", type=_positive(int), default=8, help="attempts per call before it is recorded as failed"
    )
    s.add_argument(
        "--max-retry-time",
        type=_positive(float),
        default=600.0,
        help="cap, in seconds, on the time one call may spend retrying",
    )
    s.add_argument(
        "--parse-policy",
        default="strict",
        choices=["strict", "paper"],
        help="strict (default): only answers that are answers, no clamping of 502 to 9; "
        "paper: the S2.4 cascade as published, for exact reproduction",
    )
    s.add_argument("--dry-run", action="store_true", help="show calls, estimated tokens and cost; call nothing")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_infer)

    for name, func, helptext in (
        ("run", _cmd_run, "quality gate + dbt build + docs + report on data/raw"),
        ("demo", _cmd_demo, "simulate the demo study, then run"),
    ):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("--allow-unbalanced", action="store_true")
        s.add_argument("--no-progress", action="store_true", help="no progress bar (dbt's log is in logs/dbt.log)")
        s.add_argument("--no-png", action="store_true", help="skip the PNG copies of the report's figures (faster)")
        if name == "demo":
            s.add_argument("--seed", type=int, default=20251129)
        s.set_defaults(func=func)

    s = sub.add_parser("report", help="write report/index.html and report/figures/*.png from the built warehouse")
    s.add_argument("--no-png", action="store_true", help="skip the PNG copies of the figures (faster)")
    s.set_defaults(func=_cmd_report)

    s = sub.add_parser("summary", help="print the headline agreement table per condition from the built warehouse")
    s.set_defaults(func=_cmd_summary)

    s = sub.add_parser(
        "sql", help="ad hoc SQL on the warehouse: a query prints a table; no query opens harlequin (read-only)"
    )
    s.add_argument("query", nargs="?", default=None, help="SQL to run (omit for an interactive session)")
    s.add_argument("--csv", type=Path, default=None, metavar="FILE", help="write the result to FILE as CSV")
    s.add_argument("--parquet", type=Path, default=None, metavar="FILE", help="write the result to FILE as Parquet")
    s.add_argument("--write", action="store_true", help="open the warehouse writable (default: read-only)")
    s.set_defaults(func=_cmd_sql)

    s = sub.add_parser(
        "judge", help="pairwise LLM-as-a-judge over landed dialogues and candidates (the lab log's protocol)"
    )
    s.add_argument("--model", default="gpt-5.1", help="judge model id (default gpt-5.1, the log's judge)")
    s.add_argument("--judge-id", default=None, help="name of the judge in judge_verdicts (default: the model id)")
    s.add_argument("--backend", default="openai", choices=["openai", "openai-compatible", "gemini", "anthropic"])
    s.add_argument("--base-url", default=None, help="server URL for openai-compatible backends")
    s.add_argument(
        "--api-key-env",
        default=None,
        help="environment variable holding the key (default OPENAI_API_KEY; GEMINI_API_KEY with --backend gemini, "
        "ANTHROPIC_API_KEY with --backend anthropic)",
    )
    s.add_argument("--plan", default="anchor", choices=["anchor", "round-robin"])
    s.add_argument("--anchor", default=None, help="anchor candidate (default: is_anchor in the catalog, P)")
    s.add_argument("--candidates", default=None, help="comma-separated candidate ids (default: all)")
    s.add_argument("--variants", default=None, help="comma-separated variants (default: all)")
    s.add_argument("--samples", default=None, help="comma-separated sample ids (default: all)")
    s.add_argument("--limit", type=_positive(int), default=None, help="judge only the first N pairs (both orders)")
    s.add_argument(
        "--template",
        default="judge_pairwise_ko.v2.txt",
        choices=["judge_pairwise_ko.v1.txt", "judge_pairwise_ko.v2.txt"],
        help="judge prompt: v2 with the study's text fenced (default; docs/judge.md), v1 the lab log's verbatim",
    )
    s.add_argument("--temperature", type=float, default=None)
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--max-tokens", type=int, default=None)
    s.add_argument("--timeout", type=_positive(float), default=None, help="seconds per call")
    s.add_argument(
        "--concurrency", type=_positive(int), default=None, help="calls in flight (default 8 for APIs, 2 for servers)"
    )
    s.add_argument("--max-attempts", type=_positive(int), default=8)
    s.add_argument("--dry-run", action="store_true", help="count calls and estimate cost; no call made")
    s.add_argument("--no-progress", action="store_true")
    s.set_defaults(func=_cmd_judge)
    return p


class _Once(logging.Filter):
    """A message said once per command: the ledger is opened by the plan, the run and the landing."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if text in self._seen:
            return False
        self._seen.add(text)
        return True


class _Prefixed(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


@contextlib.contextmanager
def _messages_to_stderr():
    """The package logs (`logging.getLogger("rater1001...")`); the command shows its warnings and
    errors on stderr as "warning: ..." for as long as it runs. Retries and failed calls are logged
    at INFO: the ledger keeps them, the terminal shows the progress bar's counts."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_Prefixed())
    handler.addFilter(_Once())
    logger = logging.getLogger("rater1001")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def entry() -> int:
    """The `rater1001` command: `main`, then every object left is set aside from the garbage
    collector (gc.freeze), so the interpreter's collections at exit do not walk a run's imports
    and tables once more (~1.5 s at load, docs/performance.md) to free what the process's end frees
    anyway. Finalizers and atexit handlers still run; `main` called in a process that goes on (the
    tests) leaves its collector alone."""
    import gc

    rc = main()
    gc.freeze()
    return rc


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _messages_to_stderr():
        try:
            return _run(args)
        except (Exception, KeyboardInterrupt) as exc:
            rc = _known_failure(args, exc)
            if rc is None:
                raise
            return rc


def _known_failure(args: argparse.Namespace, exc: BaseException) -> int | None:
    """One short message and an exit code for a failure that is the user's or the machine's, not
    the program's: a study.yml that does not fit, no complete warehouse to read, a full disk, Ctrl-C
    during a build. None for anything else (a bug keeps its traceback)."""
    import errno

    from .forked import ChildDied
    from .freshness import WarehouseBusy, WarehouseUnavailable
    from .study import StudyError

    paths = project(args.home)
    if isinstance(exc, ChildDied):  # the kernel's out-of-memory killer, or a user's kill
        print(f"error: {exc}; nothing was published. {_kept(paths)}", file=sys.stderr)
        return EXIT_FAILED
    if isinstance(exc, StudyError):
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if isinstance(exc, WarehouseUnavailable):
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY if isinstance(exc, WarehouseBusy) else EXIT_UNREADABLE
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"error: the disk is full{where}; nothing was published. {_kept(paths)}", file=sys.stderr)
        return EXIT_FAILED
    if isinstance(exc, KeyboardInterrupt) and args.command in ("build", "run", "demo"):
        print(f"interrupted: nothing was published. {_kept(paths)}", file=sys.stderr)
        return 130
    return None


def _run(args: argparse.Namespace) -> int:
    if args.command not in WRITERS or getattr(args, "dry_run", False):
        return args.func(args)
    from .lock import DEFAULT_WAIT_S, ProjectBusy, ProjectLockError, project_lock

    wait = DEFAULT_WAIT_S if args.wait is None else args.wait
    try:
        with project_lock(project(args.home), args.command, wait):
            return args.func(args)
    except ProjectBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except ProjectLockError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(main())
