"""What dbt's unheard events cost a build: warm `dbt build`s of one small SIMULATED study (the test
suite's small design, seed 5), alternately with rater1001.unheard_events installed and with
dbt_common's own functions, in one process. Prints each build's process CPU, how many events went
through dbt's own fire_event as messages, and the ratio of the medians (docs/performance.md,
"dbt's events that nobody keeps").

    .venv/bin/python benchmarks/bench_build_events.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rater1001 import unheard_events
from rater1001.paths import project
from rater1001.simulate import simulate_study
from rater1001.warehouse import dbt_build


def _current() -> dict[tuple[type, str], object]:
    return {(cls, attr): getattr(cls, attr) for cls, attr in unheard_events.ORIGINALS}


def _use(functions: dict[tuple[type, str], object]) -> None:
    for (cls, attr), function in functions.items():
        setattr(cls, attr, function)


def _count_fired(counter: list[int]) -> None:
    """Count the events dbt's own fire_event turns into messages (module global, read per call)."""
    import dbt_common.events.event_manager as manager

    make_message = manager.msg_from_base_event

    def counted(event, level=None):
        counter[0] += 1
        return make_message(event, level=level)

    manager.msg_from_base_event = counted


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    paths = project(Path(tempfile.mkdtemp(prefix="bench-events-")))
    simulate_study(paths, seed=5, n_identities=2, ratings_per_image=5, images_per_rater=12)
    unheard_events.install()
    variants = {"dbt's own": dict(unheard_events.ORIGINALS), "unheard_events": _current()}
    fired = [0]
    _count_fired(fired)
    assert dbt_build(paths), "the warm-up build failed"
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    messages: dict[str, list[int]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, functions in variants.items():
            _use(functions)
            fired[0] = 0
            before = time.process_time()
            ok = dbt_build(paths)
            cpu[name].append(time.process_time() - before)
            messages[name].append(fired[0])
            assert ok, f"the build with {name} events failed"
    _use(variants["unheard_events"])
    for name, values in cpu.items():
        print(
            f"{name:15s} CPU per build: median {statistics.median(values):.2f} s {[round(v, 2) for v in values]}; "
            f"events fired as messages: {statistics.median(messages[name]):.0f}"
        )
    ratio = statistics.median(cpu["unheard_events"]) / statistics.median(cpu["dbt's own"])
    print(f"ratio of the medians, unheard_events / dbt's own: {ratio:.2f}")


if __name__ == "__main__":
    main()
