"""A tqdm progress bar over units with done / failed / retrying counts and the rate."""

from __future__ import annotations

import sys
import threading

from tqdm import tqdm


class Progress:
    def __init__(self, total: int, *, enabled: bool = True, desc: str = "calls", file=None):
        self._lock = threading.Lock()
        self.done = 0
        self.failed = 0
        self.failed_calls = 0
        self.retrying_now = 0
        self._bar = tqdm(
            total=total,
            desc=desc,
            unit="unit",
            disable=not enabled,
            file=file or sys.stderr,
            dynamic_ncols=True,
            smoothing=0.1,
        )

    def _refresh(self) -> None:
        self._bar.set_postfix(done=self.done, failed=self.failed, retrying=self.retrying_now, refresh=False)

    def unit_done(self, ok: bool) -> None:
        with self._lock:
            if ok:
                self.done += 1
            else:
                self.failed += 1
            self._refresh()
            self._bar.update(1)

    def failed_call(self) -> None:
        with self._lock:
            self.failed_calls += 1

    def retrying(self, delta: int) -> None:
        with self._lock:
            self.retrying_now += delta
            self._refresh()
            self._bar.refresh()

    def close(self) -> None:
        self._bar.close()
