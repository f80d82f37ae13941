"""The headline table of a built warehouse (`rater1001 summary`): per condition accuracy, kappa,
delta alpha and W1SD per model dimension against the human leave-one-out W1SD, and how many
replaceability cells the condition passes, followed by the verdict counts. Reads only the marts
of the agreement areas (docs/marts_agreement.md); labelled SIMULATED when the data are.
"""

from __future__ import annotations

import pandas as pd

from .freshness import connect
from .paths import ProjectPaths

HUMAN_ROW = "human majority vote"  # what the 'human' row of classification_summary is
_MARTS = ("classification_summary", "alpha_delta", "zscore_summary", "replaceability_verdicts")


class WarehouseNotBuilt(RuntimeError):
    pass


def _read(paths: ProjectPaths) -> dict[str, pd.DataFrame]:
    if not paths.warehouse.exists():
        raise WarehouseNotBuilt(f"{paths.warehouse} does not exist; run `rater1001 build` first")
    con = connect(paths)
    try:
        present = set(con.execute("select table_name from information_schema.tables").df()["table_name"])
        missing = [t for t in _MARTS if t not in present]
        if missing:
            raise WarehouseNotBuilt(f"{paths.warehouse} lacks {', '.join(missing)}; run `rater1001 build` first")
        return {t: con.execute(f"select * from {t}").df() for t in _MARTS}
    finally:
        con.close()


def headline_frame(tables: dict[str, pd.DataFrame], order: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per condition (plus 'human' when forced-choice labels exist); dimensions in `order`
    first (the study's declared order), then any others alphabetically."""
    cls = tables["classification_summary"].set_index("condition_id")[["accuracy", "kappa"]]
    alpha = tables["alpha_delta"]
    alpha = alpha[(alpha["metric"] == "interval") & (alpha["category"] == "all") & (alpha["condition_id"] != "human")]
    z = tables["zscore_summary"]
    z = z[z["category"] == "all"]
    present = set(alpha["dimension"]) | set(z.loc[z["condition_id"] != "human_loo", "dimension"])
    dims = [d for d in order if d in present] + sorted(present - set(order))
    out = cls.copy()
    for dim in dims:
        a = alpha[alpha["dimension"] == dim].set_index("condition_id")["delta_alpha"]
        w = z[(z["dimension"] == dim) & (z["condition_id"] != "human_loo")].set_index("condition_id")
        # a condition that gave no value on the dimension (a FER classifier's valence) has no W1SD
        # to show: the policy's 0 would read as a result (docs/stats.md, missing answers)
        w = w["w1sd"].where(w["n_images"] + w["n_zero_sd_images"] > 0)
        loo = z[(z["dimension"] == dim) & (z["condition_id"] == "human_loo")]["w1sd"]
        out = out.join(a.rename(f"delta_alpha_{dim}"), how="outer").join(w.rename(f"w1sd_{dim}"), how="outer")
        out[f"human_loo_w1sd_{dim}"] = float(loo.iloc[0]) if len(loo) else float("nan")
    verdicts = tables["replaceability_verdicts"]
    passed = {}
    for names in verdicts["passing_conditions"].dropna():
        for cond in filter(None, str(names).split(",")):
            passed[cond] = passed.get(cond, 0) + 1
    out["cells_passed"] = pd.Series(passed, dtype="Int64").reindex(out.index).fillna(0).astype("Int64")
    out.loc[out.index == "human", "cells_passed"] = pd.NA
    return out.rename_axis("condition_id").reset_index()


def _fmt(value, spec: str) -> str:
    return "-" if value is None or pd.isna(value) else format(value, spec)


def headline(paths: ProjectPaths) -> str:
    from .study import load_study

    tables = _read(paths)
    study = load_study(paths)
    frame = headline_frame(tables, tuple(study.model_dimensions))
    origins = set()
    for t in tables.values():
        if "data_origin" in t and len(t):
            origins |= set(t["data_origin"].dropna().astype(str))
    label = "SIMULATED" if "SIMULATED" in origins else "observed"
    dims = [c.removeprefix("w1sd_") for c in frame.columns if c.startswith("w1sd_")]
    header = ["condition", "accuracy", "kappa"]
    for dim in dims:
        header += [f"d_alpha {dim[:3]}", f"W1SD {dim[:3]} (LOO)"]
    header.append("cells passed")
    rows = []
    for r in frame.to_dict("records"):
        name = HUMAN_ROW if r["condition_id"] == "human" else r["condition_id"]
        row = [name, _fmt(r.get("accuracy"), ".3f"), _fmt(r.get("kappa"), ".3f")]
        for dim in dims:
            row.append(_fmt(r.get(f"delta_alpha_{dim}"), "+.4f"))
            row.append(f"{_fmt(r.get(f'w1sd_{dim}'), '.3f')} ({_fmt(r.get(f'human_loo_w1sd_{dim}'), '.3f')})")
        row.append(_fmt(r.get("cells_passed"), "d"))
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = [
        f"rater1001 headline ({label} data){' -- SIMULATED: not a real study' if label == 'SIMULATED' else ''}",
        "  ".join(h.ljust(w) for h, w in zip(header, widths)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    v = tables["replaceability_verdicts"]
    if len(v):
        counts = v.groupby(["measure", "verdict"]).size().unstack(fill_value=0)
        lines.append("")
        lines.append(
            "replaceability verdicts (cells per measure): "
            + "; ".join(
                f"{m}: " + ", ".join(f"{k} {int(n)}" for k, n in counts.loc[m].items() if n) for m in counts.index
            )
        )
    category = study.category.name if study.category else None
    lines += worth_lines(paths)
    lines.append(
        "d_alpha: interval alpha(human + model) - alpha(human), all images; W1SD: share of images with "
        "|z| <= 1 (human leave-one-out W1SD in brackets), '-' where the condition gave no value; cells "
        f"passed: verdict cells ({category + ' x measure' if category else 'measure'}) the condition passes."
    )
    if (frame["condition_id"] == "human").any():
        lines.append(
            f"{HUMAN_ROW}: the raters' plurality label of each stimulus scored against the truth of "
            "classification_summary (analysis_choices.classification_truth), not one rater's accuracy."
        )
    return "\n".join(lines)


def _k(value) -> str:
    return "inf" if value is not None and not pd.isna(value) and value == float("inf") else _fmt(value, ".2f")


def worth_lines(paths: ProjectPaths) -> list[str]:
    """Per condition, what it is worth in human raters on each measure (k* [95% interval]) and the
    human-rated share whose intervals are within 10 % of the all-human width (query_worth); none
    when the warehouse has no query_worth."""
    con = connect(paths)
    try:
        present = set(con.execute("select table_name from information_schema.tables").df()["table_name"])
        if "query_worth" not in present:
            return []
        w = con.execute("select * from query_worth order by condition_id, measure_kind desc, measure desc").df()
    finally:
        con.close()
    if not len(w):
        return []
    out = ["", "worth in human raters, k* [95% interval]; human share for intervals within 10% of all-human:"]
    for cond, rows in w.groupby("condition_id", sort=False):
        parts = [
            f"{r.measure} {_k(r.k_star)} [{_k(r.k_star_lo)}, {_k(r.k_star_hi)}]; {_fmt(r.budget_fraction, '.0%')}"
            for r in rows.itertuples()
        ]
        out.append(f"  {cond}: " + " | ".join(parts))
    return out
