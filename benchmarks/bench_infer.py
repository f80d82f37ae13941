"""Throughput of `infer` with bounded concurrency vs sequential, against a local fake OpenAI
server that answers after a fixed latency (the real SDK, the real ledger with fsync, parsing and
compaction included). Prints calls per second for each and their ratio.

    .venv/bin/python benchmarks/bench_infer.py [--images 40] [--latency 0.05] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))

from fakes.models import openai_server  # noqa: E402
from fakes.project import make_infer_project, truth  # noqa: E402
from rater1001.runs.infer.run import InferOptions, run_infer  # noqa: E402


def answer(image_id, step, prompt):
    return json.dumps({"emotion": truth(image_id), "valence": 5, "arousal": 5})


def one_run(n_images: int, latency: float, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp, openai_server(answer, latency_s=latency) as srv:
        paths, images = make_infer_project(Path(tmp), n_images)
        opts = InferOptions(
            ["gpt-4o-mini"],
            images,
            base_url=srv.url + "/v1",
            strategy="json-single",
            concurrency={"openai": concurrency},
            progress=False,
        )
        started = time.perf_counter()
        result = run_infer(paths, opts)
        elapsed = time.perf_counter() - started
        assert result.calls_made == n_images and len(result.rows) == n_images
        return n_images / elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=40)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=8)
    a = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")
    seq = one_run(a.images, a.latency, 1)
    par = one_run(a.images, a.latency, a.concurrency)
    print(f"{a.images} calls, server latency {a.latency * 1000:.0f} ms")
    print(f"sequential (concurrency 1): {seq:6.1f} calls/s")
    print(f"concurrency {a.concurrency}:           {par:6.1f} calls/s")
    print(
        f"speed-up: {par / seq:.2f}x (concurrency {a.concurrency}; can exceed it because the per-call fsync waits overlap too; noisy on a busy machine)"
    )


if __name__ == "__main__":
    main()
