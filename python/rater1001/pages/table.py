"""A data frame as an HTML table: every value escaped, so a landed value such as `<script>` is
shown as text, never run."""

from __future__ import annotations

import math

import pandas as pd
from markupsafe import escape


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return "—"
    if isinstance(value, float):
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
            return f"{value:.3g}"  # p-values and large counts keep their information
        return f"{value:.3f}"
    return str(value)


def frame_html(frame: pd.DataFrame, column_docs: dict[str, str] | None = None) -> str:
    column_docs = column_docs or {}
    head = "".join(f'<th title="{escape(column_docs.get(str(c), ""))}">{escape(str(c))}</th>' for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in frame.astype(object).itertuples(index=False)
    )
    return f'<table class="data sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
