"""One small study (seed 3, SMALL_DESIGN) that fails the quality gate and is still built whole,
by a plain `dbt build` (conftest.py's `failed_gate_warehouse`), holding the inputs of two areas
(docs/testing.md says why they do not interfere):

- hostile values (test_quality_report.py): one image renamed to PAYLOAD in every table, one of its
  ratings removed (the two design counts the gate fails), one ingest reject carrying PAYLOAD;
- blank answers (test_verdict_marts_warehouse.py): one condition (BLANKED) left every fifth of its
  answers blank, a failed parse, as a model that sometimes answers nothing does."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

PAYLOAD = "<script>alert(1)</script>"
BLANKED, BLANK_EVERY = "gemma3-4b-it", 5


def rewrite(paths, table: str, frame: pd.DataFrame) -> None:
    """Overwrite a landed table, as a hand-edited Parquet file would (no ingest)."""
    schema = pq.read_schema(paths.raw_table(table)).remove_metadata()
    pq.write_table(pa.Table.from_pandas(frame, schema=schema, preserve_index=False), paths.raw_table(table))


def plant_payload(paths) -> None:
    stimuli = pq.read_table(paths.raw_table("stimuli")).to_pandas()
    victim = stimuli["image_id"].iloc[0]
    for table in ("stimuli", "human_ratings", "model_predictions"):
        frame = pq.read_table(paths.raw_table(table)).to_pandas()
        frame["image_id"] = frame["image_id"].replace(victim, PAYLOAD)
        if table == "human_ratings":
            frame = frame.drop(index=frame.index[frame["image_id"] == PAYLOAD][0])
        rewrite(paths, table, frame)
    paths.rejected.mkdir(parents=True)
    pd.DataFrame(
        {
            "rater_id": ["r0001"],
            "image_id": [PAYLOAD],
            "valence": ["<b>12</b>"],
            "_reason": [f"image_id {PAYLOAD} & valence '<b>12</b>' is not a number"],
        }
    ).to_parquet(paths.rejected_table("human_ratings"))


def blank_answers(paths) -> None:
    preds = pd.read_parquet(paths.raw_table("model_predictions"))
    blank = (preds["condition_id"] == BLANKED) & (preds.groupby("condition_id").cumcount() % BLANK_EVERY == 0)
    preds.loc[blank, ["emotion", "valence", "arousal"]] = None
    preds.loc[blank, "parse_path"] = "failed"
    rewrite(paths, "model_predictions", preds)


def write_failed_gate_study(paths) -> None:
    from conftest import SMALL_DESIGN
    from rater1001.simulate import simulate_study

    simulate_study(paths, seed=3, **SMALL_DESIGN)
    plant_payload(paths)
    blank_answers(paths)
