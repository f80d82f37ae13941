"""`rater1001 judge`: run a pair plan through an LLM judge on the shared run core.

Every call (one pair in one order) goes through runner.Runner: ledger first (a resumed run redoes
only calls that were in flight), bounded concurrency per provider, retries with backoff, progress.
Afterwards the ledger is replayed offline into data/raw/judge_verdicts.parquet (rows of other
judges and other pairs are kept), so the landed rows come from the same code path as the run.
A call that gave up lands as parse_status = call_failed with no verdicts; the next run retries it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from ...contract import JUDGE_VERDICTS
from ...landing import ManifestEntry, read_manifest, record_landing, to_arrow, write_parquet_atomic
from ...paths import ProjectPaths
from ..infer.backends import DEFAULT_CONCURRENCY
from ..runner import CallSpec, Ledger, RetryPolicy, Runner, SecretRegistry, call_key, load_prices
from ..runner.progress import Progress
from .catalog import load_axes, load_candidates
from .parse import VerdictParser
from .plan import JudgeCall, PairPlan, PlanError, build_plan
from .prompt import DEFAULT_TEMPLATE, is_fenced, parse_turns, render, template_id

BACKENDS = ("openai", "openai-compatible", "gemini", "anthropic")
UTF8_BYTES_PER_TOKEN = 3.0  # rough (Korean is ~3 bytes a syllable, ~1 token); dry run only
DEFAULT_OUTPUT_TOKENS = 200  # the log's estimate per call


@dataclass
class JudgeOptions:
    model_id: str = "gpt-5.1"
    judge_id: str | None = None  # default: the model id
    backend: str = "openai"
    base_url: str | None = None
    api_key_env: str | None = None
    plan: str = "anchor"
    anchor: str | None = None
    candidate_ids: list[str] | None = None
    variants: list[str] | None = None
    sample_ids: list[str] | None = None
    limit: int | None = None  # first N pairs (both orders each)
    template: str = DEFAULT_TEMPLATE
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None
    concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    progress: bool = True
    ledger_path: Path | None = None
    on_drain: Callable[[int, float], None] | None = None  # told when Ctrl-C waits for calls in flight

    @property
    def judge(self) -> str:
        return self.judge_id or self.model_id


def ledger_path(paths: ProjectPaths, opts: JudgeOptions) -> Path:
    return opts.ledger_path or paths.root / "data" / "ledger" / "judge.jsonl"


# --- inputs ---------------------------------------------------------------------------------------


def _read(paths: ProjectPaths, table: str) -> pd.DataFrame:
    path = paths.raw_table(table)
    if not path.exists():
        raise PlanError(f"{path}: {table} has not landed; `rater1001 ingest {table} FILE` first")
    return pq.read_table(path).to_pandas()


def load_plan(paths: ProjectPaths, opts: JudgeOptions) -> tuple[PairPlan, dict[str, dict]]:
    candidates = _read(paths, "candidates")
    dialogues = _read(paths, "dialogues")
    plan = build_plan(
        candidates,
        load_candidates(paths.seeds),
        plan=opts.plan,
        anchor=opts.anchor,
        candidate_ids=opts.candidate_ids,
        variants=opts.variants,
        sample_ids=opts.sample_ids,
    )
    if opts.limit is not None:
        plan = PairPlan(plan.calls[: 2 * opts.limit], plan.excluded)
    by_id = {}
    for n, r in enumerate(dialogues.to_dict("records"), start=1):
        r["turns_list"] = parse_turns(
            r["turns"], where=f"{paths.raw_table('dialogues')}: row {n} ({r['sample_id']}), column turns"
        )
        by_id[r["sample_id"]] = r
    missing = sorted({c.sample_id for c in plan.calls} - set(by_id))
    if missing:
        raise PlanError(f"candidates refer to sample_id {missing[:5]} not in dialogues")
    return plan, by_id


def prompt_for(call: JudgeCall, dialogue: dict, template: str) -> str:
    return render(
        next_speaker=dialogue["next_speaker"],
        situation=dialogue.get("situation"),
        turns=dialogue["turns_list"],
        response_1=call.response_1,
        response_2=call.response_2,
        template=template,
    )


def settings(opts: JudgeOptions) -> dict[str, Any]:
    return {"temperature": opts.temperature, "seed": opts.seed, "max_tokens": opts.max_tokens}


def determinants(call: JudgeCall, prompt: str, opts: JudgeOptions) -> dict[str, Any]:
    return {
        "kind": "judge",
        "backend": opts.backend,
        "model_id": opts.model_id,
        "base_url": opts.base_url,
        "template": template_id(opts.template),
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "settings": settings(opts),
        "sample_id": call.sample_id,
        "variant": call.variant,
        "candidate_a": call.candidate_a,
        "candidate_b": call.candidate_b,
        "order": call.order,
    }


# --- backends (text-only requests on the infer backends) --------------------------------------------


def make_text_backend(opts: JudgeOptions, secrets: SecretRegistry):
    """The infer backends (one place builds them), sent text-only requests (GenRequest.image is None)."""
    from ..infer.backends import make_backend
    from ..infer.conditions import Condition

    if opts.backend not in BACKENDS:
        raise PlanError(f"unknown judge backend {opts.backend!r}; expected one of {', '.join(BACKENDS)}")
    if opts.backend == "openai-compatible" and not opts.base_url:
        raise PlanError("backend openai-compatible needs --base-url")
    return make_backend(
        Condition(
            condition_id=opts.judge,
            display_name=opts.judge,
            kind="llm",
            backend=opts.backend,
            thinking=False,
            base_url=opts.base_url,
            api_key_env=opts.api_key_env,
        ),
        secrets,
    )


def _request(prompt: str, opts: JudgeOptions):
    from ..infer.backends.base import DEFAULT_TIMEOUT_S, GenRequest

    return GenRequest(
        prompt=prompt,
        image=None,
        image_mime=None,
        model_id=opts.model_id,
        temperature=opts.temperature,
        seed=opts.seed,
        max_tokens=opts.max_tokens,
        timeout_s=opts.timeout_s or DEFAULT_TIMEOUT_S,
    )


# --- the run --------------------------------------------------------------------------------------


@dataclass
class JudgeResult:
    rows: pd.DataFrame
    n_calls_planned: int
    excluded: pd.DataFrame
    calls_made: int = 0
    calls_cached: int = 0
    calls_failed: int = 0
    retries: int = 0
    cost_usd: float | None = None
    verdicts_path: Path | None = None

    def summary(self) -> str:
        parsed = self.rows["parse_status"].value_counts().to_dict() if len(self.rows) else {}
        skipped = int(self.excluded["n_cells"].sum()) if len(self.excluded) else 0
        cost = "unknown" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        return (
            f"judge: {self.n_calls_planned} calls planned ({skipped} candidate cells excluded), "
            f"{self.calls_made} made, {self.calls_cached} from the ledger, {self.calls_failed} failed, "
            f"{self.retries} retries; parse {parsed}; cost {cost}; landed in {self.verdicts_path}"
        )


def _work(call: JudgeCall, runner: Runner, ctx: dict) -> dict[str, Any]:
    opts: JudgeOptions = ctx["opts"]
    prompt = prompt_for(call, ctx["dialogues"][call.sample_id], opts.template)
    key = call_key(determinants(call, prompt, opts))
    backend = ctx["backend"]
    meta = {
        "judge_id": opts.judge,
        "sample_id": call.sample_id,
        "variant": call.variant,
        "candidate_a": call.candidate_a,
        "candidate_b": call.candidate_b,
        "order": call.order,
    }
    group = backend.concurrency_group() if backend is not None else f"{opts.backend}:{opts.base_url or 'default'}"
    return runner.call(
        CallSpec(key, group, meta, prompt_inputs(call, prompt, opts)), lambda: backend.generate(_request(prompt, opts))
    )


def prompt_inputs(call: JudgeCall, prompt: str, opts: JudgeOptions) -> dict[str, Any]:
    """What the call's prompt was made of, for its ledger line: the dialogue and the two responses
    by id (their texts are in the landed tables) and the rendered prompt by its digest."""
    shown = (call.candidate_a, call.candidate_b) if call.order == "AB" else (call.candidate_b, call.candidate_a)
    return {
        "template": template_id(opts.template),
        "stimulus_id": call.sample_id,
        "variables": {"variant": call.variant, "response_1": shown[0], "response_2": shown[1]},
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
    }


def verdict_row(
    call: JudgeCall, result: dict[str, Any] | None, opts: JudgeOptions, parser: VerdictParser, price
) -> dict[str, Any]:
    base = {
        "judge_id": opts.judge,
        "judge_kind": "llm",
        "judge_model": opts.model_id,
        "sample_id": call.sample_id,
        "variant": call.variant,
        "candidate_a": call.candidate_a,
        "candidate_b": call.candidate_b,
        "order": call.order,
        "prompt_version": template_id(opts.template),
    }
    if result is None:
        return {**base, "parse_status": "call_failed"}
    parsed = parser.parse(result.get("text"), fenced=is_fenced(opts.template))
    tin, tout = result.get("input_tokens"), result.get("output_tokens")
    cost = (
        price.cost_usd(tin or 0, tout or 0, result.get("thinking_tokens") or 0)
        if price is not None and tin is not None and tout is not None
        else None
    )
    return {
        **base,
        **{a.column: parsed.verdicts[a.axis_id] for a in parser.axes},
        "reason": parsed.reason,
        "raw_text": result.get("text"),
        "parse_status": parsed.status,
        "input_tokens": tin,
        "output_tokens": tout,
        "cost_usd": cost,
        "latency_ms": result.get("latency_ms"),
    }


def run_judge(paths: ProjectPaths, opts: JudgeOptions, *, secrets: SecretRegistry | None = None) -> JudgeResult:
    plan, dialogues = load_plan(paths, opts)
    secrets = secrets or SecretRegistry()
    backend = make_text_backend(opts, secrets)  # fails before the first call when a key is missing
    limit = opts.concurrency or DEFAULT_CONCURRENCY.get(opts.backend, 2)
    ctx = {"opts": opts, "dialogues": dialogues, "backend": backend}
    with Ledger(ledger_path(paths, opts), secrets) as ledger:
        progress = Progress(total=len(plan.calls), enabled=opts.progress, desc=f"judge {opts.judge}")
        runner = Runner(
            ledger, {backend.concurrency_group(): limit}, opts.retry, progress=progress, on_drain=opts.on_drain
        )
        result = runner.run_and_land(
            plan.calls, lambda c, r: _work(c, r, ctx), lambda: compact(paths, plan, ledger, ctx)
        )
    result.calls_made = runner.stats.calls_made
    # This run's ledger hits, not the compaction's replay (which reads every call from the ledger).
    result.calls_cached = runner.stats.calls_cached
    result.calls_failed = runner.stats.calls_failed
    result.retries = runner.stats.retries
    return result


def compact(paths: ProjectPaths, plan: PairPlan, ledger: Ledger, ctx: dict) -> JudgeResult:
    opts: JudgeOptions = ctx["opts"]
    parser = VerdictParser(load_axes(paths.seeds))
    price = load_prices(paths.seeds / "api_prices.csv").lookup(opts.backend, opts.model_id)
    offline = Runner(ledger, offline=True)
    rows = []
    for call, result, err in offline.run_units(
        plan.calls, lambda c, r: _work(c, r, {**ctx, "backend": None}), workers=1
    ):
        rows.append(verdict_row(call, result if err is None else None, opts, parser, price))
    new = pd.DataFrame(rows, columns=JUDGE_VERDICTS.column_names)
    target = paths.raw_table("judge_verdicts")
    kept_simulated = _write_verdicts(paths, new)
    record_landing(
        paths,
        ManifestEntry(
            "judge_verdicts",
            f"rater1001 judge ({ledger.path})",
            None,
            int(len(pq.read_table(target))),
            0,
            kept_simulated,
        ),
    )
    costs = new["cost_usd"].dropna()
    return JudgeResult(
        new,
        len(plan.calls),
        plan.excluded,
        cost_usd=float(costs.sum()) if len(costs) == len(new) and len(new) else None,
        verdicts_path=target,
    )


def _write_verdicts(paths: ProjectPaths, new: pd.DataFrame) -> bool:
    """Replace rows with the same key, keep everything else. Returns whether kept rows came from a
    simulated landing."""
    target = paths.raw_table("judge_verdicts")
    key = list(JUDGE_VERDICTS.key)
    merged, kept_simulated = new, False
    if target.exists():
        old = pq.read_table(target).to_pandas()
        new_keys = set(map(tuple, new[key].astype(str).to_numpy()))
        old = old[[tuple(k) not in new_keys for k in old[key].astype(str).to_numpy()]]
        if len(old):
            manifest = read_manifest(paths)
            prev = manifest[manifest["table_name"] == "judge_verdicts"]
            kept_simulated = bool(len(prev)) and bool(prev["is_simulated"].any())
            merged = (
                pd.concat([old.reindex(columns=JUDGE_VERDICTS.column_names), new], ignore_index=True)
                if len(new)
                else old
            )
    write_parquet_atomic(to_arrow(merged, JUDGE_VERDICTS), target)
    return kept_simulated


def dry_run(paths: ProjectPaths, opts: JudgeOptions) -> dict[str, Any]:
    """Calls planned and still to make (finished calls are free), estimated tokens and cost. No key, no call."""
    plan, dialogues = load_plan(paths, opts)
    price = load_prices(paths.seeds / "api_prices.csv").lookup(opts.backend, opts.model_id)
    todo, in_tok = 0, 0.0
    path = ledger_path(paths, opts)
    ledger = Ledger(path, read_only=True) if path.exists() else None
    try:
        for call in plan.calls:
            prompt = prompt_for(call, dialogues[call.sample_id], opts.template)
            if ledger is not None and call_key(determinants(call, prompt, opts)) in ledger:
                continue
            todo += 1
            in_tok += len(prompt.encode("utf-8")) / UTF8_BYTES_PER_TOKEN
    finally:
        if ledger is not None:
            ledger.close()
    # The price seed's per-call output estimate is for one-word emotion answers; a verdict with a
    # reason is ~200 tokens (the log's estimate).
    out_tok = todo * DEFAULT_OUTPUT_TOKENS
    return {
        "judge_id": opts.judge,
        "model_id": opts.model_id,
        "calls_planned": len(plan.calls),
        "calls_todo": todo,
        "excluded_cells": int(plan.excluded["n_cells"].sum()) if len(plan.excluded) else 0,
        "est_input_tokens": int(in_tok),
        "est_output_tokens": int(out_tok),
        "est_cost_usd": None if price is None else round(price.cost_usd(in_tok, out_tok), 4),
        "note": ""
        if price is not None
        else f"no price row for ({opts.backend}, {opts.model_id}) in seeds/api_prices.csv",
    }
