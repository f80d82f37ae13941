"""What a dbt invocation left in target/run_results.json: each node's seconds and dbt's start-up."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path


def node_seconds(run_results: Path, with_kind: bool = False) -> list[tuple[str, float]]:
    """(node, seconds) slowest first; node is dbt's unique_id without its kind and project
    (alpha_delta), or with_kind without the project only (model.alpha_delta, test.not_null_...)."""

    def name(unique_id: str) -> str:
        kind, _project, rest = unique_id.split(".", 2)
        return f"{kind}.{rest}" if with_kind else rest

    results = json.loads(run_results.read_text())["results"]
    return sorted(((name(r["unique_id"]), r["execution_time"]) for r in results), key=lambda x: -x[1])


def model_seconds(nodes: list[tuple[str, float]]) -> dict[str, float]:
    """The models among `nodes` (node_seconds(..., with_kind=True)) as {model: seconds}."""
    return {n.removeprefix("model."): s for n, s in nodes if n.startswith("model.")}


def dbt_start_seconds(run_results: Path) -> float | None:
    """From the build's invocation to its first node: dbt's start-up and parse (a full parse, or
    a partial one from a kept parse state: docs/performance.md, "Parse reuse")."""
    data = json.loads(run_results.read_text())
    starts = [t["started_at"] for r in data["results"] for t in r["timing"] if t.get("started_at")]
    if not starts:
        return None
    stamp = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (stamp(min(starts)) - stamp(data["metadata"]["invocation_started_at"])).total_seconds()
