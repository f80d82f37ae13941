"""The shape of one `dbt build` from its target/ folder (run_results.json and manifest.json, as
`bench_pipeline.py --keep DIR` keeps them in DIR/scale<k>/target): how busy each dbt thread was and
how long it sat idle, how long only one node ran, the critical path through the graph (each node's
own wall seconds), how long two Python models ran at once (they share one interpreter lock), each
kind's node count and seconds, and when the longest nodes started.

    .venv/bin/python benchmarks/build_shape.py DIR/scale1/target [--top 12]

Node seconds are wall: on a loaded machine they carry the wait for a core, so compare the shares,
not the seconds, between runs.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from datetime import datetime
from pathlib import Path


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def node_spans(run_results: dict) -> dict[str, dict]:
    """unique_id -> start and end (compile start to execute end, epoch seconds) and dbt's thread."""
    spans = {}
    for r in run_results["results"]:
        timing = {t["name"]: t for t in r["timing"] if t.get("started_at")}
        if not timing:
            continue
        first = timing.get("compile") or timing["execute"]
        last = timing.get("execute") or timing["compile"]
        spans[r["unique_id"]] = {
            "start": _stamp(first["started_at"]),
            "end": _stamp(last["completed_at"]),
            "thread": r["thread_id"],
        }
    return spans


def kind_of(unique_id: str, manifest: dict) -> str:
    kind = unique_id.split(".", 1)[0]
    if kind == "model":
        return f"model ({manifest['nodes'][unique_id].get('language', 'sql')})"
    return kind


def critical_path(spans: dict[str, dict], manifest: dict) -> tuple[float, list[str]]:
    """The longest chain of dependent nodes, each weighted by its own wall seconds."""
    deps = {
        u: [d for d in manifest["nodes"].get(u, {}).get("depends_on", {}).get("nodes", []) if d in spans] for u in spans
    }
    best: dict[str, tuple[float, str | None]] = {}

    def longest(u: str) -> tuple[float, str | None]:
        if u not in best:
            before = max(((longest(d)[0], d) for d in deps[u]), default=(0.0, None))
            best[u] = (before[0] + spans[u]["end"] - spans[u]["start"], before[1])
        return best[u]

    for u in sorted(spans, key=lambda u: spans[u]["start"]):  # shallow recursion: parents first
        longest(u)
    end = max(spans, key=lambda u: best[u][0])
    chain, u = [], end
    while u:
        chain.append(u)
        u = best[u][1]
    return best[end][0], chain[::-1]


def concurrency(spans: dict[str, dict]) -> dict[int, float]:
    """Seconds during which 0, 1, 2, ... nodes ran, from the first node's start to the last's end."""
    events = sorted([(s["start"], 1) for s in spans.values()] + [(s["end"], -1) for s in spans.values()])
    running, last, out = 0, events[0][0], defaultdict(float)
    for at, step in events:
        out[running] += at - last
        running, last = running + step, at
    return dict(sorted(out.items()))


def overlap(spans: list[dict]) -> float:
    """Seconds during which at least two of `spans` ran at once."""
    events = sorted([(s["start"], 1) for s in spans] + [(s["end"], -1) for s in spans])
    running, last, total = 0, 0.0, 0.0
    for at, step in events:
        if running >= 2:
            total += at - last
        running, last = running + step, at
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target", type=Path, help="a build's target/ folder")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    results = json.loads((args.target / "run_results.json").read_text())
    manifest = json.loads((args.target / "manifest.json").read_text())
    spans = node_spans(results)
    t0 = min(s["start"] for s in spans.values())
    t1 = max(s["end"] for s in spans.values())
    print(
        f"{len(spans)} nodes; first node start to last node end {t1 - t0:.1f} s (dbt elapsed {results['elapsed_time']:.1f} s)"
    )
    by_thread = defaultdict(list)
    for s in spans.values():
        by_thread[s["thread"]].append(s)
    for thread, ss in sorted(by_thread.items()):
        ss.sort(key=lambda s: s["start"])
        busy = sum(s["end"] - s["start"] for s in ss)
        gaps = sum(max(0.0, b["start"] - a["end"]) for a, b in zip(ss, ss[1:]))
        print(f"  {thread:<20} {len(ss):>4} nodes, busy {busy:7.1f} s, idle between its nodes {gaps:6.1f} s")
    print("  seconds with n nodes running: " + ", ".join(f"{n}: {s:.1f}" for n, s in concurrency(spans).items()))
    kinds = defaultdict(lambda: [0, 0.0])
    for u, s in spans.items():
        k = kinds[kind_of(u, manifest)]
        k[0] += 1
        k[1] += s["end"] - s["start"]
    for k, (n, secs) in sorted(kinds.items(), key=lambda x: -x[1][1]):
        print(f"  {k:<16} {n:>4} nodes {secs:8.1f} s  ({secs / n:.3f} s each)")
    python = [s for u, s in spans.items() if kind_of(u, manifest) == "model (python)"]
    print(f"  two Python models at once (one interpreter lock): {overlap(python):.1f} s")
    length, chain = critical_path(spans, manifest)
    print(f"critical path {length:.1f} s of {t1 - t0:.1f} s:")
    for u in chain:
        print(f"  {spans[u]['end'] - spans[u]['start']:7.2f}  {u}")
    done_before = sorted(s["end"] for s in spans.values())
    print(f"longest {args.top} nodes: seconds, start (s after the first node), nodes finished before it")
    for u in sorted(spans, key=lambda u: spans[u]["start"] - spans[u]["end"])[: args.top]:
        s = spans[u]
        finished = sum(1 for e in done_before if e <= s["start"])
        print(f"  {s['end'] - s['start']:7.2f} {s['start'] - t0:7.1f} {finished:>5}  {u}")


if __name__ == "__main__":
    main()
