"""An append-only, per-call ledger in JSON Lines, fsynced after every record.

Why JSONL and not SQLite/DuckDB: each finished call is one `write` of one line followed by
`fsync`, so a crash (kill -9, power loss) can only tear the line being written; that torn tail is
detected and cut off when the ledger is next opened. Many worker threads append under one lock
without a database's single-writer transaction machinery, the file is readable with `grep`/`jq`
and DuckDB's `read_json`, and compaction to Parquet is a separate, atomic step. A record is never
rewritten: a call that failed and later succeeded has a `failed` line and then an `ok` line.

Every line is an event; `status` says which kind (docs/infer.md, "Ledger lines"):
`run` (a command started, with its settings), `retry` (one attempt of a call failed and the call
waits `wait_s` before attempt `attempt` + 1; `error` has kind, HTTP status and message), `failed`
(the call gave up after `attempts`) and `ok` (its `result`). `failed` and `ok` are a call's final
line and carry its `inputs` (template id, variables, stimulus id, image digest; never image bytes).
Only `ok` lines answer a call: resume and compaction read those, the report of incomplete units
reads `failed`, and every other kind is for people and audits.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .secrets import SecretRegistry

log = logging.getLogger(__name__)


class LedgerWriteError(OSError):
    """The ledger cannot be appended to (full disk, lost mount): a call that cannot be recorded
    must not be paid for again and again, so the run stops."""


class Ledger:
    def __init__(self, path: Path, secrets: SecretRegistry | None = None, *, read_only: bool = False):
        """read_only: for dry runs, which must work in a folder they cannot write to."""
        self.path = Path(path)
        self.secrets = secrets or SecretRegistry()
        self.read_only = read_only
        self._lock = threading.Lock()
        self._ok: dict[str, dict[str, Any]] = {}
        self.unreadable: dict[int, str] = {}  # line number -> why
        self._broken: LedgerWriteError | None = None
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._cut_torn_tail()
        for rec in self.records():
            if rec.get("status") == "ok" and "key" in rec:
                # First ok record wins: a later duplicate (two processes racing) changes nothing.
                self._ok.setdefault(rec["key"], rec)
        if self.unreadable:
            first = ", ".join(f"line {n} ({why})" for n, why in list(self.unreadable.items())[:3])
            more = f" and {len(self.unreadable) - 3} more" if len(self.unreadable) > 3 else ""
            log.warning(
                "%s: %d line(s) are not ledger records and were skipped: %s%s. They stay in the file; "
                "a call they may have recorded is made again.",
                self.path,
                len(self.unreadable),
                first,
                more,
            )
        self._fh = None if read_only else open(self.path, "a", encoding="utf-8")

    def _cut_torn_tail(self) -> None:
        """A crash mid-write leaves a last line without its newline: drop it (that call was in
        flight and will be redone)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data.endswith(b"\n"):
                return
            cut = data.rfind(b"\n") + 1
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())

    def records(self) -> Iterator[dict[str, Any]]:
        """Every readable record, in order. A line that is not one (bad JSON, bad UTF-8, not an
        object) is skipped and noted in `unreadable`; the unterminated last line of a write in
        progress is not a record yet."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            for lineno, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                if not raw.endswith(b"\n"):
                    return  # a write in progress (another thread or process): not a record yet
                try:
                    rec = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    self.unreadable[lineno] = f"not UTF-8: {exc.reason}"
                    continue
                except json.JSONDecodeError as exc:
                    self.unreadable[lineno] = f"not valid JSON: {exc.msg}"
                    continue
                if not isinstance(rec, dict):
                    self.unreadable[lineno] = f"a JSON {type(rec).__name__}, not an object"
                    continue
                yield rec

    def get_ok(self, key: str) -> dict[str, Any] | None:
        return self._ok.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._ok

    @property
    def n_ok(self) -> int:
        return len(self._ok)

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        if self._fh is None:
            raise RuntimeError(f"{self.path} was opened read-only")
        record = self.secrets.scrub_obj({**record, "ts": datetime.now(UTC).isoformat()})
        line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            if self._broken is not None:
                raise self._broken
            try:
                self._fh.write(line)
                self._fh.flush()
                os.fsync(self._fh.fileno())
            except OSError as exc:
                self._broken = LedgerWriteError(
                    exc.errno,
                    f"cannot append to the ledger ({exc.strerror}); "
                    "the run stops, finished calls before this one are kept",
                    str(self.path),
                )
                self._discard_buffer()
                raise self._broken from None
            if record.get("status") == "ok":
                self._ok.setdefault(record["key"], record)
        return record

    def _discard_buffer(self) -> None:
        # The unwritten tail stays in Python's buffer and would fail again at close; drop it. A torn
        # last line on disk is cut when the ledger is next opened.
        try:
            self._fh.close()
        except OSError:
            pass

    def close(self) -> None:
        with self._lock:
            if self._fh is not None and not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
