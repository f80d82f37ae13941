"""Orchestration of `rater1001 infer`: plan, dry run, run, compact, summarise."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from ...contract import MODEL_CONDITIONS, MODEL_PREDICTIONS, for_study
from ...landing import ManifestEntry, read_manifest, record_landing, to_arrow, write_parquet_atomic
from ...paths import ProjectPaths
from ...study import load_study
from ..runner import Ledger, NotInLedger, PriceTable, RetryPolicy, Runner, SecretRegistry, load_prices
from ..runner.progress import Progress
from .backends import DEFAULT_CONCURRENCY
from .conditions import Condition, load_conditions
from .execute import InferContext, model_unit
from .fer_unit import fer_unit
from .parse import DEFAULT_POLICY, PATH_ORDER
from .plan import PlanError, Refusal, Unit, concurrency_group, plan_text_units, plan_units, read_images, read_texts
from .prompts import label_field, render

CHARS_PER_TOKEN = 4.0  # rough text-token estimate for the dry run only
URL_BACKENDS = ("openai", "openai-compatible", "gemini", "anthropic")  # backends that talk to a URL


@dataclass
class InferOptions:
    condition_ids: list[str]
    images_dir: Path | None  # the folder image stimuli's file_path values are relative to; None for texts
    conditions_file: Path | None = None
    strategy: str | None = None
    run_id: str = "r1"
    limit: int | None = None
    image_ids: list[str] | None = None
    base_url: str | None = None
    concurrency: dict[str, int] = field(default_factory=dict)  # backend or group -> limit
    timeout_s: float | None = None
    retry: RetryPolicy = RetryPolicy()
    progress: bool = True
    ledger_path: Path | None = None
    parse_policy: str = DEFAULT_POLICY  # strict, or paper (S2.4 as published); not part of any key
    on_drain: Callable[[int, float], None] | None = None  # told when Ctrl-C waits for calls in flight


def ledger_path(paths: ProjectPaths, opts: InferOptions) -> Path:
    return opts.ledger_path or paths.root / "data" / "ledger" / "infer.jsonl"


def select_conditions(paths: ProjectPaths, opts: InferOptions) -> list[Condition]:
    available = load_conditions(paths.seeds, opts.conditions_file)
    unknown = [c for c in opts.condition_ids if c not in available]
    if unknown:
        raise PlanError(f"unknown condition(s) {unknown}; known: {', '.join(sorted(available))}")
    chosen = [available[c] for c in opts.condition_ids]
    if opts.base_url:
        # An API condition keeps its SDK (pointed at another URL, e.g. a proxy); an in-process or
        # imported condition is sent to the server through its OpenAI-compatible API.
        chosen = [
            replace(c, base_url=opts.base_url, backend=c.backend if c.backend in URL_BACKENDS else "openai-compatible")
            for c in chosen
        ]
    return chosen


def make_plan(paths: ProjectPaths, opts: InferOptions, conditions: list[Condition]) -> tuple[list[Unit], list[Refusal]]:
    """The units to run and the stimuli refused (outside the images folder, not an image, beyond a
    provider's limits, an empty text). Refused stimuli do not stop the others; a plan with nothing
    left does."""
    study = load_study(paths)
    if study.stimulus_kind == "text":
        texts, refused = read_texts(paths, limit=opts.limit, image_ids=opts.image_ids)
        units = plan_text_units(conditions, texts, opts.run_id, study, opts.strategy)
    else:
        if opts.images_dir is None:
            raise PlanError("this study's stimuli are images: say where they are with --images DIR")
        images, refused = read_images(paths, opts.images_dir, limit=opts.limit, image_ids=opts.image_ids)
        units, too_big = plan_units(conditions, images, opts.run_id, opts.strategy)
        refused += too_big
    if refused and not units:
        more = f"\n(and {len(refused) - 10} more)" if len(refused) > 10 else ""
        raise PlanError("no stimulus can be sent:\n" + "\n".join(r.message for r in refused[:10]) + more)
    return units, refused


def infer_unit(unit: Unit, runner: Runner, ctx: InferContext) -> dict[str, Any]:
    """One unit through the runner (ledger first), its prediction row back: the in-process FER
    classifier's one call, or a model's prompt steps."""
    return (fer_unit if unit.condition.backend == "fer" else model_unit)(unit, runner, ctx)


def concurrency_limits(conditions: list[Condition], overrides: dict[str, int]) -> dict[str, int]:
    limits = {}
    for c in conditions:
        g = concurrency_group(c)
        limits[g] = overrides.get(g, overrides.get(c.backend, DEFAULT_CONCURRENCY.get(c.backend, 2)))
    return limits


def prices(paths: ProjectPaths) -> PriceTable:
    return load_prices(paths.seeds / "api_prices.csv")


# --- dry run ---------------------------------------------------------------------------------


def dry_run(paths: ProjectPaths, opts: InferOptions) -> pd.DataFrame:
    """Per condition: units, calls still to make (finished calls in the ledger are free), and
    estimated tokens and cost from the price seed. Needs no key and makes no call. The stimuli
    that would be refused are in `.attrs["refused"]`."""
    study = load_study(paths)
    conditions = select_conditions(paths, opts)
    units, refused = make_plan(paths, opts, conditions)
    table = prices(paths)
    cached: dict[str, int] = {}
    if ledger_path(paths, opts).exists():
        with Ledger(ledger_path(paths, opts), read_only=True) as ledger:
            cached = _cached_calls(
                units, ledger, InferContext(study, parse_policy=opts.parse_policy, seeds=paths.seeds)
            )
    rows = []
    for c in conditions:
        cu = [u for u in units if u.condition.condition_id == c.condition_id]
        if not cu:
            continue
        steps = cu[0].strategy.steps
        calls_total = len(cu) * len(steps)
        calls_todo = calls_total - cached.get(c.condition_id, 0)
        # Prompt length with typical carried answers; the label list and scale come from the study.
        if c.backend == "fer":  # in-process classifier: no prompt, no tokens, no cost
            rows.append(
                {
                    "condition_id": c.condition_id,
                    "units": len(cu),
                    "calls_total": calls_total,
                    "calls_todo": calls_todo,
                    "est_input_tokens": 0,
                    "est_output_tokens": 0,
                    "est_thinking_tokens": 0,
                    "est_cost_usd": 0.0,
                    "note": "local model",
                }
            )
            continue
        if cu[0].text is not None:  # the prompt carries the text itself, and there is no image
            prompt_tokens = sum(len(render(steps[0], study, text=u.text)) for u in cu) / CHARS_PER_TOKEN / len(cu)
        else:
            label = label_field(study)
            example = {"emotion": study.levels(label)[0] if label else "", "valence": study.scale_max}
            prompt_tokens = (
                sum(len(render(s, study, {k: example[k] for k in s.carries})) for s in steps)
                / CHARS_PER_TOKEN
                / len(steps)
            )
        price = table.lookup(c.backend, c.model_id or "")
        if price is None:
            rows.append(
                {
                    "condition_id": c.condition_id,
                    "units": len(cu),
                    "calls_total": calls_total,
                    "calls_todo": calls_todo,
                    "est_input_tokens": None,
                    "est_output_tokens": None,
                    "est_thinking_tokens": None,
                    "est_cost_usd": None,
                    "note": f"no price row for ({c.backend}, {c.model_id}) in seeds/api_prices.csv",
                }
            )
            continue
        in_tok = calls_todo * (prompt_tokens + (price.image_input_tokens if cu[0].text is None else 0))
        out_tok = calls_todo * price.est_output_tokens_per_call
        think_tok = calls_todo * price.est_thinking_tokens_per_call if c.thinking else 0
        rows.append(
            {
                "condition_id": c.condition_id,
                "units": len(cu),
                "calls_total": calls_total,
                "calls_todo": calls_todo,
                "est_input_tokens": round(in_tok),
                "est_output_tokens": round(out_tok),
                "est_thinking_tokens": round(think_tok),
                "est_cost_usd": round(price.cost_usd(in_tok, out_tok, think_tok), 4),
                "note": "",
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["refused"] = refused
    return out


def _cached_calls(units: list[Unit], ledger: Ledger, ctx: InferContext) -> dict[str, int]:
    """Calls of these units already finished: replay each unit offline until the first miss."""
    counter: dict[str, int] = {}
    runner = Runner(ledger, offline=True)
    for u in units:
        before = runner.stats.calls_cached
        try:
            infer_unit(u, runner, ctx)
        except NotInLedger:
            pass
        counter[u.condition.condition_id] = (
            counter.get(u.condition.condition_id, 0) + runner.stats.calls_cached - before
        )
    return counter


# --- the run ---------------------------------------------------------------------------------


@dataclass
class InferResult:
    rows: pd.DataFrame  # the predictions of this run's units that are complete in the ledger
    incomplete: list[tuple[str, str, str]]  # (condition_id, image_id, error) of units without an answer
    summary: pd.DataFrame
    predictions_path: Path
    calls_made: int = 0  # by this run (the counts below are filled in by run_infer)
    calls_cached: int = 0  # answered from the ledger
    calls_failed: int = 0
    retries: int = 0
    refused: list[Refusal] = field(default_factory=list)  # stimuli not sent, with the reason


def refused_count(refused: list[Refusal], condition_id: str) -> int:
    return sum(1 for r in refused if r.condition_id in (None, condition_id))


def run_infer(paths: ProjectPaths, opts: InferOptions, *, secrets: SecretRegistry | None = None) -> InferResult:
    study = load_study(paths)
    conditions = select_conditions(paths, opts)
    units, refused = make_plan(paths, opts, conditions)
    secrets = secrets or SecretRegistry()
    ctx = InferContext(
        study, secrets=secrets, timeout_s=opts.timeout_s, parse_policy=opts.parse_policy, seeds=paths.seeds
    )
    for c in conditions:  # fail before the first call when a key is missing
        ctx.backend(c)
    limits = concurrency_limits(conditions, opts.concurrency)
    with Ledger(ledger_path(paths, opts), secrets) as ledger:
        # Parsing is redone from the raw texts at every compaction, so the policy is a property of
        # the run (recorded here and in every row's parse_detail), never of a call's key.
        ledger.append(
            {
                "status": "run",
                "command": "infer",
                "parse_policy": opts.parse_policy,
                "run_id": opts.run_id,
                "conditions": [c.condition_id for c in conditions],
            }
        )
        progress = Progress(total=len(units), enabled=opts.progress, desc="infer")
        runner = Runner(ledger, limits, opts.retry, progress=progress, on_drain=opts.on_drain)
        result = runner.run_and_land(
            units, lambda u, r: infer_unit(u, r, ctx), lambda: compact(paths, units, ledger, ctx, conditions)
        )
    result.refused = refused
    result.summary.insert(2, "refused", [refused_count(refused, c) for c in result.summary["condition_id"]])
    result.calls_made = runner.stats.calls_made
    result.calls_cached = runner.stats.calls_cached
    result.calls_failed = runner.stats.calls_failed
    result.retries = runner.stats.retries
    return result


def compact(
    paths: ProjectPaths, units: list[Unit], ledger: Ledger, ctx: InferContext, conditions: list[Condition]
) -> InferResult:
    """Ledger -> data/raw/model_predictions.parquet (and model_conditions). Replays every unit
    offline, so the rows come from the same code path as the run; rows of other (condition, run)
    pairs already in the file are kept."""
    runner = Runner(ledger, offline=True)
    failures = _failures(ledger)
    rows, incomplete = [], []
    for unit, row, err in runner.run_units(units, lambda u, r: infer_unit(u, r, ctx), workers=1):
        if err is None:
            rows.append(row)
        else:
            last = failures.get((unit.condition.condition_id, unit.image_id, unit.run_id))
            why = "not run yet" if isinstance(err, NotInLedger) else f"{type(err).__name__}: {err}"
            incomplete.append((unit.condition.condition_id, unit.image_id, last or why))
    spec = for_study(MODEL_PREDICTIONS, ctx.study)  # one column per model dimension the study declares
    new = pd.DataFrame(rows, columns=spec.column_names)
    out_path = paths.raw_table("model_predictions")
    kept_simulated = _write_predictions(
        paths, new, {(c.condition_id, units[0].run_id) for c in conditions} if units else set(), spec
    )
    _upsert_conditions(paths, conditions)
    record_landing(
        paths,
        ManifestEntry(
            "model_predictions",
            f"rater1001 infer ({ledger.path}; parse policy {ctx.parse_policy})",
            None,
            int(len(pq.read_table(out_path))),
            0,
            kept_simulated,
        ),
    )
    return InferResult(new, incomplete, summarise(new, units, incomplete, conditions, prices(paths)), out_path)


def _failures(ledger: Ledger) -> dict[tuple[str, str, str], str]:
    """Last failure message per (condition, image, run), for the report of incomplete units."""
    out = {}
    for rec in ledger.records():
        if rec.get("status") == "failed":
            m = rec.get("meta", {})
            out[(m.get("condition_id"), m.get("image_id"), m.get("run_id"))] = rec.get("error", {}).get("message")
    return out


def _write_predictions(paths: ProjectPaths, new: pd.DataFrame, replaced: set[tuple[str, str]], spec) -> bool:
    """Returns whether rows kept from the previous file came from a simulated landing."""
    target = paths.raw_table("model_predictions")
    kept_simulated = False
    frames = [new]
    if target.exists():
        old = pq.read_table(target).to_pandas()
        keep = ~pd.Series(
            [(c, r) in replaced for c, r in zip(old["condition_id"], old["run_id"])], index=old.index, dtype=bool
        )
        old = old[keep]
        if len(old):
            manifest = read_manifest(paths)
            prev = manifest[manifest["table_name"] == "model_predictions"]
            kept_simulated = bool(len(prev)) and bool(prev["is_simulated"].any())
            frames.insert(0, old.reindex(columns=spec.column_names))
    merged = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) else new
    write_parquet_atomic(to_arrow(merged, spec), target)
    return kept_simulated


def _upsert_conditions(paths: ProjectPaths, conditions: list[Condition]) -> None:
    target = paths.raw_table("model_conditions")
    new = pd.DataFrame([c.contract_row() for c in conditions], columns=MODEL_CONDITIONS.column_names)
    ids = set(new["condition_id"])
    if target.exists():
        old = pq.read_table(target).to_pandas()
        old = old[~old["condition_id"].isin(ids)].reindex(columns=MODEL_CONDITIONS.column_names)
        new = pd.concat([old, new], ignore_index=True) if len(old) else new
    write_parquet_atomic(to_arrow(new, MODEL_CONDITIONS), target)
    manifest = read_manifest(paths)
    prev = manifest[manifest["table_name"] == "model_conditions"]
    record_landing(
        paths,
        ManifestEntry(
            "model_conditions",
            "seeds/model_condition_catalog.csv (rater1001 infer)",
            None,
            len(new),
            0,
            bool(len(prev)) and bool(prev["is_simulated"].any()),
        ),
    )


# --- the summary -----------------------------------------------------------------------------


def summarise(
    rows: pd.DataFrame, units: list[Unit], incomplete, conditions: list[Condition], table: PriceTable
) -> pd.DataFrame:
    out = []
    for c in conditions:
        r = rows[rows["condition_id"] == c.condition_id]
        planned = sum(1 for u in units if u.condition.condition_id == c.condition_id)
        n = len(r)
        shares = {f"share_{p}": (float((r["parse_path"] == p).mean()) if n else None) for p in PATH_ORDER}
        clamps = (
            sum(sum(len(step.get("clamped") or {}) for step in json.loads(d)) for d in r["parse_detail"].dropna())
            if n
            else 0
        )
        tin = r["input_tokens"].dropna().sum() if n else 0
        tout = r["output_tokens"].dropna().sum() if n else 0
        tthink = r["thinking_tokens"].dropna().sum() if n else 0
        price = table.lookup(c.backend, c.model_id or "")
        out.append(
            {
                "condition_id": c.condition_id,
                "planned": planned,
                "predictions": n,
                "incomplete": sum(1 for i in incomplete if i[0] == c.condition_id),
                **shares,
                "clamped_values": clamps,
                "input_tokens": int(tin),
                "output_tokens": int(tout),
                "thinking_tokens": int(tthink),
                # Gemini reports candidates and thoughts separately; OpenAI's completion count already
                # includes its reasoning tokens, so they are not added twice.
                "cost_usd": (
                    round(price.cost_usd(tin, tout, tthink if c.backend == "gemini" else 0), 4) if price else None
                ),
                "latency_ms_mean": float(r["latency_ms"].mean()) if n and r["latency_ms"].notna().any() else None,
                "latency_ms_p95": float(r["latency_ms"].quantile(0.95))
                if n and r["latency_ms"].notna().any()
                else None,
            }
        )
    return pd.DataFrame(out)
