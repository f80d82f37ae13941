"""`rater1001 report`: report/index.html (one offline file) and report/figures/*.png, every number
read from the warehouse (see docs/report.md)."""
from __future__ import annotations

__all__ = ["ReportResult", "build_report"]


def __getattr__(name):
    # Lazy, so that PNG worker processes (report.png_worker) do not import altair, duckdb and pandas.
    if name in __all__:
        from . import build
        return getattr(build, name)
    raise AttributeError(name)
