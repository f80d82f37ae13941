"""An append-only, per-call ledger in JSON Lines, fsynced after every record.

Why JSONL and not SQLite/DuckDB: each finished call is one `write` of one line followed by
`fsync`, so a crash (kill -9, power loss) can only tear the line being written; that torn tail is
detected and cut off when the ledger is next opened. Many worker threads append under one lock
without a database's single-writer transaction machinery, the file is readable with `grep`/`jq`
and DuckDB's `read_json`, and compaction to Parquet is a separate, atomic step. A record is never
rewritten: a call that failed and later succeeded has a `failed` line and then an `ok` line.
"""
from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from .secrets import SecretRegistry


class LedgerCorrupt(Exception):
    pass


class Ledger:
    def __init__(self, path: Path, secrets: SecretRegistry | None = None):
        self.path = Path(path)
        self.secrets = secrets or SecretRegistry()
        self._lock = threading.Lock()
        self._ok: dict[str, dict[str, Any]] = {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._cut_torn_tail()
        for rec in self.records():
            if rec.get("status") == "ok":
                # First ok record wins: a later duplicate (two processes racing) changes nothing.
                self._ok.setdefault(rec["key"], rec)
        self._fh = open(self.path, "a", encoding="utf-8")

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
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                if not line.endswith("\n"):
                    return  # a write in progress (another thread or process): not a record yet
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise LedgerCorrupt(f"{self.path}: line {lineno} is not valid JSON ({exc.msg}); "
                                        "a ledger is append-only, was it edited by hand?") from None

    def get_ok(self, key: str) -> dict[str, Any] | None:
        return self._ok.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._ok

    @property
    def n_ok(self) -> int:
        return len(self._ok)

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        record = self.secrets.scrub_obj({**record, "ts": datetime.now(timezone.utc).isoformat()})
        line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
            if record.get("status") == "ok":
                self._ok.setdefault(record["key"], record)
        return record

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
