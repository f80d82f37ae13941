"""The texts `init` writes and prints (pure): study.yml with comments, the label seed, and the table
of guesses."""

from __future__ import annotations

import io

import pandas as pd

from .guess import Guess


def _list(names) -> str:
    return "[" + ", ".join(names) + "]"


def study_yaml(proposal, name: str, sources: list[str]) -> str:
    """study.yml in the format of docs/study_shape.md, each guess commented with the column it came
    from, so a person can correct it in place."""
    shape = proposal.shape
    lines = [
        f"# Written by `rater1001 init` from {', '.join(sources)}.",
        "# Each line is a guess from the data (the column it came from is in its comment): correct",
        "# what is wrong and run `rater1001 init ... --yes` again, or ingest data/init/*.csv.",
        "# The levels of each factor and rater attribute are the rows of seeds/factor_labels.csv",
        "# (label_ko empty: add Korean labels there; aliases: other spellings accepted on ingest).",
        "# Format: docs/study_shape.md.",
        f"name: {name}",
        f"stimulus_kind: {proposal.kind}",
        f"scale: {{min: {shape.scale[0]}, max: {shape.scale[1]}}}"
        + ("   # read from the ratings" if shape.dimensions else "   # no ratings: unused"),
        f"dimensions: {_list(shape.dimensions)}"
        + (f"   # columns {', '.join(shape.dimensions.values())}" if shape.dimensions else ""),
        f"model_dimensions: {_list(proposal.model_dimensions)}"
        + ("" if "model_predictions" in proposal.tables or not shape.dimensions else "   # for models added later"),
    ]
    factors = []
    if shape.category:
        origin = shape.category_truth or f"the raters' most chosen {shape.label_col}"
        factors.append(f"  - {{name: {shape.category}, role: category}}   # {origin}")
    factors += [f"  - {{name: {n}, role: audit}}   # column {c}" for n, c in shape.factors.items()]
    lines += ["factors:", *factors] if factors else ["factors: []"]
    lines.append(
        f"rater_attributes: {_list(shape.rater_attributes)}"
        + (f"   # columns {', '.join(shape.rater_attributes.values())}" if shape.rater_attributes else "")
    )
    lines.append("# design: leave it out for a naturally unbalanced study (docs/study_shape.md, Design counts)")
    return "\n".join(lines) + "\n"


def labels_csv(labels: pd.DataFrame) -> str:
    buffer = io.StringIO()
    labels.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def why_table(guesses: list[Guess]) -> str:
    """A short aligned table: file, column, role, name in the study, why."""
    head = ("file", "column", "role", "as", "why")
    rows = [head, *((g.source, _short(g.column), g.role, g.name, g.why) for g in guesses)]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r[:4], widths)) + "  " + r[4] for r in rows)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
