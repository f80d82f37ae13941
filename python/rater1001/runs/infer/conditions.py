"""Model conditions (Table 1) from the catalog seed and/or a YAML file, never from code.

seeds/model_condition_catalog.csv holds the contract's model_conditions columns. A YAML file may add
conditions or override catalog fields (e.g. point gemma3-12b-it at an Ollama server), and may set
run-only fields that are not part of the contract: base_url, api_key_env, max_tokens, timeout_s.
    conditions:
      - condition_id: gemma3-12b-ollama
        extends: gemma3-12b-it          # start from a catalog row
        backend: openai-compatible
        base_url: http://localhost:11434/v1
        model_id: gemma3:12b
"""

from __future__ import annotations

import csv
import dataclasses
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from ...contract import MODEL_CONDITIONS

RUN_ONLY_FIELDS = ("base_url", "api_key_env", "max_tokens", "timeout_s")


@dataclass(frozen=True)
class Condition:
    condition_id: str
    display_name: str
    kind: str
    backend: str
    thinking: bool
    short_name: str | None = None
    provider: str | None = None
    model_id: str | None = None
    family: str | None = None
    parameters: str | None = None
    size_b: float | None = None
    quantization: str | None = None
    thinking_budget: int | None = None
    include_thoughts: bool | None = None
    strategy: str | None = None
    temperature: float | None = None
    seed: int | None = None
    image_detail: str | None = None
    repetition_penalty: float | None = None
    paper_table: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None

    def contract_row(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in MODEL_CONDITIONS.column_names}


_FIELD_TYPES = {f.name: f.type for f in fields(Condition)}


def _convert(name: str, value: Any, where: str) -> Any:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    t = _FIELD_TYPES[name]
    try:
        if t.startswith("bool"):
            if isinstance(value, bool):
                return value
            v = str(value).strip().lower()
            if v in {"true", "1", "yes"}:
                return True
            if v in {"false", "0", "no"}:
                return False
            raise ValueError(value)
        if t.startswith("int"):
            f = float(value)
            if not f.is_integer():
                raise ValueError(value)
            return int(f)
        if t.startswith("float"):
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: column {name!r}: cannot read {value!r} as {t.split(' ')[0]}") from None


def _check_fields(raw: dict[str, Any], where: str) -> None:
    unknown = set(raw) - set(_FIELD_TYPES)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}")


def _build(raw: dict[str, Any], where: str) -> Condition:
    _check_fields(raw, where)
    values = {k: _convert(k, v, where) for k, v in raw.items()}
    missing = [f for f in ("condition_id", "display_name", "kind", "backend", "thinking") if values.get(f) is None]
    if missing:
        raise ValueError(f"{where}: missing required field(s) {missing}")
    return Condition(**values)


def read_catalog(path: Path) -> dict[str, Condition]:
    out: dict[str, Condition] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            c = _build(dict(row), f"{path}: row {lineno}")
            out[c.condition_id] = c
    return out


def read_conditions_yaml(path: Path, catalog: dict[str, Condition]) -> dict[str, Condition]:
    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh) or {}
    entries = doc.get("conditions") if isinstance(doc, dict) else doc
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a list of conditions under 'conditions'")
    out = dict(catalog)
    for i, entry in enumerate(entries, start=1):
        where = f"{path}: conditions[{i}]"
        entry = dict(entry)
        extends = entry.pop("extends", None)
        _check_fields(entry, where)
        # A condition may extend a catalog row or one defined earlier in the same file.
        if extends is not None and extends not in out:
            raise ValueError(f"{where}: extends unknown condition {extends!r}")
        base_id = extends or entry.get("condition_id")
        if base_id in out:
            overrides = {k: _convert(k, v, where) for k, v in entry.items()}
            c = dataclasses.replace(out[base_id], **overrides)
        else:
            c = _build(entry, where)
        out[c.condition_id] = c
    return out


def load_conditions(seeds: Path, yaml_path: Path | None = None) -> dict[str, Condition]:
    catalog = read_catalog(seeds / "model_condition_catalog.csv")
    return read_conditions_yaml(yaml_path, catalog) if yaml_path else catalog
