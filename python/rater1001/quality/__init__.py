"""The Great Expectations quality gate over the landing zone.

`run_quality_gate(paths, allow_unbalanced=False)` checks the landed Parquet against the data
contract and the declared design, writes the data-quality report and data/raw/_quality.json, and returns a
`QualityResult`. See docs/quality.md.
"""

from .gate import QualityResult, run_quality_gate

__all__ = ["QualityResult", "run_quality_gate"]
