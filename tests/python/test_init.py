"""`rater1001 init`: the shape guessed from a long file and from a wide one, the flags that settle an
ambiguous guess, the bad inputs it refuses by name (exit 2, nothing written) and a second run that
would overwrite a study. The acceptance studies' published files: tests/acceptance/."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.cli import main
from rater1001.init.guess import Options
from rater1001.init.shape import propose
from rater1001.paths import project
from rater1001.study import load_study


def run(home, *argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(home), "init", *map(str, argv)])
    return code, out.getvalue(), err.getvalue()


def long_ratings() -> pd.DataFrame:
    """6 faces x 4 raters: a 1-7 valence rating and a chosen emotion; the face's race and intended
    emotion repeat on each of its rows, the rater's gender on each of theirs."""
    rows = []
    for s in range(6):
        for r in range(4):
            rows.append(
                {
                    "face": f"f{s}",
                    "annotator": f"a{r}",
                    "Valence": 1 + (s + r) % 7,
                    "chosen": ["happy", "sad"][(s + (r == 3)) % 2],
                    "intended": ["happy", "sad"][s % 2],
                    "Race": ["Korean", "Black", "White"][s % 3],
                    "rater_gender": ["f", "m"][r % 2],
                }
            )
    return pd.DataFrame(rows)


def test_a_long_file_gives_every_role_and_lands(tmp_path):
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    home = tmp_path / "study"
    code, out, err = run(home, ratings, "--yes")
    assert code == 0, out + err
    study = load_study(project(home))
    assert study.dimensions == ("valence",) and (study.scale_min, study.scale_max) == (1, 7)
    assert [(f.name, f.role) for f in study.factors] == [("chosen", "category"), ("race", "audit")]
    assert study.rater_attributes == ("rater_gender",)
    assert study.levels("race") == ["black", "korean", "white"]
    assert study.label_map("race")["korean"] == "korean"
    stimuli = pd.read_parquet(project(home).raw_table("stimuli")).set_index("image_id")
    # the intended emotion is the stimulus's category, not the raters' majority
    assert stimuli.loc["f1", "chosen"] == "sad" and stimuli.loc["f0", "race"] == "korean"
    assert len(pd.read_parquet(project(home).raw_table("human_ratings"))) == 24
    for column, role in (("face", "stimulus key"), ("annotator", "rater key"), ("intended", "category (intended)")):
        assert any(line.split()[1:3] == [column, *role.split()[:1]] for line in out.splitlines()), out


def test_a_wide_file_without_a_rater_key_numbers_its_rows_and_says_so(tmp_path):
    wide = pd.DataFrame(
        {
            "gender": ["f", "m", "f", "m", "m"],
            **{f"img{i}": [1 + (i + k) % 5 for k in range(5)] for i in range(6)},
        }
    )
    ratings = tmp_path / "survey.xlsx"
    wide.to_excel(ratings, index=False)
    home = tmp_path / "study"
    code, out, err = run(home, ratings, "--yes", "--dimension", "liking")
    assert code == 0, out + err
    assert "each of the 5 rows is a rater, numbered r1 to r5" in out
    raters = pd.read_parquet(project(home).raw_table("raters"))
    assert raters.set_index("rater_id").loc["r2", "gender"] == "m"
    human = pd.read_parquet(project(home).raw_table("human_ratings"))
    assert (
        len(human) == 30 and human.set_index(["rater_id", "image_id"]).loc[("r3", "img4"), "liking"] == 1 + (4 + 2) % 5
    )
    assert load_study(project(home)).scale_max == 5


def test_predictions_find_their_model_key_and_dimensions(tmp_path):
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    predictions = tmp_path / "models.jsonl"
    rows = [
        {"item": f"f{s}", "Model": m, "valence": 3.5, "chosen": "happy"}
        for s in range(6)
        for m in ("GPT-4o", "Gemma 3")
    ]
    pd.DataFrame(rows).to_json(predictions, orient="records", lines=True)
    home = tmp_path / "study"
    code, out, err = run(home, ratings, "--predictions", predictions, "--yes")
    assert code == 0, out + err
    landed = pd.read_parquet(project(home).raw_table("model_predictions"))
    assert sorted(landed.condition_id.unique()) == ["gemma-3", "gpt-4o"] and len(landed) == 12
    assert load_study(project(home)).model_dimensions == ("valence",)


def _crowd_majority(tmp_path) -> Path:
    """A condition the user computed, in the layout they have: a row per stimulus, the condition's
    key and its name in words, the label named as the raters' (`chosen`)."""
    ratings = long_ratings()
    majority = ratings.groupby("face").chosen.agg(lambda v: v.mode().iloc[0])
    path = tmp_path / "crowd.csv"
    pd.DataFrame(
        {"face": majority.index, "condition": "crowd-majority", "display_name": "Majority of the raters"}
    ).assign(chosen=majority.to_numpy()).to_csv(path, index=False)
    return path


def test_a_condition_the_user_computed_lands_through_predictions_with_its_kind_and_name(tmp_path):
    """A crowd's majority is a condition of kind human-proxy (not guessable from the file: the flag
    says it); its name in words is the display name, not a second model key."""
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    home = tmp_path / "study"
    code, out, err = run(
        home, ratings, "--predictions", _crowd_majority(tmp_path), "--model-kind", "human-proxy", "--yes"
    )
    assert code == 0, out + err
    conditions = pd.read_parquet(project(home).raw_table("model_conditions"))
    assert conditions[["condition_id", "display_name", "kind"]].values.tolist() == [
        ["crowd-majority", "Majority of the raters", "human-proxy"]
    ]
    landed = pd.read_parquet(project(home).raw_table("model_predictions"))
    expected = long_ratings().groupby("face").chosen.agg(lambda v: v.mode().iloc[0])
    assert dict(zip(landed.image_id, landed.chosen)) == expected.to_dict() and len(landed) == 6


def test_a_model_and_a_computed_condition_come_from_two_files_each_of_its_kind(tmp_path):
    """--predictions twice (a model's answers, and a condition the user computed); --model-kind
    MODEL=KIND gives one condition its kind, the others keep the study's default (vlm: images).
    The model dimensions are those any file answers."""
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    models = tmp_path / "models.jsonl"
    pd.DataFrame([{"item": f"f{s}", "Model": "GPT-4o", "valence": 3.5} for s in range(6)]).to_json(
        models, orient="records", lines=True
    )
    crowd = _crowd_majority(tmp_path)
    home = tmp_path / "study"
    code, out, err = run(
        home,
        ratings,
        "--predictions",
        models,
        "--predictions",
        crowd,
        "--model-kind",
        "crowd-majority=human-proxy",
        "--yes",
    )
    assert code == 0, out + err
    conditions = pd.read_parquet(project(home).raw_table("model_conditions")).set_index("condition_id")
    assert conditions.kind.to_dict() == {"gpt-4o": "vlm", "crowd-majority": "human-proxy"}
    landed = pd.read_parquet(project(home).raw_table("model_predictions"))
    assert landed.groupby("condition_id").size().to_dict() == {"crowd-majority": 6, "gpt-4o": 6}
    assert landed.query("condition_id == 'gpt-4o'").chosen.isna().all()
    assert load_study(project(home)).model_dimensions == ("valence",)
    # the same model in two files, a kind that is not one, a kind of a model not given: exit 2, nothing written
    for argv, said in (
        (("--predictions", crowd, "--predictions", crowd), "model 'crowd-majority' is also in crowd.csv"),
        (("--predictions", crowd, "--model-kind", "crowd"), "'crowd' is not a kind of condition"),
        (("--predictions", crowd, "--model-kind", "gpt=llm"), "no model 'gpt' in the predictions"),
        (("--model-kind", "human-proxy"), "no model answers to give it to"),
    ):
        code, out, err = run(tmp_path / "bad", ratings, *argv, "--yes")
        assert code == 2 and said in err and "Traceback" not in err, err
        assert _no_study_written(tmp_path / "bad")


def test_models_in_the_ratings_file_stay_beside_a_predictions_file():
    """HANNA's layout holds its models' answers in the ratings file; a condition the user computed
    comes in a predictions file; both land. A model the file also holds is taken from the file."""
    items = [f"item{i}" for i in range(6)]
    frame = pd.DataFrame({"item": items})
    for r, who in enumerate(("Human 1", "Human 2", "Human 3")):
        for d, code in enumerate(("CH", "EM")):
            frame[f"{who} {code}"] = [1 + (i + r + d) % 5 for i in range(6)]
    for d, code in enumerate(("CH", "EM")):
        frame[f"gpt {code}"] = [2.5 + 0.1 * i + d for i in range(6)]
    mean = frame[[f"Human {r} CH" for r in (1, 2, 3)]].mean(axis=1)
    computed = pd.DataFrame({"item": items, "model": "mean", "CH": mean})
    again = pd.DataFrame({"item": items, "model": "gpt", "CH": 9.0, "EM": 9.0})
    options = Options(model_kind=("mean=human-proxy",))
    for extra, gpt in (([], 2.5), ([(again.astype(str), "gpt.csv")], 9.0)):
        sources = [(computed.astype(str), "mean.csv"), *extra]
        proposal = propose(frame.astype(str), "hanna.csv", options, predictions=sources)
        conditions = proposal.tables["model_conditions"].set_index("condition_id").kind.to_dict()
        assert conditions == {"mean": "human-proxy", "gpt": "vlm"}
        rows = proposal.tables["model_predictions"].set_index(["condition_id", "image_id"]).ch.astype(float)
        assert rows[("mean", "item3")] == pytest.approx(mean[3]) and rows[("gpt", "item0")] == gpt
        assert len(rows) == 12


def _no_study_written(home) -> bool:
    return not (home / "study.yml").exists() and not (home / "seeds").exists()


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (  # one row per stimulus: nobody is named as the rater
            pd.DataFrame({"item": [f"s{i}" for i in range(8)], "label": ["a", "b"] * 4}),
            "no column can be the rater key",
        ),
        (  # a "label" with 200 different values
            pd.DataFrame(
                {
                    "item": [f"s{i % 20}" for i in range(400)],
                    "rater": [f"r{i // 20}" for i in range(400)],
                    "answer": [f"w{i % 200}" for i in range(400)],
                }
            ),
            "column 'answer' holds 200 different labels",
        ),
        (  # a rating column far outside any scale
            pd.DataFrame(
                {
                    "item": [f"s{i % 5}" for i in range(20)],
                    "rater": [f"r{i // 5}" for i in range(20)],
                    "score": [i * 37 for i in range(20)],
                }
            ),
            "column 'score' holds ratings from 0 to 703: outside any plausible rating scale",
        ),
    ],
)
def test_bad_input_names_the_column_writes_nothing_and_exits_2(tmp_path, frame, expected):
    ratings = tmp_path / "ratings.csv"
    frame.to_csv(ratings, index=False)
    home = tmp_path / "study"
    code, out, err = run(home, ratings, "--yes")
    assert code == 2 and expected in err and "ratings.csv" in err, err
    assert "Traceback" not in err and _no_study_written(home)


def test_a_json_file_that_is_not_records_is_refused_by_name(tmp_path):
    for text, expected in (('{"a": [1, 2', "cannot read as JSON"), ("[1, 2, 3]", "expected an array of objects")):
        ratings = tmp_path / "ratings.json"
        ratings.write_text(text, encoding="utf-8")
        code, _, err = run(tmp_path / "study", ratings, "--yes")
        assert code == 2 and expected in err and "ratings.json" in err, err
        assert "Traceback" not in err and _no_study_written(tmp_path / "study")


def test_an_ambiguous_label_stops_naming_the_candidates_and_a_flag_settles_it(tmp_path):
    frame = long_ratings().drop(columns=["Valence"]).assign(second=lambda f: f.chosen.str.upper().str[::-1])
    ratings = tmp_path / "ratings.csv"
    frame.to_csv(ratings, index=False)
    code, _, err = run(tmp_path / "a", ratings, "--yes")
    assert code == 2 and "'chosen', 'second'" in err and "--label-col" in err
    code, out, err = run(tmp_path / "b", ratings, "--yes", "--label-col", "chosen", "--ignore", "second")
    assert code == 0, out + err
    assert load_study(project(tmp_path / "b")).category.name == "chosen"


def test_a_second_run_never_overwrites_a_changed_study(tmp_path):
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    home = tmp_path / "study"
    assert run(home, ratings)[0] == 0
    edited = (home / "study.yml").read_text(encoding="utf-8").replace("name: my-study", "name: mine")
    (home / "study.yml").write_text(edited, encoding="utf-8")
    code, _, err = run(home, ratings, "--yes")
    assert code == 2 and "already exist" in err
    assert (home / "study.yml").read_text(encoding="utf-8") == edited
    assert not project(home).raw_table("stimuli").exists()
    # the same guess again is not a change: it runs
    assert run(home, ratings, "--yes", "--name", "mine")[0] == 0


@settings(max_examples=40, deadline=None)
@given(
    n_stimuli=st.integers(2, 8),
    n_raters=st.integers(2, 6),
    top=st.sampled_from([4, 5, 7, 9, 10]),
    seed=st.integers(0, 2**16),
    wide=st.booleans(),
)
def test_any_complete_rating_table_comes_back_as_written(n_stimuli, n_raters, top, seed, wide):
    """Round trip: a random complete design written long or wide is read back as the same ratings,
    on the scale 1..top whenever someone used the top. (A column fixed within each stimulus is the
    stimulus's property and one fixed within each rater the rater's, not a rating: the design has
    raters who disagree and who use more than one value.)"""
    rng = np.random.default_rng(seed)
    values = rng.integers(1, top + 1, size=(n_raters, n_stimuli))
    # someone used the top; ratings differ within a stimulus and within a rater
    values[0, 0], values[1, 0], values[0, 1] = top, 1, 1
    stimuli = [f"item{j}" for j in range(n_stimuli)]
    raters = [f"rater{i}" for i in range(n_raters)]
    truth = pd.DataFrame(
        [(r, s, int(values[i, j])) for i, r in enumerate(raters) for j, s in enumerate(stimuli)],
        columns=["rater_id", "image_id", "score"],
    )
    if wide:
        frame = pd.DataFrame(values.astype(str), columns=stimuli).assign(rater=raters)
    else:
        frame = truth.rename(columns={"rater_id": "rater", "image_id": "item"}).astype(str)
    proposal = propose(frame, "ratings.csv", Options(dimensions=("score",) if wide else ()))
    got = proposal.tables["human_ratings"].astype({"score": int})[["rater_id", "image_id", "score"]]
    pd.testing.assert_frame_equal(
        got.sort_values(["rater_id", "image_id"]).reset_index(drop=True),
        truth.sort_values(["rater_id", "image_id"]).reset_index(drop=True),
    )
    assert proposal.shape.scale == (1, top) and proposal.shape.layout == ("wide" if wide else "long")


def test_a_wide_file_of_labels_keeps_rater_attributes_apart_from_the_answers(tmp_path):
    """A survey export: rater, gender, then one forced-choice column per stimulus. gender's values are
    no answer's, so it is a rater attribute, not a stimulus."""
    wide = pd.DataFrame(
        {
            "participant": ["p1", "p2", "p3", "p4"],
            "gender": ["female", "male", "male", "female"],
            **{f"clip{i}": [["happy", "sad", "angry"][(i + k) % 3] for k in range(4)] for i in range(5)},
        }
    )
    ratings = tmp_path / "survey.csv"
    wide.to_csv(ratings, index=False)
    home = tmp_path / "study"
    code, out, err = run(home, ratings, "--yes", "--label-col", "emotion")
    assert code == 0, out + err
    study = load_study(project(home))
    assert study.category.name == "emotion" and study.rater_attributes == ("gender",)
    human = pd.read_parquet(project(home).raw_table("human_ratings"))
    assert sorted(human.image_id.unique()) == [f"clip{i}" for i in range(5)] and len(human) == 20
    assert human.set_index(["rater_id", "image_id"]).loc[("p2", "clip1"), "emotion"] == "angry"


def test_stimulus_and_rater_sheets_beside_the_ratings(tmp_path):
    """Ratings in Parquet, a stimulus sheet (XLSX) with two text columns and a factor, a rater file (JSONL) with
    age and an attribute; each sheet's key is the column holding the ratings' ids."""
    ratings = long_ratings()[["face", "annotator", "Valence"]]
    ratings.to_parquet(tmp_path / "ratings.parquet", index=False)
    sheet = pd.DataFrame(
        {
            "Stimulus": [f"f{s}" for s in range(6)],
            "Topic": ["food", "travel", "food", "news", "news", "travel"],
            "Body": [f"A long enough text about thing number {s}, with several words in it." for s in range(6)],
            "Reply": [f"And a long enough reply to thing number {s}, in words." for s in range(5)] + [None],
        }
    )
    sheet.to_excel(tmp_path / "stimuli.xlsx", index=False)
    people = pd.DataFrame({"id": ["a0", "a1", "a2", "a3"], "age": [21, 35, 48, 62], "region": ["n", "s", "n", "s"]})
    people.to_json(tmp_path / "raters.jsonl", orient="records", lines=True)
    home = tmp_path / "study"
    code, out, err = run(
        home,
        tmp_path / "ratings.parquet",
        "--stimuli",
        tmp_path / "stimuli.xlsx",
        "--raters",
        tmp_path / "raters.jsonl",
        "--yes",
    )
    assert code == 0, out + err
    study = load_study(project(home))
    assert study.stimulus_kind == "text" and [f.name for f in study.audit_factors] == ["topic"]
    assert study.rater_attributes == ("region",)
    stimuli = pd.read_parquet(project(home).raw_table("stimuli")).set_index("image_id")
    assert stimuli.loc["f3", "topic"] == "news"
    # two text columns (a post and its reply): the stimulus is both, a line --- between
    assert stimuli.loc["f3", "text"] == sheet.Body[3] + "\n---\n" + sheet.Reply[3]
    assert stimuli.loc["f5", "text"] == sheet.Body[5]
    raters = pd.read_parquet(project(home).raw_table("raters")).set_index("rater_id")
    assert raters.loc["a2", "age"] == 48 and raters.loc["a2", "region"] == "n"


def test_a_long_file_with_numeric_ids_and_a_row_number_stays_long(tmp_path):
    frame = pd.DataFrame(
        {"row": range(12), "item": [1 + i % 4 for i in range(12)], "coder": [1 + i // 4 for i in range(12)]}
    ).assign(score=lambda f: 1 + (f.item * f.coder) % 5)
    proposal = propose(frame.astype(str), "ratings.csv", Options())
    assert (proposal.shape.layout, proposal.shape.stimulus_col, proposal.shape.rater_col) == ("long", "item", "coder")


def test_columns_named_who_x_dimension_split_raters_from_models(tmp_path):
    """A row per item; `coder A valence`, ... whole numbers (raters) and `gpt valence`, ... means
    (a model): raters land as ratings, the model as predictions. A survey whose rows are
    respondents (`ResponseId`) with `Q1 1`, `Q1 2`, ... columns is not read this way."""
    items = [f"item{i}" for i in range(6)]
    frame = pd.DataFrame({"item": items})
    for who in ("coder A", "coder B", "coder C"):
        for d, dim in enumerate(("valence", "arousal")):
            frame[f"{who} {dim}"] = [1 + (i + d + len(who) + ord(who[-1])) % 5 for i in range(6)]
    for d, dim in enumerate(("valence", "arousal")):
        frame[f"gpt {dim}"] = [2.5 + 0.1 * i + d for i in range(6)]
    proposal = propose(frame.astype(str), "items.csv", Options())
    human = proposal.tables["human_ratings"]
    assert sorted(human.rater_id.unique()) == ["coder A", "coder B", "coder C"] and len(human) == 18
    assert set(proposal.shape.dimensions) == {"valence", "arousal"}
    predictions = proposal.tables["model_predictions"]
    assert list(predictions.condition_id.unique()) == ["gpt"] and len(predictions) == 6
    survey = pd.DataFrame(
        {"ResponseId": ["R1", "R2", "R3"], "Q1 1": [1, 2, 3], "Q1 2": [2, 3, 4], "Q2 1": [1, 1, 2], "Q2 2": [5, 4, 3]}
    )
    assert propose(survey.astype(str), "survey.csv", Options()).shape.rater_col == "ResponseId"


@pytest.mark.parametrize(("answer", "overwritten"), [("y", True), ("n", False)])
def test_on_a_terminal_a_second_run_asks_before_overwriting(tmp_path, monkeypatch, answer, overwritten):
    ratings = tmp_path / "ratings.csv"
    long_ratings().to_csv(ratings, index=False)
    home = tmp_path / "study"
    assert run(home, ratings)[0] == 0
    (home / "study.yml").write_text("# mine\n", encoding="utf-8")
    asked = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda question: asked.append(question) or answer)
    code, _, _ = run(home, ratings)
    assert asked and "study.yml" in asked[0]
    assert (code == 0) == overwritten
    assert ((home / "study.yml").read_text(encoding="utf-8") == "# mine\n") != overwritten


def test_a_long_file_that_does_not_say_who_rated_numbers_the_raters_by_position(tmp_path):
    """EmoBank's layout: `id,V,A` a row per rating, no rater column (two raters of a stimulus may
    give the same answers, so no pair of columns names a row); the stimuli's genre in one
    sheet and their texts in another (--stimuli twice). The k-th row of a stimulus is rater<k>; a
    study without predictions compares a model added later on every dimension."""
    rows = [
        {"id": f"s{s}", "V": 1 + (s + k // 2) % 5, "A": 1 + (s + k // 2 + 1) % 5}
        for s in range(6)
        for k in range(3 + s % 2)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "ratings.csv", index=False)
    pd.DataFrame({"id": [f"s{s}" for s in range(6)], "category": ["blog", "news"] * 3}).to_csv(
        tmp_path / "meta.tsv", sep="\t", index=False
    )
    texts = [f"Sentence number {s} is long enough, with several words in it." for s in range(6)]
    pd.DataFrame({"id": [f"s{s}" for s in range(6)], "text": texts}).to_csv(tmp_path / "raw.csv", index=False)
    home = tmp_path / "study"
    argv = [tmp_path / "ratings.csv", "--stimuli", tmp_path / "meta.tsv", "--stimuli", tmp_path / "raw.csv"]
    code, out, err = run(home, *argv, "--dimension", "valence=V", "--dimension", "arousal=A", "--yes")
    assert code == 0, out + err
    assert "the k-th row of a stimulus is rater<k>" in out
    human = pd.read_parquet(project(home).raw_table("human_ratings")).set_index(["rater_id", "image_id"])
    assert len(human) == len(rows) and human.loc[("rater4", "s3"), "valence"] == 1 + (3 + 1) % 5
    assert sorted(pd.read_parquet(project(home).raw_table("raters")).rater_id) == [f"rater{k}" for k in range(1, 5)]
    stimuli = pd.read_parquet(project(home).raw_table("stimuli")).set_index("image_id")
    assert stimuli.loc["s5", "category"] == "news" and stimuli.loc["s5", "text"] == texts[5]
    study = load_study(project(home))
    assert study.dimensions == study.model_dimensions == ("valence", "arousal")


def test_identity_by_flag_and_an_age_named_as_the_raters(tmp_path):
    """--identity-col names the stimulus column saying whose face a stimulus shows (here the sheet's
    key: each face its own identity); a rater column named `rater_age` of whole years is the age."""
    wide = pd.DataFrame(
        {
            "rater_sex": ["f", "m", "f", "m", "m"],
            "rater_age": [19, 23, 31, 23, 27],
            **{f"X{i:03d}": [1 + (i + k) % 7 for k in range(5)] for i in range(6)},
        }
    )
    wide.to_csv(tmp_path / "ratings.csv", index=False)
    info = pd.DataFrame({"face_id": [f"X{i:03d}" for i in range(6)], "face_sex": ["female", "male"] * 3})
    info.to_csv(tmp_path / "info.csv", index=False)
    home = tmp_path / "study"
    argv = [tmp_path / "ratings.csv", "--stimuli", tmp_path / "info.csv", "--dimension", "attractiveness"]
    code, out, err = run(home, *argv, "--identity-col", "face_id", "--yes")
    assert code == 0, out + err
    stimuli = pd.read_parquet(project(home).raw_table("stimuli")).set_index("image_id")
    assert (stimuli.identity_id == stimuli.index).all() and stimuli.loc["X001", "face_sex"] == "male"
    raters = pd.read_parquet(project(home).raw_table("raters")).set_index("rater_id")
    assert raters.loc["r4", "age"] == 23 and load_study(project(home)).rater_attributes == ("rater_sex",)
    wrong = tmp_path / "wrong"
    code, _, err = run(wrong, *argv, "--identity-col", "person", "--yes")
    assert code == 2 and "--identity-col 'person'" in err and _no_study_written(wrong)


def test_a_wide_file_with_one_attribute_spelt_as_a_stimulus_factor_stays_wide():
    """A row per rater whose one text column (sex: female / male) shares its values with a
    column of the stimulus sheet (face_sex) is not a long file keyed by that column: only a sheet's
    key column (unique per row) holds stimulus ids. Rows repeat in pairs, so no two columns name a
    row and the file could pass for a long one that does not say who rated."""
    wide = pd.DataFrame(
        {
            "sex": ["female", "female", "male", "male", "female", "female"],
            **{f"X{i}": [1 + (i + k // 2) % 5 for k in range(6)] for i in range(4)},
        }
    )
    sheet = pd.DataFrame({"face_id": [f"X{i}" for i in range(4)], "face_sex": ["female", "male"] * 2})
    proposal = propose(wide, "survey.csv", Options(dimensions=("liking",)), [(sheet, "info.csv")])
    assert proposal.shape.layout == "wide" and proposal.shape.rater_attributes == {"sex": "sex"}
    assert set(proposal.tables["human_ratings"].image_id) == {"X0", "X1", "X2", "X3"}


@settings(max_examples=60, deadline=None)
@given(
    columns=st.lists(
        st.lists(st.sampled_from(["a", "b", "c", 1, 2, 3]), min_size=6, max_size=6), min_size=2, max_size=5
    )
)
def test_key_pairs_are_the_pairs_pandas_finds_no_duplicate_in(columns):
    """Oracle: pandas' own `duplicated` over each pair, the definition the factorized codes replace."""
    from rater1001.init.guess import key_pairs

    frame = pd.DataFrame({f"c{i}": [str(v) if isinstance(v, str) else v for v in col] for i, col in enumerate(columns)})
    got = key_pairs(frame, Options())
    cols = [c for c in frame.columns if not frame[c].is_unique and frame[c].nunique() > 1]
    expected = [(a, b) for i, a in enumerate(cols) for b in cols[i + 1 :] if not frame.duplicated([a, b]).any()]
    assert got == expected
