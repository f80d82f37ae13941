"""Studies of any shape the study.yml declaration accepts (docs/study_shape.md).

Fast tests read declarations and ingest small files. The matrix tests build small hand-made studies
end to end through the CLI, each from a temporary project folder with its own study.yml and label
set (three categories, one of them `na`, on a 1-5 scale), so they also show that `--home DIR` and
RATER1001_HOME are honoured by every step, dbt's seeds included.

The shape matrix {labels only, ratings only, both} x {1, 2, 3 dimensions} x {balanced, unbalanced}
x {2-5 ratings per item, 50} is covered pairwise (every value of any two factors together in at
least one build; labels only has no dimensions) by eight studies, seven built here (SHAPES) and the
HANNA acceptance study (tests/acceptance, built the same way through `rater1001 run`):
    labels-only        labels only   -             unbalanced  50 ratings
    labels-balanced    labels only   -             balanced    3 ratings
    ratings-1dim       ratings only  1 dimension   balanced    50 ratings
    (HANNA sample)     ratings only  2 dimensions  unbalanced  3 ratings
    ratings-3dim       ratings only  3 dimensions  balanced    50 ratings
    both-1dim          both          1 dimension   unbalanced  2-5 ratings
    both-2dim          both          2 dimensions  balanced    50 ratings
    both-3dim          both          3 dimensions  unbalanced  2-5 ratings (a dimension the contract
                                                               does not name; no audit factors, no
                                                               rater attributes, no design)
A balanced study declares its design counts; an unbalanced one declares none. Each shape is its
own xdist group, so `make test` spreads the builds over the workers.

No shape can go: each number of dimensions must meet both balance values and both ratings levels,
so two studies per number of dimensions (six, one of them HANNA) and, since labels only must meet
both balance values, two labels-only studies. The other acceptance studies cannot stand in for a
labels-only shape: FER+ has ten votes per face and MultiPICo four to seven labels per text, neither
of the matrix's ratings levels, so that shape's pairs with its ratings level would be lost.

One shape, ratings-3dim, is a study before `infer`: its model conditions are declared but no
prediction has landed. Its whole build and report passing is what shows that every mart and the
report cope without predictions (the shared study before `infer` in conftest.py builds only the
marts its readers check). The covering above is about what the raters give, so it is unchanged;
model predictions of three dimensions are still built by both-3dim, and of a ratings-only study by
ratings-1dim and HANNA.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import krippendorff
import pandas as pd
import pytest
import yaml
from fakes.shapes import CATEGORIES, Shape, write_shape
from rater1001 import contract
from rater1001.cli import main
from rater1001.ingest import ingest_file
from rater1001.paths import REPO_ROOT, project
from rater1001.quality.gate import DESIGN_UNDECLARED
from rater1001.study import DesignCell, StudyError, load_study, parse_study, read_factor_labels

LABELS = read_factor_labels(REPO_ROOT / "seeds" / "factor_labels.csv")


def _parse(text: str):
    return parse_study(yaml.safe_load(text), LABELS, Path("study.yml"))


# --- the declaration ----------------------------------------------------------------------------


def test_the_repository_study_yml_declares_the_papers_shape_and_both_cell_counts():
    study = load_study(project(REPO_ROOT))
    assert [(f.name, f.role) for f in study.factors] == [
        ("race", "audit"),
        ("gender", "audit"),
        ("emotion", "category"),
    ]
    assert study.rater_attributes == ("gender",)
    assert study.stimulus_kind == "image"
    # 3.1's sentence: 40 per race x gender x emotion cell, 80 per race x emotion cell.
    assert study.cells == (DesignCell(("race", "gender", "emotion"), 40), DesignCell(("race", "emotion"), 80))
    assert study.images_per_cell == 40 and study.ratings_per_image == 50 and study.images_per_rater == 72


def test_a_study_without_design_counts_is_undeclared_and_may_have_no_dimensions():
    study = _parse(
        "scale: {min: 1, max: 5}\ndimensions: []\nfactors: [{name: emotion, role: category}]\nrater_attributes: []\n"
    )
    assert not study.design_declared and study.cells == () and study.images_per_cell is None
    assert study.dimensions == () and study.model_dimensions == ()
    assert study.audit_factors == () and study.category.name == "emotion"


@pytest.mark.parametrize(
    "text, says",
    [
        ("scale: {min: 5, max: 1}", "scale min 5 must be below max 1"),
        ("scale: {min: 1, max: 5}\nstimulus_kind: video", "stimulus_kind: 'video'"),
        ("scale: {min: 1, max: 5}\nfactors: [{name: emotion, role: boss}]", "factors[0]"),
        (
            "scale: {min: 1, max: 5}\nfactors: [{name: topic, role: category}, {name: mood, role: category}]",
            "2 category factors (topic, mood)",
        ),
        ("scale: {min: 1, max: 5}\nfactors: [{name: Topic Area, role: category}]", "factor name 'Topic Area'"),
        ("scale: {min: 1, max: 5}\nfactors: [{name: text, role: audit}]", "factor name 'text'"),
        ("scale: {min: 1, max: 5}\nrater_attributes: [age]", "rater_attributes[0]: rater attribute name 'age'"),
        ("scale: {min: 1, max: 5}\ndimensions: [valence]\nmodel_dimensions: [arousal]", "must be among dimensions"),
        ("scale: {min: 1, max: 5}\ndesign: {cells: [{factors: [age], stimuli: 3}]}", "design.cells[0].factors"),
        ("scale: {min: 1, max: 5}\ndesign: {ratings_per_image: 0}", "design.ratings_per_image"),
    ],
)
def test_a_declaration_that_does_not_fit_names_the_file_and_key(text, says):
    with pytest.raises(StudyError, match=re.escape(says)) as err:
        _parse(text)
    assert str(err.value).startswith("study.yml: ")


def test_the_contract_follows_the_declared_dimensions_and_factors():
    study = _parse(
        "scale: {min: 1, max: 5}\ndimensions: [valence, fluency]\nmodel_dimensions: [fluency]\n"
        "factors: [{name: emotion, role: category}]\nrater_attributes: []\n"
    )
    tables = contract.tables_for(study)
    assert tables["human_ratings"].column_names == [
        "rater_id",
        "image_id",
        "valence",
        "fluency",
        "rt_valence_ms",
        "rt_fluency_ms",
        "trial_index",
        "emotion",
    ]
    assert tables["human_ratings"].column("fluency").rule == "scale_integer"
    assert [c for c in tables["model_predictions"].column_names if c in ("valence", "arousal", "fluency")] == [
        "fluency"
    ]
    required = {c.name for c in tables["stimuli"].columns if c.required}
    assert required == {"image_id", "emotion"}  # stimulus_kind image: no text needed
    assert tables["raters"].column_names == ["rater_id", "age"]  # no rater attributes declared
    # The paper's own declaration leaves the paper's contract as it was, apart from optionality.
    paper = contract.tables_for(load_study(project(REPO_ROOT)))
    assert paper["human_ratings"] == contract.HUMAN_RATINGS
    assert paper["model_predictions"] == contract.MODEL_PREDICTIONS


def test_na_is_a_label_where_the_label_set_declares_it_and_missing_elsewhere(tmp_path):
    files = write_shape(tmp_path, Shape("na", True, (), False, (2, 3), text=True))
    paths = project(tmp_path)
    for table in ("stimuli", "raters", "model_conditions", "human_ratings", "model_predictions"):
        result = ingest_file(paths, table, files[table])
        assert result.rows_rejected == 0, result.summary()
    stimuli = pd.read_parquet(paths.raw_table("stimuli"))
    assert (
        (stimuli["emotion"] == "na").sum()
        == (pd.read_csv(files["stimuli"], keep_default_na=False)["emotion"] == "na").sum()
        > 0
    )
    # In a column without a declared 'na' label (race), NA still means missing: the row is refused
    # because race is a declared, required factor.
    broken = pd.read_csv(files["stimuli"], keep_default_na=False)
    broken.loc[0, "race"] = "NA"
    broken.to_csv(tmp_path / "broken.csv", index=False)
    result = ingest_file(paths, "stimuli", tmp_path / "broken.csv")
    assert result.rows_rejected == 1
    assert list(pd.read_parquet(paths.rejected_table("stimuli"))["_reason"].iloc[0]) == [
        "race: missing (required) [required]"
    ]
    # Conditions without strategy, backend or thinking land; kinds llm and human-proxy are accepted.
    conditions = pd.read_parquet(paths.raw_table("model_conditions"))
    assert set(conditions["kind"]) == {"llm", "human-proxy"} and conditions["backend"].isna().all()


# --- the shape matrix, end to end through the CLI ------------------------------------------------

# One small data description per shape (fakes/shapes.py): what the raters give, the dimensions,
# whether the design is balanced (and declared), the ratings per item (min, max).
SHAPES = {
    s.name: s
    for s in (
        Shape("labels-only", True, (), False, (50, 50), per_cell=1, seed=1),
        Shape("labels-balanced", True, (), True, (3, 3), seed=5),
        Shape("ratings-1dim", False, ("valence",), True, (50, 50), per_cell=1, text=False, seed=2),
        Shape("ratings-3dim", False, ("valence", "arousal", "fluency"), True, (50, 50), per_cell=1, seed=6),
        Shape("both-1dim", True, ("valence",), False, (2, 5), seed=7),
        Shape("both-2dim", True, ("valence", "arousal"), True, (50, 50), per_cell=1, seed=3),
        Shape("both-3dim", True, ("valence", "arousal", "fluency"), False, (2, 5), seed=4, audit=False),
    )
}
BEFORE_INFER = "ratings-3dim"  # no model_predictions file is ingested


def test_the_shapes_and_the_hanna_study_cover_every_pair_of_the_matrix():
    """The covering claim above, checked on the definitions; the HANNA study's from its study.yml
    (ratings only, no design declared) and its three ratings per story (tests/acceptance/README.md)."""
    hanna = yaml.safe_load((REPO_ROOT / "tests" / "acceptance" / "hanna" / "project" / "study.yml").read_text())

    def row(content, dims, balanced, ratings):
        return {
            "content": content,
            "dims": dims,
            "balance": balanced,
            "ratings": "50" if ratings == (50, 50) else "2-5",
        }

    rows = [
        row(
            "both" if s.labels and s.dimensions else "labels" if s.labels else "ratings",
            len(s.dimensions) or None,
            s.balanced,
            s.ratings,
        )
        for s in SHAPES.values()
    ]
    rows.append(row("ratings", len(hanna["dimensions"]), "design" in hanna, (3, 3)))
    assert all(2 <= s.ratings[0] <= s.ratings[1] <= 5 or s.ratings == (50, 50) for s in SHAPES.values())
    values = {
        "content": {"labels", "ratings", "both"},
        "dims": {1, 2, 3},
        "balance": {True, False},
        "ratings": {"2-5", "50"},
    }
    for a, b in [
        ("content", "dims"),
        ("content", "balance"),
        ("content", "ratings"),
        ("dims", "balance"),
        ("dims", "ratings"),
        ("balance", "ratings"),
    ]:
        for va in values[a]:
            for vb in values[b]:
                if "labels" in (va, vb) and {a, b} == {"content", "dims"}:
                    continue  # labels only has no dimensions
                assert any(r[a] == va and r[b] == vb for r in rows), (a, va, b, vb)


@pytest.fixture(scope="module", params=[pytest.param(n, marks=pytest.mark.xdist_group(f"shape-{n}")) for n in SHAPES])
def built(request, tmp_path_factory, monkeypatch_module):
    shape = SHAPES[request.param]
    root = tmp_path_factory.mktemp(shape.name)
    files = write_shape(root, shape)
    if shape.name == BEFORE_INFER:
        del files["model_predictions"]
    # The study lives in root only; the commands run from elsewhere and find it by --home, or by
    # RATER1001_HOME for one of the shapes.
    monkeypatch_module.chdir(tmp_path_factory.mktemp("elsewhere"))
    use_env = shape.name == "both-2dim"
    home = [] if use_env else ["--home", str(root)]
    if use_env:
        monkeypatch_module.setenv("RATER1001_HOME", str(root))
    codes = {t: main([*home, "ingest", t, str(files[t])]) for t in files}
    codes["check"] = main([*home, "check", *([] if shape.balanced else ["--allow-unbalanced"])])
    codes["build"] = main([*home, "build"])
    codes["report"] = main([*home, "report", "--no-png"])
    if use_env:
        monkeypatch_module.delenv("RATER1001_HOME")
    return shape, project(root), files, codes


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _sql(paths, sql: str) -> pd.DataFrame:
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        return con.execute(sql).df()


def test_every_step_exits_0(built):
    shape, paths, files, codes = built
    assert codes == {**{t: 0 for t in files}, "check": 0, "build": 0, "report": 0}
    assert (paths.root / "report" / "index.html").exists()
    # Nothing was written to the repository's own project.
    assert not (paths.root / "seeds" / "model_condition_catalog.csv").exists()
    if shape.name == BEFORE_INFER:  # the conditions are declared, none has answered yet
        assert _sql(paths, "SELECT count(*) AS n FROM stg_model_conditions")["n"].iloc[0] > 0
        assert _sql(paths, "SELECT count(*) AS n FROM int_model_vs_human")["n"].iloc[0] == 0


def test_dbt_read_the_project_folders_own_label_set(built):
    shape, paths, files, codes = built
    seed = _sql(paths, "SELECT factor, label FROM factor_labels WHERE factor = 'emotion' ORDER BY display_order")
    assert list(seed["label"]) == list(CATEGORIES)


def test_the_gate_reports_the_declared_design_or_that_there_is_none(built):
    shape, paths, files, codes = built
    import json

    verdict = json.loads((paths.raw / "_quality.json").read_text())
    if shape.balanced:
        assert f"{2 * shape.per_cell} images per race x emotion cell: met" in verdict["design"]
        assert f"{shape.per_cell} images per race x gender x emotion cell: met" in verdict["design"]
    else:
        assert verdict["design"] == [DESIGN_UNDECLARED]


def test_human_alpha_matches_the_krippendorff_package(built):
    """Interval alpha of every declared dimension against the reference package on the raw CSV."""
    shape, paths, files, codes = built
    ratings = pd.read_csv(files["human_ratings"])
    got = _sql(
        paths,
        "SELECT dimension, alpha FROM alpha_delta WHERE condition_id = 'human' "
        "AND category = 'all' AND metric = 'interval'",
    )
    assert sorted(got["dimension"]) == sorted(shape.dimensions)
    for dim in shape.dimensions:
        matrix = ratings.pivot(index="rater_id", columns="image_id", values=dim).to_numpy(dtype=float)
        expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
        assert got.set_index("dimension").loc[dim, "alpha"] == pytest.approx(expected, abs=1e-9)


def test_model_accuracy_matches_a_count_from_the_files(built):
    shape, paths, files, codes = built
    got = _sql(paths, "SELECT condition_id, n, accuracy FROM classification_summary WHERE condition_id <> 'human'")
    if not shape.labels:
        assert got.empty
        return
    truth = pd.read_csv(files["stimuli"], keep_default_na=False).set_index("image_id")["emotion"]
    preds = pd.read_csv(files["model_predictions"], keep_default_na=False)
    for cond, part in preds.groupby("condition_id"):
        expected = float((part["emotion"].to_numpy() == truth.loc[part["image_id"]].to_numpy()).mean())
        row = got.set_index("condition_id").loc[cond]
        assert row["n"] == len(part) and row["accuracy"] == pytest.approx(expected)


def test_the_report_says_what_does_not_apply_and_why(built):
    shape, paths, files, codes = built
    text = re.sub(r"<[^>]+>", " ", (paths.report / "index.html").read_text(encoding="utf-8"))
    if not shape.dimensions:
        assert "not applicable to this study: the study declares no rating dimensions" in text
        assert _sql(paths, "SELECT count(*) AS n FROM dimensional_agreement")["n"].iloc[0] == 0
    if not shape.labels:
        # before `infer`, the first reason a model figure does not apply is that nothing landed
        landed = "no model predictions have landed; " if shape.name == BEFORE_INFER else ""
        assert f"not applicable to this study: {landed}no model condition gave a category label" in text
    if not shape.audit:
        assert "not applicable to this study: the study declares no audit factors" in text
        assert _sql(paths, "SELECT count(*) AS n FROM demographic_slices")["n"].iloc[0] == 0
    else:  # slices are of the models' answers: none before `infer`
        n_slices = _sql(paths, "SELECT count(*) AS n FROM demographic_slices")["n"].iloc[0]
        assert n_slices == 0 if shape.name == BEFORE_INFER else n_slices > 0
