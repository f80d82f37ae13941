"""One unit of work: ask each step of the strategy, parse it, carry the answers forward."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...paths import REPO_ROOT
from ...study import Study
from ..runner import CallSpec, Runner, SecretRegistry, call_key
from .backends import Backend, GenRequest, make_backend
from .backends.base import DEFAULT_TIMEOUT_S
from .conditions import Condition
from .parse import DEFAULT_POLICY, StepParser, weakest
from .plan import Unit, concurrency_group, prompt_inputs
from .prompts import prompt_variables, render, template_id


def generation_settings(c: Condition) -> dict[str, Any]:
    """The settings that determine an answer (and so belong in the key). Timeouts do not."""
    return {
        "temperature": c.temperature,
        "seed": c.seed,
        "image_detail": c.image_detail,
        "thinking_budget": c.thinking_budget,
        "include_thoughts": c.include_thoughts,
        "repetition_penalty": c.repetition_penalty,
        "max_tokens": c.max_tokens,
    }


@dataclass
class InferContext:
    study: Study
    secrets: SecretRegistry = field(default_factory=SecretRegistry)
    timeout_s: float | None = None
    seeds: Path = REPO_ROOT / "seeds"
    parse_policy: str = DEFAULT_POLICY
    _backends: dict[str, Backend] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.parser = StepParser(self.study, self.parse_policy)

    def backend(self, c: Condition) -> Backend:
        with self._lock:
            if c.condition_id not in self._backends:
                self._backends[c.condition_id] = make_backend(c, self.secrets)
            return self._backends[c.condition_id]


def step_determinants(
    unit: Unit, step_name: str, template: str, prompt: str, carried: dict[str, Any]
) -> dict[str, Any]:
    c = unit.condition
    return {
        "condition_id": c.condition_id,
        "backend": c.backend,
        "model_id": c.model_id,
        "base_url": c.base_url,
        "image_id": unit.image_id,
        "image_sha256": unit.image_sha256,
        "strategy": unit.strategy.name,
        "step": step_name,
        "template": template_id(template),
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "carried": carried,
        "settings": generation_settings(c),
        "run_id": unit.run_id,
    }


def model_unit(unit: Unit, runner: Runner, ctx: InferContext) -> dict[str, Any]:
    """Run the unit's prompt steps through the runner (ledger first) and return its prediction row."""
    c = unit.condition
    carried: dict[str, Any] = {}
    values: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    for step in unit.strategy.steps:
        prompt = render(step, ctx.study, carried, text=unit.text)
        det = step_determinants(unit, step.name, step.template, prompt, carried)
        spec = CallSpec(
            key=call_key(det),
            group=concurrency_group(c),
            meta={
                "condition_id": c.condition_id,
                "image_id": unit.image_id,
                "run_id": unit.run_id,
                "strategy": unit.strategy.name,
                "step": step.name,
            },
            inputs=prompt_inputs(unit, det["template"], prompt_variables(ctx.study, carried)),
        )

        def call(prompt=prompt) -> dict[str, Any]:
            image = unit.image_path  # None for a text stimulus: the prompt carries the text
            req = GenRequest(
                prompt=prompt,
                image=image.read_bytes() if image else None,
                image_mime=unit.image_mime if image else None,
                image_path=str(image) if image else None,
                model_id=c.model_id or c.condition_id,
                temperature=c.temperature,
                seed=c.seed,
                image_detail=c.image_detail,
                thinking_budget=c.thinking_budget,
                include_thoughts=c.include_thoughts,
                repetition_penalty=c.repetition_penalty,
                max_tokens=c.max_tokens,
                timeout_s=ctx.timeout_s or c.timeout_s or DEFAULT_TIMEOUT_S,
            )
            return ctx.backend(c).generate(req)

        result = runner.call(spec, call)
        parsed = ctx.parser.parse(result.get("text"), step.fields)
        steps.append({"step": step.name, "result": result, "parse": parsed})
        values.update(parsed.values)
        if not parsed.ok:
            # The next prompt would have to carry an answer we do not have: stop here.
            break
        carried = {k: values[k] for k in ("emotion", "valence") if k in values}
    return prediction_row(unit, steps, values)


def _sum(items, key):
    vals = [s["result"].get(key) for s in items if s["result"].get(key) is not None]
    return sum(vals) if vals else None


def prediction_row(unit: Unit, steps: list[dict[str, Any]], values: dict[str, Any]) -> dict[str, Any]:
    expected = [f for s in unit.strategy.steps for f in s.fields]
    complete = all(f in values for f in expected)
    paths = [s["parse"].path for s in steps]
    thinking = []
    for s in steps:
        for t in (s["result"].get("thinking_text"), s["parse"].thinking):
            if t:
                thinking.append(f"[{s['step']}] {t}")
    return {
        "condition_id": unit.condition.condition_id,
        "image_id": unit.image_id,
        "run_id": unit.run_id,
        "strategy": unit.strategy.name,
        # The answers are named as the landing's columns: the label after the category, each
        # dimension after itself (the landing keeps the columns the study declares).
        **values,
        "valence": values.get("valence"),
        "arousal": values.get("arousal"),
        "raw_responses": json.dumps([s["result"].get("text") for s in steps], ensure_ascii=False),
        "parse_path": weakest(paths) if complete else "failed",
        "parse_detail": json.dumps([{"step": s["step"], **s["parse"].as_dict()} for s in steps], ensure_ascii=False),
        "thinking_text": "\n\n".join(thinking) or None,
        "thinking_tokens": _sum(steps, "thinking_tokens"),
        "latency_ms": _sum(steps, "latency_ms"),
        "input_tokens": _sum(steps, "input_tokens"),
        "output_tokens": _sum(steps, "output_tokens"),
    }
