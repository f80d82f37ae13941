"""Stand-ins for png_worker.render_png in a spawned PNG worker: one that dies as the kernel's OOM
killer ends it (SIGKILL) and one that runs out of memory (MemoryError), each on one figure only, so
that the other figures are drawn and the pool must name the one that failed."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from rater1001.report.png_worker import render_png

VICTIM = "fig-f4b.png"


def killed_on_victim(spec, vl_version, target, font_folder=None):
    if Path(target).name == VICTIM:
        os.kill(os.getpid(), signal.SIGKILL)
    return render_png(spec, vl_version, target, font_folder)


def out_of_memory_on_victim(spec, vl_version, target, font_folder=None):
    if Path(target).name == VICTIM:
        raise MemoryError("JavaScript heap out of memory")
    return render_png(spec, vl_version, target, font_folder)
