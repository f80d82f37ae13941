"""The figure PNGs, drawn by up to two spawned worker processes while the main process builds the
HTML. Each worker is driven over its own pipe, so the pool always knows which figure a worker holds:
a worker that dies (the kernel's OOM killer, a JavaScript out-of-memory abort inside vl-convert) or
runs out of memory ends the report with a FigureExportError naming that figure and the cause, and
a figure that takes longer than PNG_TIMEOUT seconds does too. Nothing waits on a dead process."""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from multiprocessing.connection import wait as wait_ready
from pathlib import Path

from ..pages import fonts
from . import png_worker
from .render import vl_version

PNG_TIMEOUT = 300.0  # seconds for one figure; an aggregated figure takes well under ten


class FigureExportError(RuntimeError):
    """A figure's PNG could not be made because its worker died, ran out of memory or hung."""


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        why = " (as the system's out-of-memory killer does)" if -exitcode == signal.SIGKILL else ""
        return f"the PNG worker was killed by {name}{why}"
    return f"the PNG worker exited with status {exitcode}"


class _Worker:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        # png_worker.render_png is looked up now, not imported by name, so a test can replace it
        self.process = ctx.Process(target=png_worker.serve, daemon=True,
                                   args=(child, png_worker.render_png, vl_version(), str(fonts.FOLDER)))
        self.process.start()
        child.close()
        self.block, self.started = None, 0.0


class PngWriter:
    """submit() hands a figure to an idle worker (or queues it); wait() collects every PNG and raises
    FigureExportError on the first figure whose worker died or hung; close() ends the workers."""

    def __init__(self, figures_dir: Path | None, workers: int = 2, timeout: float = PNG_TIMEOUT):
        self.figures_dir, self.timeout = figures_dir, timeout
        self.n_workers = max(1, min(workers, os.cpu_count() or 1))
        self.workers: list[_Worker] = []
        self.queue: deque = deque()
        self._ctx = multiprocessing.get_context("spawn")  # vl-convert's threads and DuckDB: no fork

    def start(self) -> PngWriter:
        """Every worker started now, each warming up its engine while the caller works (`run`
        starts them before its build: ~80 MB each, idle until the report)."""
        while self.figures_dir is not None and len(self.workers) < self.n_workers:
            self.workers.append(_Worker(self._ctx))
        return self

    def submit(self, block, name: str) -> None:
        if self.figures_dir is None:
            return
        self.figures_dir.mkdir(parents=True, exist_ok=True)  # a run's staged folder is made after start()
        block.png = self.figures_dir / f"{name}.png"
        self.queue.append(block)
        if len(self.workers) < self.n_workers:
            self.workers.append(_Worker(self._ctx))
        self._collect(0)

    def _dispatch(self) -> None:
        for w in self.workers:
            if w.block is None and self.queue:
                w.block, w.started = self.queue.popleft(), time.monotonic()
                try:
                    w.conn.send((w.block.spec, str(w.block.png)))
                except OSError:  # it died while idle: said below, by its sentinel
                    pass

    def _fail(self, w: _Worker, cause: str) -> None:
        b = w.block
        self.close()
        raise FigureExportError(f"figure {b.ours} ({b.png.name}) could not be drawn: {cause}")

    def _collect(self, timeout: float) -> None:
        self._dispatch()
        busy = [w for w in self.workers if w.block is not None]
        if not busy:
            return
        wait_ready([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
        for w in busy:
            try:
                answered = w.conn.poll()
                status, detail = w.conn.recv() if answered else (None, "")
            except (EOFError, OSError):
                w.process.join(5)
                self._fail(w, _death(w.process.exitcode))
            if status is None:
                if not w.process.is_alive():
                    self._fail(w, _death(w.process.exitcode))
                if time.monotonic() - w.started > self.timeout:
                    self._fail(w, f"no PNG after {self.timeout:.0f} s (the worker was stopped)")
                continue
            if status == "fatal":
                self._fail(w, detail)
            if status == "error":
                w.block.note = f"PNG export failed: {detail}"
                w.block.png = None
            w.block = None
        self._dispatch()

    def wait(self) -> None:
        """Every submitted PNG written, or FigureExportError; the workers are ended either way."""
        try:
            while self.queue or any(w.block is not None for w in self.workers):
                self._collect(1.0)
        finally:
            self.close()

    def close(self) -> None:
        """Ends the workers: idle ones are asked to stop, busy ones (a failed report) are killed."""
        for w in self.workers:
            if w.block is None and w.process.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            else:
                w.process.kill()
        for w in self.workers:
            w.process.join(5)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.conn.close()
        self.workers = []
