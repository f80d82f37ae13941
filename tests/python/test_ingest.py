"""`rater1001 ingest`: every row either lands typed or is rejected with every reason, and the
file-level failures (empty, wrong encoding, wrong columns, missing reference table) refuse the file."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001 import cli
from rater1001.ingest import IngestError, ingest_file
from rater1001.landing import read_manifest

RATING_COLUMNS = ["rater_id", "image_id", "valence", "arousal", "naturalness"]

STIMULI = pd.DataFrame(
    {
        "image_id": ["img1", "img2", "img3", "img4"],
        "identity_id": ["id1", "id1", "id2", "id2"],
        "race": ["Korean", "Korean", "Black", "Caucasian"],
        "gender": ["female", "female", "male", "male"],
        "emotion": ["happy", "sad", "angry", "neutral"],
        "file_path": ["a.png", "b.png", "c.png", "d.png"],
    }
)
RATERS = pd.DataFrame({"rater_id": ["r1", "r2", "r3"], "gender": ["female", "male", "female"], "age": ["25", "", "41"]})


def write_csv(path, header, rows, encoding="utf-8"):
    lines = [",".join(header)] + [",".join(str(v) for v in r) for r in rows]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


@pytest.fixture
def project_with_refs(tmp_project, tmp_path):
    """A project where stimuli (img1-img4) and raters (r1-r3) have landed."""
    STIMULI.to_csv(tmp_path / "stimuli.csv", index=False)
    RATERS.to_csv(tmp_path / "raters.csv", index=False)
    assert ingest_file(tmp_project, "stimuli", tmp_path / "stimuli.csv").rows_rejected == 0
    assert ingest_file(tmp_project, "raters", tmp_path / "raters.csv").rows_rejected == 0
    return tmp_project


def rejected_frame(paths, table="human_ratings"):
    """The rejected file, plus _reason_text: its reasons list joined by newlines for substring checks."""
    frame = pq.read_table(paths.rejected_table(table)).to_pandas()
    frame["_reason_text"] = frame["_reason"].map("\n".join)
    return frame


def landed_frame(paths, table="human_ratings"):
    return pq.read_table(paths.raw_table(table)).to_pandas()


# --------------------------------------------------------------------------- the check


def test_acceptance_bad_ratings_are_rejected_with_their_reason_and_good_rows_land(project_with_refs, tmp_path):
    rows = [
        ("r1", "img1", 5, 4, 6),  # line 2 good
        ("r1", "img2", 10, 4, 6),  # line 3 above the scale
        ("r2", "img1", 0, 4, 6),  # line 4 below the scale
        ("r2", "img2", "7.5", 4, 6),  # line 5 not an integer
        ("r3", "img1", 3, 3, 3),  # line 6 duplicate pair ...
        ("r3", "img1", 4, 4, 4),  # line 7 ... and its copy
        ("r1", "img999", 3, 3, 3),  # line 8 unknown image
        ("r2", "img3", 9, 1, 9),  # line 9 good
        ("r3", "img4", 1, 9, 1),  # line 10 good
    ]
    result = ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))

    assert (result.rows_read, result.rows_landed, result.rows_rejected) == (9, 3, 6)
    landed = landed_frame(project_with_refs)
    assert list(zip(landed.rater_id, landed.image_id, landed.valence)) == [
        ("r1", "img1", 5),
        ("r2", "img3", 9),
        ("r3", "img4", 1),
    ]
    assert pq.read_schema(project_with_refs.raw_table("human_ratings")).field("valence").type == pa.int64()

    rejected = rejected_frame(project_with_refs).set_index("_source_row")
    assert list(rejected.index) == [3, 4, 5, 6, 7, 8]
    expected_rule = {
        3: "valence [scale_integer]",
        4: "valence [scale_integer]",
        5: "valence [type:int]",
        6: "rater_id,image_id [unique_key]",
        7: "rater_id,image_id [unique_key]",
        8: "image_id [foreign_key:stimuli]",
    }
    assert rejected["_rules"].to_dict() == expected_rule
    assert "valence='10'" in rejected.loc[3, "_reason_text"] and "1-9" in rejected.loc[3, "_reason_text"]
    assert "valence='0'" in rejected.loc[4, "_reason_text"]
    assert "valence='7.5'" in rejected.loc[5, "_reason_text"]
    assert (
        "(r3, img1)" in rejected.loc[6, "_reason_text"] and "first row 6, last row 7" in rejected.loc[7, "_reason_text"]
    )
    assert "img999" in rejected.loc[8, "_reason_text"]
    # the rejected file keeps the values as read
    assert rejected.loc[5, "valence"] == "7.5" and rejected.loc[3, "valence"] == "10"
    assert set(rejected["_source_file"]) == {str((tmp_path / "r.csv").resolve())}

    summary = result.summary()
    for text in ("valence [scale_integer]: 2 rows", "valence [type:int]: 1 row", "[unique_key]: 2 rows", "row 8:"):
        assert text in summary


# ------------------------------------------------------------------------------- value rules


def test_whole_number_written_with_decimals_is_an_integer(project_with_refs, tmp_path):
    rows = [("r1", "img1", "7.0", "3.", "1e0"), ("r2", "img1", "7.25", 3, 3)]
    result = ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))
    assert result.rows_landed == 1
    assert landed_frame(project_with_refs)[["valence", "arousal", "naturalness"]].iloc[0].tolist() == [7, 3, 1]
    assert rejected_frame(project_with_refs)["_reason_text"].iloc[0] == "valence='7.25': not a whole number [type:int]"


def test_not_a_number_and_every_reason_of_a_row_is_kept(project_with_refs, tmp_path):
    rows = [("r1", "img9", "high", 0, 10)]
    ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))
    reason = rejected_frame(project_with_refs)["_reason"].iloc[0].tolist()
    assert reason == [
        "valence='high': not a number [type:int]",
        "arousal='0': outside the scale 1-9 [scale_integer]",
        "naturalness='10': outside the scale 1-9 [scale_integer]",
        "image_id='img9': no such image_id in the landed stimuli table [foreign_key:stimuli]",
    ]


def test_missing_keys_are_rejected_and_missing_tokens_mean_null(project_with_refs, tmp_path):
    rows = [("", "img1", 5, 5, 5), ("r1", "NA", 5, 5, 5), ("r2", "img2", "NA", "", "null")]
    result = ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))
    assert result.rows_rejected == 2
    assert rejected_frame(project_with_refs)["_rules"].tolist() == ["rater_id [required]", "image_id [required]"]
    landed = landed_frame(project_with_refs)
    assert landed[["valence", "arousal", "naturalness"]].isna().all(axis=None)  # optional ratings may be null


def test_every_copy_of_a_duplicate_key_is_rejected(project_with_refs, tmp_path):
    rows = [("r1", "img1", 5, 5, 5), ("r1", "img1", 5, 5, 5), ("r1", "img1", 6, 5, 5), ("r1", "img2", 5, 5, 5)]
    result = ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))
    assert (result.rows_landed, result.rows_rejected) == (1, 3)
    assert rejected_frame(project_with_refs)["_source_row"].tolist() == [2, 3, 4]
    assert "3 rows share it" in rejected_frame(project_with_refs)["_reason_text"].iloc[0]


def test_positive_and_age_rules(project_with_refs, tmp_path):
    ratings = write_csv(
        tmp_path / "r.csv",
        ["rater_id", "image_id", "rt_valence_ms", "trial_index"],
        [("r1", "img1", "0", 1), ("r1", "img2", "812.5", 0), ("r1", "img3", "812.5", 3)],
    )
    assert ingest_file(project_with_refs, "human_ratings", ratings).rows_landed == 1
    assert rejected_frame(project_with_refs)["_rules"].tolist() == [
        "rt_valence_ms [positive]",
        "trial_index [positive]",
    ]
    raters = write_csv(
        tmp_path / "raters.csv",
        ["rater_id", "gender", "age"],
        [("a", "male", 0), ("b", "male", 130), ("c", "male", 129)],
    )
    assert ingest_file(project_with_refs, "raters", raters).rows_landed == 1


# -------------------------------------------------------------------------------------- labels


def test_labels_outside_the_declared_sets_get_a_did_you_mean_hint(tmp_project, tmp_path):
    rows = [
        ("i1", "p1", "Korean", "female", "Hapy"),
        ("i2", "p1", "Korea", "female", "sad"),
        ("i3", "p2", "Black", "femle", "banana"),
    ]
    stimuli = write_csv(tmp_path / "s.csv", ["image_id", "identity_id", "race", "gender", "emotion"], rows)
    result = ingest_file(tmp_project, "stimuli", stimuli)
    assert result.rows_landed == 0
    reasons = rejected_frame(tmp_project, "stimuli")["_reason_text"].tolist()
    assert "emotion='Hapy': not a declared emotion label; did you mean 'happy'?" in reasons[0]
    assert "race='Korea'" in reasons[1] and "did you mean 'Korean'?" in reasons[1]
    assert "gender='femle'" in reasons[2] and "did you mean 'female'?" in reasons[2]
    # nothing close: no guess, but the declared set is listed
    assert (
        "emotion='banana': not a declared emotion label; expected one of happy, sad, angry, fear, disgust, neutral"
        in reasons[2]
    )


def test_korean_labels_aliases_and_case_map_to_canonical_labels(tmp_project, tmp_path):
    rows = [
        ("i1", "p1", "한국인", "여성", "행복"),
        ("i2", "p1", "KOREAN", "female", "슬픔"),
        ("i3", "p2", "흑인", "남성", "분노"),
        ("i4", "p2", "White", "M", "Fearful"),
        ("i5", "p2", "백인", "male", "혐오"),
        ("i6", "p2", "Black", "male", "중립"),
    ]
    stimuli = write_csv(tmp_path / "s.csv", ["image_id", "identity_id", "race", "gender", "emotion"], rows)
    result = ingest_file(tmp_project, "stimuli", stimuli)
    assert result.rows_rejected == 0
    landed = landed_frame(tmp_project, "stimuli")
    assert landed.race.tolist() == ["Korean", "Korean", "Black", "Caucasian", "Caucasian", "Black"]
    assert landed.gender.tolist() == ["female", "female", "male", "male", "male", "male"]
    assert landed.emotion.tolist() == ["happy", "sad", "angry", "fear", "disgust", "neutral"]
    assert "emotion: '행복' -> 'happy' (1 row)" in result.summary()  # mapping is reported, not silent


def test_enum_values_are_exact_with_a_hint(tmp_project, tmp_path):
    catalog = pd.read_csv("seeds/model_condition_catalog.csv", dtype=str, keep_default_na=False)
    catalog.loc[0, "kind"] = "VLM"
    catalog.loc[1, "strategy"] = "json_single"
    catalog.to_csv(tmp_path / "c.csv", index=False)
    result = ingest_file(tmp_project, "model_conditions", tmp_path / "c.csv")
    assert (result.rows_landed, result.rows_rejected) == (len(catalog) - 2, 2)
    reasons = rejected_frame(tmp_project, "model_conditions")["_reason_text"].tolist()
    assert "kind='VLM': not allowed; did you mean 'vlm'?" in reasons[0]
    assert "strategy='json_single': not allowed; did you mean 'json-single'?" in reasons[1]


# ------------------------------------------------------------------------------- foreign keys


def test_ratings_for_unknown_raters_or_images_are_rejected(project_with_refs, tmp_path):
    rows = [("r1", "img1", 5, 5, 5), ("r9", "img1", 5, 5, 5), ("r9", "imgX", 5, 5, 5)]
    ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows))
    assert rejected_frame(project_with_refs)["_rules"].tolist() == [
        "rater_id [foreign_key:raters]",
        "rater_id [foreign_key:raters]; image_id [foreign_key:stimuli]",
    ]


def test_refuses_ratings_before_the_tables_they_refer_to_have_landed(tmp_project, tmp_path):
    ratings = write_csv(tmp_path / "r.csv", RATING_COLUMNS, [("r1", "img1", 5, 5, 5)])
    with pytest.raises(IngestError, match=r"refers to stimuli and raters, which have not landed.*ingest stimuli FILE"):
        ingest_file(tmp_project, "human_ratings", ratings)
    assert not tmp_project.raw_table("human_ratings").exists()


def test_reingesting_a_referenced_table_warns_about_orphans(project_with_refs, tmp_path):
    ingest_file(
        project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", RATING_COLUMNS, [("r1", "img4", 5, 5, 5)])
    )
    STIMULI.iloc[:3].to_csv(tmp_path / "s.csv", index=False)
    result = ingest_file(project_with_refs, "stimuli", tmp_path / "s.csv")
    assert result.warnings == (
        "human_ratings (already landed) has 1 rows whose image_id is not in the new stimuli; "
        "re-ingest human_ratings so they are checked again",
    )


# ------------------------------------------------------------------------------------ columns


def test_wrong_column_names_say_what_is_missing_and_unexpected(project_with_refs, tmp_path):
    ratings = write_csv(tmp_path / "r.csv", ["rater_id", "imageid", "valence", "rt_valence"], [("r1", "img1", 5, 900)])
    with pytest.raises(IngestError) as err:
        ingest_file(project_with_refs, "human_ratings", ratings)
    message = str(err.value)
    assert "missing required column(s): 'image_id' (did you mean 'imageid'?)" in message
    assert "'rt_valence' (did you mean 'rt_valence_ms'?)" in message
    assert "--drop-columns" in message


def test_drop_columns_ignores_unexpected_columns_on_purpose(project_with_refs, tmp_path):
    ratings = write_csv(tmp_path / "r.csv", ["rater_id", "image_id", "valence", "note"], [("r1", "img1", 5, "ok")])
    with pytest.raises(IngestError, match="unexpected column"):
        ingest_file(project_with_refs, "human_ratings", ratings)
    result = ingest_file(project_with_refs, "human_ratings", ratings, drop_columns=True)
    assert result.rows_landed == 1 and result.dropped_columns == ("note",)
    assert landed_frame(project_with_refs).columns.tolist()[:3] == ["rater_id", "image_id", "valence"]


# ---------------------------------------------------------------------------- unreadable files


def test_empty_file_and_header_only_file_are_refused(project_with_refs, tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(IngestError, match="empty"):
        ingest_file(project_with_refs, "human_ratings", tmp_path / "empty.csv")
    write_csv(tmp_path / "header.csv", RATING_COLUMNS, [])
    with pytest.raises(IngestError, match="no data rows"):
        ingest_file(project_with_refs, "human_ratings", tmp_path / "header.csv")


def test_wrong_encoding_is_refused_with_the_place_and_a_suggestion(tmp_project, tmp_path):
    header = ["image_id", "identity_id", "race", "gender", "emotion"]
    rows = [("i1", "p1", "Korean", "female", "happy"), ("i2", "p1", "한국인", "여성", "슬픔")]
    path = write_csv(tmp_path / "s.csv", header, rows, encoding="cp949")
    offset = path.read_bytes().index("한국인".encode("cp949"))
    with pytest.raises(IngestError) as err:
        ingest_file(tmp_project, "stimuli", path)
    assert f"byte offset {offset} (line 3, column 7)" in str(err.value)
    assert "--encoding cp949" in str(err.value)
    result = ingest_file(tmp_project, "stimuli", path, encoding="cp949")
    assert result.rows_rejected == 0
    assert landed_frame(tmp_project, "stimuli").emotion.tolist() == ["happy", "sad"]


def test_utf8_with_bom_reads_the_first_header(tmp_project, tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes("\ufeffimage_id,identity_id,race,gender,emotion\ni1,p1,한국인,여성,행복\n".encode("utf-8"))
    assert ingest_file(tmp_project, "stimuli", path).rows_landed == 1


# ------------------------------------------------------------------------- formats and typing


def test_booleans_accept_true_false_yes_no_1_0(tmp_project, tmp_path):
    catalog = pd.read_csv("seeds/model_condition_catalog.csv", dtype=str, keep_default_na=False).iloc[:7]
    catalog["thinking"] = ["true", "FALSE", "yes", "No", "1", "0", "maybe"]
    catalog.to_csv(tmp_path / "c.csv", index=False)
    result = ingest_file(tmp_project, "model_conditions", tmp_path / "c.csv")
    assert result.rows_rejected == 1
    assert landed_frame(tmp_project, "model_conditions").thinking.tolist() == [True, False, True, False, True, False]
    assert "thinking='maybe': not a boolean" in rejected_frame(tmp_project, "model_conditions")["_reason_text"].iloc[0]


def test_whitespace_is_trimmed_around_values_and_headers(project_with_refs, tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(" rater_id , image_id ,valence\n  r1 ,\timg1 , 7 \n")
    assert ingest_file(project_with_refs, "human_ratings", path).rows_landed == 1
    assert landed_frame(project_with_refs)[["rater_id", "image_id", "valence"]].iloc[0].tolist() == ["r1", "img1", 7]


def test_excel_typed_numbers_ids_and_booleans(tmp_project, tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["image_id", "identity_id", "race", "gender", "emotion"])
    sheet.append([101, 7.0, "Korean", "female", "happy"])  # numeric ids as Excel stores them
    sheet.append([102, 7.0, "Korean", "female", "슬픔"])
    sheet.append([None, None, None, None, None])  # a blank row in the middle
    sheet.append([103, 8, "Black", "male", "angry"])
    book.save(tmp_path / "s.xlsx")
    assert ingest_file(tmp_project, "stimuli", tmp_path / "s.xlsx").rows_landed == 3
    assert landed_frame(tmp_project, "stimuli")[["image_id", "identity_id"]].values.tolist() == [
        ["101", "7"],
        ["102", "7"],
        ["103", "8"],
    ]

    RATERS.to_csv(tmp_path / "raters.csv", index=False)
    ingest_file(tmp_project, "raters", tmp_path / "raters.csv")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["rater_id", "image_id", "valence", "arousal", "rt_valence_ms"])
    sheet.append(["r1", 101, 7.0, 3, 812.25])
    sheet.append(["r1", 103, 7.5, 3, 900])
    book.save(tmp_path / "r.xlsx")
    result = ingest_file(tmp_project, "human_ratings", tmp_path / "r.xlsx")
    assert (result.rows_landed, result.rows_rejected) == (1, 1)
    assert landed_frame(tmp_project)[["image_id", "valence", "rt_valence_ms"]].values.tolist() == [["101", 7, 812.25]]
    # spreadsheet row numbers: header is row 1
    assert rejected_frame(tmp_project)[["_source_row", "valence"]].values.tolist() == [[3, "7.5"]]


def test_csv_jsonl_xlsx_and_parquet_land_the_same_table(project_with_refs, tmp_path):
    source = pd.DataFrame(
        {
            "rater_id": ["r1", "r2", "r3"],
            "image_id": ["img1", "img2", "img3"],
            "valence": [5, None, 9],
            "rt_valence_ms": [812.5, 900.0, None],
            "emotion": ["happy", "슬픔", None],
        }
    )
    source.to_csv(tmp_path / "r.csv", index=False)
    source.to_json(tmp_path / "r.jsonl", orient="records", lines=True, force_ascii=False)
    source.to_excel(tmp_path / "r.xlsx", index=False)
    source.to_parquet(tmp_path / "r.parquet", index=False)
    tables = []
    for name in ("r.csv", "r.jsonl", "r.xlsx", "r.parquet"):
        assert ingest_file(project_with_refs, "human_ratings", tmp_path / name).rows_landed == 3
        tables.append(pq.read_table(project_with_refs.raw_table("human_ratings")))
    assert all(t.equals(tables[0]) for t in tables[1:])
    assert tables[0].column("valence").to_pylist() == [5, None, 9]
    assert tables[0].column("emotion").to_pylist() == ["happy", "sad", None]


def test_malformed_jsonl_names_the_line(project_with_refs, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"rater_id": "r1", "image_id": "img1"}\n\n{"rater_id": "r2", image_id: 1}\n')
    with pytest.raises(IngestError, match="line 3 is not valid JSON"):
        ingest_file(project_with_refs, "human_ratings", path)


# ------------------------------------------------------------------------ landing semantics


def test_reingesting_the_same_file_is_idempotent(project_with_refs, tmp_path):
    rows = [("r1", "img1", 5, 5, 5), ("r1", "img2", 10, 5, 5)]
    path = write_csv(tmp_path / "r.csv", RATING_COLUMNS, rows)
    outputs = []
    for _ in range(2):
        ingest_file(project_with_refs, "human_ratings", path)
        outputs.append(
            (
                pq.read_table(project_with_refs.raw_table("human_ratings")),
                pq.read_table(project_with_refs.rejected_table("human_ratings")),
            )
        )
    assert outputs[0][0].equals(outputs[1][0]) and outputs[0][1].equals(outputs[1][1])
    manifest = read_manifest(project_with_refs).set_index("table_name")
    assert manifest.index.tolist().count("human_ratings") == 1
    row = manifest.loc["human_ratings"]
    assert row.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (row.rows_landed, row.rows_rejected, row.is_simulated) == (1, 1, False)


def test_a_clean_reingest_replaces_the_table_and_removes_stale_rejections(project_with_refs, tmp_path):
    ingest_file(
        project_with_refs, "human_ratings", write_csv(tmp_path / "a.csv", RATING_COLUMNS, [("r1", "img1", 0, 5, 5)])
    )
    assert project_with_refs.rejected_table("human_ratings").exists()
    result = ingest_file(
        project_with_refs, "human_ratings", write_csv(tmp_path / "b.csv", RATING_COLUMNS, [("r2", "img2", 5, 5, 5)])
    )
    assert result.rejected_path is None and not project_with_refs.rejected_table("human_ratings").exists()
    assert landed_frame(project_with_refs).rater_id.tolist() == ["r2"]


def test_72000_ratings_land_with_rejections_spread_through_the_file(project_with_refs, tmp_path):
    n = 72_000
    rng = np.random.default_rng(0)
    rater = np.repeat(np.array(["r1", "r2", "r3"]), n // 3)
    frame = pd.DataFrame(
        {
            "rater_id": rater,
            "image_id": [f"img{i}" for i in range(n)],
            "valence": rng.integers(1, 10, n),
            "arousal": rng.integers(1, 10, n),
            "naturalness": rng.integers(1, 10, n),
            "rt_valence_ms": rng.gamma(4, 400, n).round(1),
            "trial_index": np.arange(n) % 72 + 1,
        }
    )
    stimuli = pd.DataFrame(
        {"image_id": frame.image_id, "identity_id": "p", "race": "Korean", "gender": "male", "emotion": "happy"}
    )
    stimuli.to_csv(tmp_path / "s.csv", index=False)
    ingest_file(project_with_refs, "stimuli", tmp_path / "s.csv")
    frame.loc[::1000, "valence"] = 0  # 72 rejections spread through the file
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)

    # Speed is measured in benchmarks/bench_ingest.py, not asserted here.
    result = ingest_file(project_with_refs, "human_ratings", path)
    assert (result.rows_landed, result.rows_rejected) == (n - 72, 72)


# ---------------------------------------------------------------------------------------- CLI


def test_cli_exit_codes(project_with_refs, tmp_path, capsys):
    home = ["--home", str(project_with_refs.root)]
    good = write_csv(tmp_path / "good.csv", RATING_COLUMNS, [("r1", "img1", 5, 5, 5)])
    partial = write_csv(tmp_path / "partial.csv", RATING_COLUMNS, [("r1", "img1", 5, 5, 5), ("r2", "img1", 10, 5, 5)])
    (tmp_path / "empty.csv").write_bytes(b"")
    assert cli.main([*home, "ingest", "human_ratings", str(good)]) == 0
    assert cli.main([*home, "ingest", "human_ratings", str(partial)]) == 3
    assert "valence [scale_integer]: 1 row" in capsys.readouterr().out
    assert cli.main([*home, "ingest", "human_ratings", str(tmp_path / "empty.csv")]) == 2
    assert "empty" in capsys.readouterr().err
    assert cli.main([*home, "ingest", "no_such_table", str(good)]) == 2
    korean = write_csv(
        tmp_path / "k.csv",
        ["image_id", "identity_id", "race", "gender", "emotion"],
        [("i1", "p1", "한국인", "여성", "행복")],
        encoding="cp949",
    )
    assert cli.main([*home, "ingest", "stimuli", str(korean)]) == 2
    assert cli.main([*home, "ingest", "stimuli", str(korean), "--encoding", "cp949"]) == 0


def test_cli_process_exit_code_for_partial_ingest(project_with_refs, tmp_path):
    partial = write_csv(
        tmp_path / "partial.csv", RATING_COLUMNS, [("r1", "img1", 5, 5, 5), ("r2", "img1", "7.5", 5, 5)]
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rater1001.cli",
            "--home",
            str(project_with_refs.root),
            "ingest",
            "human_ratings",
            str(partial),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert "valence='7.5': not a whole number [type:int]" in done.stdout


def test_ragged_and_nameless_columns(project_with_refs, tmp_path):
    trailing = tmp_path / "trailing.csv"  # spreadsheet exports often end every line with a separator
    trailing.write_text("rater_id,image_id,valence,\nr1,img1,5,\nr2,img2,6,\n")
    assert ingest_file(project_with_refs, "human_ratings", trailing).rows_landed == 2
    nameless = tmp_path / "nameless.csv"
    nameless.write_text("rater_id,image_id,,valence\nr1,img1,x,5\n")
    with pytest.raises(IngestError, match=r"column 3 \(C\) holds values but has no header"):
        ingest_file(project_with_refs, "human_ratings", nameless)
    for text, line in (("r1,img1,5,9\nr2,img2,6\n", 2), ("r1,img1,5\nr2,img2,6\nr3,img3,7,7\n", 4)):
        longer = tmp_path / "longer.csv"
        longer.write_text("rater_id,image_id,valence\n" + text)
        with pytest.raises(IngestError, match=f"line {line}"):
            ingest_file(project_with_refs, "human_ratings", longer)


def test_the_simulated_study_round_trips_through_csv(small_study, tmp_path):
    """Every table the simulator lands, written out as CSV and ingested into a fresh project, lands
    whole and equal: the contract the simulator writes through is the contract ingest enforces."""
    from rater1001.contract import LOAD_ORDER
    from rater1001.paths import project

    fresh = project(tmp_path / "fresh")
    tables = [t for t in LOAD_ORDER if small_study.raw_table(t).exists()]
    assert {"stimuli", "raters", "human_ratings", "model_conditions", "model_predictions"} <= set(tables)
    for name in tables:
        original = pq.read_table(small_study.raw_table(name))
        original.to_pandas().to_csv(tmp_path / f"{name}.csv", index=False)
        result = ingest_file(fresh, name, tmp_path / f"{name}.csv")
        assert (result.rows_landed, result.rows_rejected) == (original.num_rows, 0), result.summary()
        assert pq.read_table(fresh.raw_table(name)).equals(original.cast(pq.read_schema(fresh.raw_table(name))))


def test_free_text_columns_are_kept_verbatim(project_with_refs, tmp_path):
    catalog = pd.read_csv("seeds/model_condition_catalog.csv", dtype=str, keep_default_na=False)
    catalog.to_csv(tmp_path / "c.csv", index=False)
    ingest_file(project_with_refs, "model_conditions", tmp_path / "c.csv")
    predictions = pd.DataFrame(
        {
            "condition_id": ["gpt-4o-mini "] * 3,
            "image_id": ["img1", "img2", "img3"],
            "run_id": " 1",
            "strategy": "json-single",
            "parse_path": "json",
            "thinking_text": ["  Let me look.\n", "NA", ""],
            "raw_responses": ['[" {\\"emotion\\": \\"happy\\"} "]', None, None],
        }
    )
    predictions.to_csv(tmp_path / "p.csv", index=False)
    assert ingest_file(project_with_refs, "model_predictions", tmp_path / "p.csv").rows_landed == 3
    landed = landed_frame(project_with_refs, "model_predictions")
    assert landed.condition_id.tolist() == ["gpt-4o-mini"] * 3 and landed.run_id.tolist() == ["1"] * 3  # ids trimmed
    assert landed.thinking_text.tolist()[:2] == ["  Let me look.\n", "NA"]  # text as written
    assert pd.isna(landed.thinking_text[2])  # only an empty cell is missing
    assert landed.raw_responses[0] == '[" {\\"emotion\\": \\"happy\\"} "]'


def test_excel_values_right_of_the_header_are_refused(project_with_refs, tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["rater_id", "image_id", "valence"])
    book.active.append(["r1", "img1", 5, "stray"])
    book.save(tmp_path / "r.xlsx")
    with pytest.raises(IngestError, match=r"column 4 \(D\) holds values but has no header"):
        ingest_file(project_with_refs, "human_ratings", tmp_path / "r.xlsx")


# ------------------------------------------------------------------ short rows, large numbers


def test_rows_cut_short_are_rejected_not_landed_with_nulls(project_with_refs, tmp_path):
    header = ",".join(RATING_COLUMNS)
    unquoted = tmp_path / "cut.csv"
    unquoted.write_text(f"{header}\nr1,img1,5,5,5\nr2,img1,5\n\nr3,img1,5,5,\nr1,img2,4,4", encoding="utf-8")
    quoted = tmp_path / "cut_quoted.csv"  # quotes send the count through the csv module
    quoted.write_text(
        f'{header}\n"r1","img1",5,5,5\n"r2","img1",5\n\n"r3","img1",5,5,\n"r1","img2",4,4', encoding="utf-8"
    )
    crlf = tmp_path / "cut_crlf.csv"  # a Windows export
    crlf.write_bytes(unquoted.read_bytes().replace(b"\n", b"\r\n"))
    for path in (unquoted, quoted, crlf):
        result = ingest_file(project_with_refs, "human_ratings", path)
        assert (result.rows_landed, result.rows_rejected) == (2, 2), path.name
        rejected = rejected_frame(project_with_refs)
        assert rejected["_source_row"].tolist() == [3, 6]
        assert rejected["_rules"].tolist() == ["row [short_row]", "row [short_row]"]
        assert rejected["_reason"].map(list).tolist() == [
            ["row: 3 of the header's 5 fields (cut short?) [short_row]"],
            ["row: 4 of the header's 5 fields (cut short?) [short_row]"],
        ]
        # an empty last cell written out is a value (missing), not a short row
        assert landed_frame(project_with_refs)["naturalness"].isna().tolist() == [False, True]
    assert "row [short_row]: 2 rows" in result.summary()


def test_huge_numbers_reject_their_row_and_integers_stay_exact(project_with_refs, tmp_path):
    columns = RATING_COLUMNS + ["trial_index"]
    rows = [
        ("r1", "img1", "99999999999999999999", 5, 5, 1),
        ("r2", "img1", 5, 5, 5, "1e20"),
        ("r3", "img1", 5, 5, 5, 2),
    ]
    result = ingest_file(project_with_refs, "human_ratings", write_csv(tmp_path / "r.csv", columns, rows))
    assert (result.rows_landed, result.rows_rejected) == (1, 2)
    rejected = rejected_frame(project_with_refs).set_index("_source_row")
    assert rejected.loc[2, "_rules"] == "valence [type:int]; valence [scale_integer]"
    assert "valence='99999999999999999999': too large to keep exactly" in rejected.loc[2, "_reason_text"]
    assert rejected.loc[3, "_rules"] == "trial_index [type:int]"

    seed = 9007199254740993  # 2**53 + 1: a float64 would store ...992
    conditions = pd.DataFrame(
        {
            "condition_id": ["c1", "c2"],
            "display_name": ["C1", "C2"],
            "kind": "vlm",
            "thinking": "false",
            "backend": "openai",
            "seed": [str(seed), "-9223372036854775808"],
        }
    )
    conditions.to_csv(tmp_path / "c.csv", index=False)
    conditions.assign(seed=[seed, -(2**63)]).to_json(tmp_path / "c.jsonl", orient="records", lines=True)
    for name in ("c.csv", "c.jsonl"):
        assert ingest_file(project_with_refs, "model_conditions", tmp_path / name).rows_landed == 2
        assert pq.read_table(project_with_refs.raw_table("model_conditions")).column("seed").to_pylist() == [
            seed,
            -(2**63),
        ]


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from(["", "+", "0", "00"]))
def test_whole_numbers_written_as_digits_are_read_exactly_or_refused(value, prefix):
    from rater1001.ingest.arrow_text import parse_integers, parse_numbers

    text = ("-" if value < 0 else "") + prefix.lstrip("+" if value < 0 else "") + str(abs(value))
    cells = pd.Series([text, "7.0", "1e3", "2e16"], dtype="str")
    values, too_large = parse_integers(cells, parse_numbers(cells))
    fits = -(2**63) <= value < 2**63
    assert bool(too_large[0]) is (not fits)
    assert (values.iloc[0] == value) if fits else pd.isna(values.iloc[0])
    # written with a decimal point or an exponent: exact only up to 2**53
    assert values.iloc[1:3].tolist() == [7, 1000] and too_large.tolist()[1:] == [False, False, True]


# ------------------------------------------------------------------------ odd files, odd cells


def test_cr_only_line_ends_read_like_any_other(project_with_refs, tmp_path):
    path = tmp_path / "mac.csv"
    path.write_bytes(b"rater_id,image_id,valence\rr1,img1,5\rr2,img2,6\r")
    assert ingest_file(project_with_refs, "human_ratings", path).rows_landed == 2
    assert landed_frame(project_with_refs)["valence"].tolist() == [5, 6]


def test_a_jsonl_line_that_is_not_an_object_is_refused_naming_the_line(project_with_refs, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    for body in ('{"rater_id": "r1", "image_id": "img1"}\n["r2", "img2"]\n', '["r1", "img1"]\n["r2", "img2"]\n'):
        path.write_text(body)
        line = 2 if body.startswith("{") else 1
        with pytest.raises(IngestError, match=f"line {line} is a JSON list, expected an object"):
            ingest_file(project_with_refs, "human_ratings", path)
    assert cli.main(["--home", str(project_with_refs.root), "ingest", "human_ratings", str(path)]) == 2


def test_a_huge_bad_cell_is_cut_in_messages_and_kept_whole_in_the_rejected_file(tmp_project, tmp_path, capsys):
    huge = "x" * 5_000_000
    stimuli = STIMULI.copy()
    stimuli.loc[1, "emotion"] = huge
    stimuli.to_csv(tmp_path / "s.csv", index=False)
    assert cli.main(["--home", str(tmp_project.root), "ingest", "stimuli", str(tmp_path / "s.csv")]) == 3
    out = capsys.readouterr().out
    assert len(out) < 5_000 and "(5000000 characters)" in out
    rejected = rejected_frame(tmp_project, "stimuli")
    assert rejected["emotion"].iloc[0] == huge and len(rejected["_reason_text"].iloc[0]) < 500


def test_a_separator_inside_a_value_does_not_blur_the_reasons(tmp_project, tmp_path):
    stimuli = STIMULI.copy()
    stimuli.loc[0, "race"] = "Korean; Black"
    stimuli.loc[0, "emotion"] = "joyful; calm"
    stimuli.to_csv(tmp_path / "s.csv", index=False)
    ingest_file(tmp_project, "stimuli", tmp_path / "s.csv")
    reasons = rejected_frame(tmp_project, "stimuli")["_reason"].iloc[0].tolist()
    assert len(reasons) == 2
    assert reasons[0].startswith("race='Korean; Black': not a declared race label")
    assert reasons[1].startswith("emotion='joyful; calm': not a declared emotion label")


def test_excel_formulas_without_a_saved_value_are_rejected_and_other_sheets_named(project_with_refs, tmp_path):
    import openpyxl

    book = openpyxl.Workbook()  # written by a script: formulas carry no cached value
    sheet = book.active
    sheet.title = "ratings"
    sheet.append(["rater_id", "image_id", "valence", "arousal"])
    sheet.append(["r1", "img1", 5, 5])
    sheet.append(["r2", "img1", "=2+3", 5])
    sheet.append(["r3", "img1", None, 5])  # really empty: lands as NULL
    book.create_sheet("notes").append(["anything"])
    book.save(tmp_path / "r.xlsx")
    result = ingest_file(project_with_refs, "human_ratings", tmp_path / "r.xlsx")
    assert (result.rows_landed, result.rows_rejected) == (2, 1)
    rejected = rejected_frame(project_with_refs)
    assert rejected["_source_row"].tolist() == [3] and rejected["_rules"].tolist() == ["valence [xlsx_formula]"]
    assert "valence='=2+3': formula without a saved value" in rejected["_reason_text"].iloc[0]
    assert any("only the first, 'ratings', was read (not 'notes')" in w and "--sheet" in w for w in result.warnings)
    assert "only the first" in result.summary()


def test_decomposed_korean_labels_are_composed_before_matching(tmp_project, tmp_path):
    import unicodedata

    stimuli = STIMULI.copy()
    stimuli["emotion"] = [unicodedata.normalize("NFD", v) for v in ("행복", "슬픔", "분노", "중립")]
    stimuli["race"] = unicodedata.normalize("NFD", "한국인")
    assert stimuli["emotion"].iloc[0] != "행복"  # what a macOS file name or clipboard gives
    stimuli.to_csv(tmp_path / "s.csv", index=False)
    result = ingest_file(tmp_project, "stimuli", tmp_path / "s.csv")
    assert result.rows_rejected == 0
    assert landed_frame(tmp_project, "stimuli")["emotion"].tolist() == ["happy", "sad", "angry", "neutral"]
