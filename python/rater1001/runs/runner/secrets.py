"""Keys are read from the environment only, and scrubbed from anything the runner writes."""

from __future__ import annotations

import os
import threading

REDACTED = "[REDACTED]"


class SecretRegistry:
    """Holds the secret values in use so every string written to the ledger or a log can be
    scrubbed. Values shorter than 8 characters are not registered (placeholders like "EMPTY" for
    keyless local servers would otherwise redact ordinary words)."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()

    def from_env(self, var: str, *, required: bool = True) -> str | None:
        value = os.environ.get(var)
        if not value:
            if required:
                raise KeyError(f"environment variable {var} is not set (API keys are read from the environment only)")
            return None
        self.add(value)
        return value

    def add(self, value: str) -> None:
        if value and len(value) >= 8:
            with self._lock:
                self._values.add(value)

    def scrub(self, text: str) -> str:
        for v in self._values:
            if v in text:
                text = text.replace(v, REDACTED)
        return text

    def scrub_obj(self, obj):
        if isinstance(obj, str):
            return self.scrub(obj)
        if isinstance(obj, dict):
            return {k: self.scrub_obj(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.scrub_obj(v) for v in obj]
        return obj
