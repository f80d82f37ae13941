"""The Great Expectations quality gate (issue 2, item 4).

Each test breaks a simulated study in one known way, straight in the landed Parquet (bypassing
ingest, as a hand-edited file would), and checks that the gate names exactly that problem with the
count it found, and nothing it should not.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rater1001.paths import ProjectPaths, project
from rater1001.quality import run_quality_gate
from rater1001.study import load_study

# --- helpers -----------------------------------------------------------------------------------


def read(paths: ProjectPaths, table: str) -> pd.DataFrame:
    return pq.read_table(paths.raw_table(table)).to_pandas()


def rewrite(paths: ProjectPaths, table: str, frame: pd.DataFrame, keep_schema: bool = True) -> None:
    """Overwrite a landed table in place, as a hand-edited Parquet file would (no ingest)."""
    schema = pq.read_schema(paths.raw_table(table)).remove_metadata() if keep_schema else None
    pq.write_table(pa.Table.from_pandas(frame, schema=schema, preserve_index=False), paths.raw_table(table))


def copy_project(src: ProjectPaths, dst: Path) -> ProjectPaths:
    """A private copy of a (session-scoped) study, so a test may break it."""
    shutil.copytree(src.raw, dst / "data" / "raw")
    if (src.root / "study.yml").exists():
        shutil.copy(src.root / "study.yml", dst / "study.yml")
    return project(dst)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cell_text(row) -> str:
    return f"race={row.race}, gender={row.gender}, emotion={row.emotion}"


@pytest.fixture(scope="module")
def small_base(tmp_path_factory) -> ProjectPaths:
    """The conftest's small simulated study, simulated once for this module."""
    from conftest import SMALL_DESIGN
    from rater1001.simulate import simulate_study

    paths = project(tmp_path_factory.mktemp("small_base"))
    simulate_study(paths, seed=7, **SMALL_DESIGN)
    return paths


@pytest.fixture
def study(small_base, tmp_path) -> ProjectPaths:
    """A private copy of the small study for one test to break."""
    return copy_project(small_base, tmp_path)


# --- a balanced study passes -------------------------------------------------------------------


def test_balanced_study_passes_offline_and_writes_verdict_and_docs(study, monkeypatch):
    attempts = []

    def refuse(self, address):
        attempts.append(address)
        raise OSError("network disabled in this test")

    # GX usage statistics are off: a quality run never opens a connection.
    monkeypatch.setattr(socket.socket, "connect", refuse)
    result = run_quality_gate(study)
    assert attempts == []
    assert result.passed, result.summary()
    assert result.failures == [] and not result.unbalanced
    assert result.summary().startswith("SIMULATED study. Quality gate PASSED")
    # Every contract table of the rating study was validated, plus the design aggregates.
    assert result.n_checks >= 40
    verdict = json.loads((study.raw / "_quality.json").read_text())
    assert verdict["passed"] is True and verdict["unbalanced"] is False
    assert verdict["allow_unbalanced"] is False and verdict["failures"] == []
    assert set(verdict) >= {"passed", "allow_unbalanced", "unbalanced", "failures", "warnings", "checked_at"}
    assert result.docs_path == study.data_docs / "index.html" and result.docs_path.exists()
    # Nothing but the landing zone and the report folder is written into the project.
    assert {p.name for p in study.root.iterdir()} <= {"data", "report", "study.yml", "seeds"}


# --- the acceptance check on the paper-scale demo ----------------------------------------


def test_demo_missing_one_image_names_its_cell_and_count(demo_study, tmp_path):
    paths = copy_project(demo_study, tmp_path)
    design = load_study(paths)
    stimuli = read(paths, "stimuli")
    victim = stimuli.iloc[123]
    rewrite(paths, "stimuli", stimuli.drop(index=123))

    result = run_quality_gate(paths)

    assert not result.passed
    expected = (
        f"cell {cell_text(victim)} holds {design.images_per_cell - 1} images; "
        f"the design declares {design.images_per_cell}"
    )
    assert expected in result.failures
    # The race x emotion cell of the paper's sentence (80 = 2 genders x 40) is one short as well.
    marginal = (
        f"cell race={victim.race}, emotion={victim.emotion} holds "
        f"{2 * design.images_per_cell - 1} images; the design declares {2 * design.images_per_cell}"
    )
    assert marginal in result.failures
    assert "design.cells.race_emotion" in result.failed_checks
    # Only those two cells are off; the image's ratings and predictions are now orphans.
    assert sum(f.startswith("cell ") for f in result.failures) == 2
    assert (
        f"{2 * design.images_per_cell} images per race x emotion cell: NOT met" in result.design
        and f"{design.images_per_cell} images per race x gender x emotion cell: NOT met" in result.design
    )
    assert any(
        f.startswith(
            f"data/raw/human_ratings.parquet: image_id = '{victim.image_id}' "
            f"does not exist in stimuli ({design.ratings_per_image} rows"
        )
        for f in result.failures
    )
    assert "design.images_per_cell" in result.failed_checks

    # The data-quality report lists the cell-count check as failed and shows the cell's row.
    html = (paths.data_docs / "index.html").read_text()
    assert re.search(r'<tr class="failed" id="check-rows-design.images_per_cell">', html)
    section = html[html.index('id="rows-design.images_per_cell"') :]
    text = re.sub(r"<[^>]+>", " ", section[: section.index("</section>")])
    assert "n_images" in text and cell_text(victim) in text
    # The data-quality report shows both declared cell counts with their outcome.
    design = html[html.index('id="design"') :]
    assert f"{2 * load_study(paths).images_per_cell} images per race x emotion cell: NOT met" in design


def test_demo_passes_as_simulated(demo_study, tmp_path):
    result = run_quality_gate(copy_project(demo_study, tmp_path))
    assert result.passed, result.summary()
    assert result.simulated


# --- design counts ------------------------------------------------------------------------------


def test_rater_off_by_one_and_condition_missing_an_image(study):
    design = load_study(study)
    ratings = read(study, "human_ratings")
    giver, taker = sorted(ratings["rater_id"].unique())[:2]
    taken = set(ratings.loc[ratings["rater_id"] == taker, "image_id"])
    row = ratings[(ratings["rater_id"] == giver) & ~ratings["image_id"].isin(taken)].index[0]
    ratings.loc[row, "rater_id"] = taker  # the image keeps its count; the raters do not
    rewrite(study, "human_ratings", ratings)
    predictions = read(study, "model_predictions")
    n_images = len(read(study, "stimuli"))
    dropped = predictions.iloc[5]
    rewrite(study, "model_predictions", predictions.drop(index=predictions.index[5]))

    result = run_quality_gate(study)
    n = design.images_per_rater
    assert not result.passed and result.unbalanced
    assert result.failures == [
        f"rater {giver} rated {n - 1} images; the design declares {n}",
        f"rater {taker} rated {n + 1} images; the design declares {n}",
        f"condition {dropped.condition_id} predicted {n_images - 1} of {n_images} images; missing: {dropped.image_id}",
    ]


def test_design_counts_come_from_study_yml(study):
    text = (study.root / "study.yml").read_text()
    declared = load_study(study).images_per_cell
    (study.root / "study.yml").write_text(re.sub(r"images_per_cell: *\d+", f"images_per_cell: {declared + 1}", text))

    result = run_quality_gate(study)
    cells = [f for f in result.failures if f.startswith("cell ")]
    assert cells and all(
        f.endswith(f"holds {plural(declared, 'image')}; the design declares {declared + 1}") for f in cells
    )
    # The report lists the first few cells and counts the rest: together, every declared cell.
    (rest,) = [
        int(m.group(1).replace(",", ""))
        for f in result.failures
        if (m := re.match(r"\.\.\. and ([\d,]+) more like the above \(design.images_per_cell", f))
    ]
    levels = load_study(study)
    assert len(cells) + rest == (
        len(levels.levels("race")) * len(levels.levels("gender")) * len(levels.levels("emotion"))
    )


def test_allow_unbalanced_passes_and_says_so(study):
    # A smaller study, consistently: one image gone together with its ratings and predictions.
    design = load_study(study)
    stimuli = read(study, "stimuli")
    victim = stimuli.iloc[0]
    rewrite(study, "stimuli", stimuli.iloc[1:])
    for table in ("human_ratings", "model_predictions"):
        frame = read(study, table)
        rewrite(study, table, frame[frame["image_id"] != victim.image_id])
    cell = (
        f"cell {cell_text(victim)} holds {plural(design.images_per_cell - 1, 'image')}; "
        f"the design declares {design.images_per_cell}"
    )

    strict = run_quality_gate(study)
    assert not strict.passed and cell in strict.failures

    lenient = run_quality_gate(study, allow_unbalanced=True)
    assert lenient.passed and lenient.unbalanced and lenient.failures == []
    assert cell in lenient.warnings
    assert "analysed as UNBALANCED" in lenient.summary()
    verdict = json.loads((study.raw / "_quality.json").read_text())
    assert verdict["passed"] and verdict["allow_unbalanced"] and verdict["unbalanced"]
    assert cell in verdict["warnings"]

    # Allowing an unbalanced design does not excuse a broken contract.
    ratings = read(study, "human_ratings")
    ratings.loc[ratings.index[0], "valence"] = 0
    rewrite(study, "human_ratings", ratings)
    broken = run_quality_gate(study, allow_unbalanced=True)
    assert not broken.passed and broken.unbalanced
    assert broken.failures == [
        f"data/raw/human_ratings.parquet row 1: valence = 0 is outside the scale {design.scale_min}-{design.scale_max}"
    ]


# --- contract rules on landed files --------------------------------------------------------------


def test_contract_violations_written_straight_into_parquet(study):
    design = load_study(study)
    ratings = read(study, "human_ratings")
    orphaned, unrated = ratings.iloc[10].copy(), ratings.iloc[20].copy()
    ratings.loc[ratings.index[3], "valence"] = design.scale_max + 1
    ratings.loc[ratings.index[7], "arousal"] = design.scale_min - 1
    ratings.loc[ratings.index[10], "image_id"] = "no-such-image"
    ratings.loc[ratings.index[20], "rater_id"] = "no-such-rater"
    rewrite(study, "human_ratings", pd.concat([ratings, ratings.iloc[[0]]], ignore_index=True))
    stimuli = read(study, "stimuli")
    stimuli.loc[stimuli.index[1], "emotion"] = "happpy"
    rewrite(study, "stimuli", stimuli)
    predictions = read(study, "model_predictions")
    relabelled = predictions.iloc[0].copy()
    predictions.loc[predictions.index[0], "condition_id"] = "no-such-condition"
    rewrite(study, "model_predictions", predictions)

    result = run_quality_gate(study)
    assert not result.passed
    scale = f"{design.scale_min}-{design.scale_max}"
    n_images = len(stimuli)
    first = ratings.iloc[0]
    emotions = ", ".join(design.levels("emotion"))
    expected = [
        f"data/raw/stimuli.parquet row 2: emotion = 'happpy' is not a declared emotion ({emotions})",
        f"data/raw/human_ratings.parquet: key (rater_id='{first.rater_id}', "
        f"image_id='{first.image_id}') appears 2 times (rows 1, {len(ratings) + 1})",
        f"data/raw/human_ratings.parquet row 4: valence = {design.scale_max + 1} is outside the scale {scale}",
        f"data/raw/human_ratings.parquet row 8: arousal = {design.scale_min - 1} is outside the scale {scale}",
        "data/raw/human_ratings.parquet: rater_id = 'no-such-rater' does not exist in raters (1 row: 21)",
        "data/raw/human_ratings.parquet: image_id = 'no-such-image' does not exist in stimuli (1 row: 11)",
        "data/raw/model_predictions.parquet: condition_id = 'no-such-condition' does not exist in "
        "model_conditions (1 row: 1)",
    ]
    contract_failures = [f for f in result.failures if f.startswith("data/raw/")]
    assert contract_failures == expected
    # The moved ratings leave the design short where they came from, and nowhere else.
    assert sorted(f for f in result.failures if not f.startswith(("data/raw/", "cell "))) == sorted(
        [
            f"image {orphaned.image_id} ({_factors_of(study, orphaned.image_id)}) has "
            f"{plural(design.ratings_per_image - 1, 'human rating')}; the design declares {design.ratings_per_image}",
            f"rater no-such-rater rated 1 image; the design declares {design.images_per_rater}",
            f"rater {unrated.rater_id} rated {design.images_per_rater - 1} images; the design declares "
            f"{design.images_per_rater}",
            f"condition {relabelled.condition_id} predicted {n_images - 1} of {n_images} images; "
            f"missing: {relabelled.image_id}",
            f"condition no-such-condition predicted 1 of {n_images} images; missing: "
            + ", ".join(stimuli["image_id"][stimuli["image_id"] != relabelled.image_id].iloc[:5])
            + f" and {n_images - 6} more",
        ]
    )


def _factors_of(paths: ProjectPaths, image_id: str) -> str:
    stimuli = read(paths, "stimuli").set_index("image_id")
    return cell_text(stimuli.loc[image_id])


def test_fractional_rating_is_a_type_error(study):
    ratings = read(study, "human_ratings")
    ratings["valence"] = ratings["valence"].astype(float)
    ratings.loc[ratings.index[2], "valence"] = 7.5
    rewrite(study, "human_ratings", ratings, keep_schema=False)

    result = run_quality_gate(study)
    assert result.failures == ["data/raw/human_ratings.parquet column valence holds double; the contract declares int"]


# --- missing tables ----------------------------------------------------------------------------


def test_missing_optional_table_is_reported_not_failed(study):
    study.raw_table("model_predictions").unlink()
    result = run_quality_gate(study)
    assert result.passed, result.summary()
    assert any(w.startswith("optional table model_predictions is not landed yet") for w in result.warnings)
    assert any("every condition predicted every image is not checked" in w for w in result.warnings)


def test_missing_required_table_fails_clearly(study):
    study.raw_table("stimuli").unlink()
    result = run_quality_gate(study)
    assert not result.passed
    assert (
        "required table stimuli is missing: there is no data/raw/stimuli.parquet "
        "(land it with `rater1001 ingest stimuli FILE`)"
    ) in result.failures


def test_two_pass_validation_matches_one_complete_pass():
    """run_checks asks GX first only whether each check holds, then again, with failing rows, for
    those that did not: its outcomes equal one COMPLETE validation of every check (the oracle: GX
    itself), for a holding check, a failing one, and one that raises (a column that is absent)."""
    from rater1001.quality.checks import Check
    from rater1001.quality.gx import great_expectations
    from rater1001.quality.gx_run import CHECK_META, _outcome, run_checks

    gx = great_expectations()
    frame = pd.DataFrame({"a": [1, 2, None, 4], "b": ["x", "y", "z", "x"]}, index=pd.Index([10, 11, 12, 13], name="k"))
    expectations = {
        "holds": gx.expectations.ExpectColumnValuesToNotBeNull(column="b"),
        "fails": gx.expectations.ExpectColumnValuesToBeInSet(column="b", value_set=["x", "y"]),
        "fails_too": gx.expectations.ExpectColumnValuesToNotBeNull(column="a"),
        "raises": gx.expectations.ExpectColumnValuesToNotBeNull(column="absent"),
    }
    checks = [Check(key, "f", e, describe=lambda rows: []) for key, e in expectations.items()]
    outcomes = {o.check.key: o for o in run_checks({"f": frame}, checks, db=None)}

    ctx = gx.get_context(mode="ephemeral")
    batch = ctx.data_sources.add_pandas("p").add_dataframe_asset("a").add_batch_definition_whole_dataframe("b")
    for c in checks:
        c.expectation.meta = {**(c.expectation.meta or {}), CHECK_META: c.key}
    suite = gx.ExpectationSuite(name="oracle", expectations=[c.expectation for c in checks])
    oracle = batch.get_batch(batch_parameters={"dataframe": frame}).validate(
        suite, result_format={"result_format": "COMPLETE"}
    )
    by_key = {c.key: c for c in checks}
    for r in oracle.results:
        want = _outcome(by_key[r.expectation_config.meta[CHECK_META]], r, frame)
        got = outcomes[want.check.key]
        assert (got.success, got.error is None) == (want.success, want.error is None)
        pd.testing.assert_frame_equal(got.bad_rows, want.bad_rows)
    assert outcomes["holds"].success and not outcomes["fails"].success and outcomes["raises"].error
    assert list(outcomes["fails"].bad_rows.index) == [12] and list(outcomes["fails_too"].bad_rows.index) == [12]
