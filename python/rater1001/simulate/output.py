"""Writing a simulated study: landing tables through the contract, manifest rows marked simulated,
the matching study.yml, and the generating truth."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa

from ..contract import TABLES, for_study
from ..landing import ManifestEntry, record_landing, to_arrow, write_parquet_atomic
from ..paths import ProjectPaths
from ..study import load_study
from .design import Design
from .humans import residual_sds

SOURCE = "rater1001 simulate (SIMULATED demo study)"


def read_catalog(paths: ProjectPaths) -> pd.DataFrame:
    return pd.read_csv(paths.seeds / "model_condition_catalog.csv", dtype=str, keep_default_na=False)


def typed_catalog(df: pd.DataFrame) -> pd.DataFrame:
    """Catalog CSV text -> the model_conditions contract types (empty cells are NULL)."""
    out = pd.DataFrame(index=df.index)
    for col in TABLES["model_conditions"].columns:
        raw = [
            None if (v is None or str(v).strip() == "") else str(v).strip() for v in df.get(col.name, [None] * len(df))
        ]
        s = pd.Series(raw, index=df.index, dtype=object)
        if col.type == "bool":
            s = s.map(lambda v: None if v is None else v.lower() in ("true", "1", "yes"))
        elif col.type == "int":
            s = pd.array([None if v is None else int(float(v)) for v in s], dtype="Int64")
        elif col.type == "float":
            s = pd.to_numeric(s)
        out[col.name] = s
    return out


def write_study_yml(paths: ProjectPaths, design: Design) -> None:
    """The project's study.yml (the repository's when the project has none) with this run's design
    counts; comments kept, so for the defaults the text is the repository's, byte for byte."""
    template = paths.study_file
    text = template.read_text(encoding="utf-8")
    for key, value in (
        ("images_per_cell", design.n_identities),
        ("ratings_per_image", design.ratings_per_image),
        ("images_per_rater", design.images_per_rater),
    ):
        text, n = re.subn(rf"(?m)^(\s+{key}:\s*)\d+", rf"\g<1>{value}", text)
        if n != 1:
            raise RuntimeError(f"{template}: expected one '{key}:' line under design:, found {n}")
    levels = {"race": len(design.races), "gender": len(design.genders), "emotion": len(design.emotions)}

    def cell_count(match: re.Match) -> str:
        factors = [f.strip() for f in match.group(2).split(",")]
        per_cell = design.n_images
        for f in factors:
            per_cell //= levels[f]
        return f"{match.group(1)}{per_cell}"

    # Declared marginal cells (design.cells) scale with the simulated design too.
    text = re.sub(r"(?m)^(\s+- \{factors: \[([^\]]*)\], stimuli:\s*)\d+", cell_count, text)
    target = paths.root / "study.yml"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


def land(paths: ProjectPaths, name: str, df: pd.DataFrame) -> None:
    write_parquet_atomic(landed_part(paths, name, df), paths.raw_table(name))
    record_landing(paths, ManifestEntry(name, SOURCE, None, len(df), 0, True))


def landed_part(paths: ProjectPaths, name: str, df: pd.DataFrame) -> pa.Table:
    """Rows of a landing table as the contract's Arrow table."""
    return to_arrow(df, for_study(TABLES[name], load_study(paths)))


def land_parts(paths: ProjectPaths, name: str, parts: list[pa.Table], frames: list[pd.DataFrame]) -> None:
    """Land the rows of `parts` (landed_part of each of `frames`, in order) as one table: the same
    file as `land` of the frames concatenated. The Arrow schema's pandas metadata records the
    concatenated frame's column types, which the frames' empty heads give without their rows."""
    like = landed_part(paths, name, pd.concat([f.iloc[:0] for f in frames], ignore_index=True))
    table = pa.concat_tables([p.replace_schema_metadata(like.schema.metadata) for p in parts])
    write_parquet_atomic(table, paths.raw_table(name))
    record_landing(paths, ManifestEntry(name, SOURCE, None, table.num_rows, 0, True))


def write_truth(paths: ProjectPaths, tables: dict[str, pd.DataFrame]) -> None:
    folder = paths.root / "data" / "simulation_truth"
    for name, df in tables.items():
        write_parquet_atomic(
            pa.Table.from_pandas(df.reset_index(drop=True), preserve_index=False), folder / f"{name}.parquet"
        )


def human_parameters(human: dict, emotions: list[str], dims: list[str], locations: pd.DataFrame) -> pd.DataFrame:
    rows = []
    residual = {d: dict(zip(emotions, residual_sds(human, d, emotions), strict=True)) for d in dims}
    for e in emotions:
        for d in dims:
            v = human["variance"][d]
            rows.append(
                {
                    "emotion": e,
                    "dimension": d,
                    "centroid": float(human["emotions"][e][d]),
                    "latent_location": float(locations.loc[e, d]),
                    "image_sd": v["image_sd"],
                    "rater_sd": v["rater_sd"],
                    "residual_sd": float(residual[d][e]),
                    "rt_median_ms": float(human["emotions"][e].get(f"rt_{d}_ms", np.nan)),
                }
            )
    return pd.DataFrame(rows)


def human_alpha(ratings: pd.DataFrame, dims: list[str]) -> dict[str, float]:
    """Interval alpha per dimension, for the summary line: the one home of alpha
    (rater1001.stats.alpha, per-image sufficient statistics), so a 100x study needs no dense
    rater x image matrix. NaN where undefined (e.g. one rating per image)."""
    from ..stats.alpha import alpha

    return {d: alpha(ratings, "interval", unit="image_id", value=d).alpha for d in dims}
