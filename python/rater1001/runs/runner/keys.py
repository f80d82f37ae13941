"""The ledger key: a hash of everything that determines a call's answer."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    # sort_keys + fixed separators make the hash independent of dict order and whitespace.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def call_key(determinants: dict[str, Any]) -> str:
    """sha256 over the canonical JSON of the determinants (model, base URL, input hash, prompt
    template and version, carried answers, generation settings, replicate...). Never put a
    secret in `determinants`: the key is stored in plain text."""
    return hashlib.sha256(canonical_json(determinants).encode("utf-8")).hexdigest()
