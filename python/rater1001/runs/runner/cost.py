"""Prices per million tokens from a seed table (seeds/api_prices.csv), and cost arithmetic."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Price:
    backend: str
    model_id: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    # Estimates for a dry run before any usage is known.
    image_input_tokens: int
    est_output_tokens_per_call: int
    est_thinking_tokens_per_call: int
    thinking_billed_as_output: bool

    def cost_usd(self, input_tokens: float, output_tokens: float, thinking_tokens: float = 0.0) -> float:
        billed_out = output_tokens + (thinking_tokens if self.thinking_billed_as_output else 0.0)
        return (input_tokens * self.input_usd_per_mtok + billed_out * self.output_usd_per_mtok) / 1e6


FREE = Price("local", "*", 0.0, 0.0, 0, 0, 0, False)


class PriceTable:
    def __init__(self, prices: list[Price]):
        self._by_key = {(p.backend, p.model_id): p for p in prices}

    def lookup(self, backend: str, model_id: str) -> Price | None:
        """Exact (backend, model_id), else the backend's wildcard row '*', else None (unknown)."""
        return self._by_key.get((backend, model_id)) or self._by_key.get((backend, "*"))


def _bool(s: str) -> bool:
    return s.strip().lower() in {"1", "true", "yes"}


def load_prices(path: Path) -> PriceTable:
    prices = []
    with open(path, newline="", encoding="utf-8") as fh:
        for lineno, r in enumerate(csv.DictReader(fh), start=2):
            try:
                prices.append(
                    Price(
                        backend=r["backend"],
                        model_id=r["model_id"],
                        input_usd_per_mtok=float(r["input_usd_per_mtok"]),
                        output_usd_per_mtok=float(r["output_usd_per_mtok"]),
                        image_input_tokens=int(r["image_input_tokens"] or 0),
                        est_output_tokens_per_call=int(r["est_output_tokens_per_call"] or 0),
                        est_thinking_tokens_per_call=int(r["est_thinking_tokens_per_call"] or 0),
                        thinking_billed_as_output=_bool(r["thinking_billed_as_output"]),
                    )
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"{path}: row {lineno}: bad price row ({exc})") from None
    return PriceTable(prices)
