"""study.yml against its schema: unknown keys are errors with a did-you-mean, dimension names follow
the factor-name rule, and every error names the file, the LINE and the key; every valid study.yml
of the repository reads with the values its text declares."""

from __future__ import annotations

import pytest
import yaml
from fakes.shapes import Shape, _study_yml
from rater1001.paths import REPO_ROOT, project
from rater1001.study import StudyError, load_study

STUDY = (REPO_ROOT / "study.yml").read_text(encoding="utf-8")


def _load(tmp_path, text: str):
    (tmp_path / "study.yml").write_text(text, encoding="utf-8")
    return load_study(project(tmp_path))


def _error(tmp_path, text: str) -> str:
    with pytest.raises(StudyError) as err:
        _load(tmp_path, text)
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'study.yml'}:"), message
    return message.removeprefix(f"{tmp_path / 'study.yml'}:")


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    "old, new, key, hint",
    [
        ("design:", "desing:", "desing", "did you mean 'design'?"),
        ("  ratings_per_image:", "  ratings_per_imag:", "design.ratings_per_imag", "did you mean 'ratings_per_image'?"),
        ("dimensions:", "dimension:", "dimension", "did you mean 'dimensions'?"),
        (
            "    - {factors: [race, emotion], stimuli: 80}",
            "    - {factors: [race, emotion], stimulus: 80}",
            "design.cells[0].stimulus",
            "did you mean 'stimuli'?",
        ),
        ("name: demo", "name: demo\ncolour: blue", "colour", "known keys: name, stimulus_kind, scale"),
    ],
)
def test_an_unknown_key_is_an_error_naming_its_line_and_the_key_it_resembles(tmp_path, old, new, key, hint):
    assert old in STUDY
    text = STUDY.replace(old, new)
    message = _error(tmp_path, text)
    wrong = key.split(".")[-1].split("]")[-1]
    assert message.startswith(f"{_line_of(text, wrong + ':')}: {key}: unknown key; "), message
    assert hint in message


@pytest.mark.parametrize(
    "name",
    ["val ence", "Valence", "x'; drop table human_ratings; --", "rater_id", "image_id", "1st", ""],
)
def test_a_dimension_name_follows_the_rule_factor_names_follow(tmp_path, name):
    text = f"scale: {{min: 1, max: 5}}\ndimensions: [valence, {name!r}]\n"
    message = _error(tmp_path, text)
    assert message.startswith("2: dimensions[1]: dimension name "), message
    assert "lower-case letters, digits and _" in message


@pytest.mark.parametrize(
    "text, line, says",
    [
        ("name: x\nscale: {min: 1, max: 5\n", 3, "not valid YAML"),
        ("name: x\nscale:\n  min: 1\n   max: 2\n", 4, "not valid YAML"),
        ("name: x\n\nscale: {min: 9, max: 1}\n", 3, "scale: scale min 9 must be below max 1"),
        (
            "scale: {min: 1, max: 5}\nfactors:\n  - {name: emotion, role: category}\n  - {name: topic, role: audit}\n",
            4,
            "factors[1]: no levels for 'topic' in seeds/factor_labels.csv",
        ),
        (
            "scale: {min: 1, max: 5}\nrater_attributes: [gender, hobby]\n",
            2,
            "rater_attributes[1]: no levels for 'hobby'",
        ),
        ("scale: {min: 1, max: 5}\ndesign:\n  images_per_rater: 1.5\n", 3, "design.images_per_rater: 1.5"),
        ("scale: {min: 1, max: 5}\ndesign:\n  ratings_per_image: true\n", 3, "design.ratings_per_image: True"),
        ("scale: {min: 1, max: 5}\nstimulus_kind: video\n", 2, "stimulus_kind: 'video'"),
    ],
)
def test_an_error_names_the_file_the_line_and_the_key(tmp_path, text, line, says):
    message = _error(tmp_path, text)
    assert message.startswith(f"{line}: "), message
    assert says in message


def test_a_study_yml_without_scale_says_the_key_is_missing(tmp_path):
    assert _error(tmp_path, "dimensions: []\n").strip() == "scale: required key missing"


def _declared(cfg: dict):
    """What the text declares, read from the YAML alone (the schema's defaults for what it leaves out)."""
    factors = cfg.get(
        "factors",
        [
            {"name": "race", "role": "audit"},
            {"name": "gender", "role": "audit"},
            {"name": "emotion", "role": "category"},
        ],
    )
    attrs = [a["name"] if isinstance(a, dict) else a for a in cfg.get("rater_attributes", ["gender"])]
    design = cfg.get("design") or {}
    return (
        cfg["scale"]["min"],
        cfg["scale"]["max"],
        tuple(cfg.get("dimensions", [])),
        tuple((f["name"], f["role"]) for f in factors),
        tuple(attrs),
        cfg.get("stimulus_kind", "image"),
        design.get("ratings_per_image"),
        design.get("images_per_rater"),
        tuple(
            ([(tuple(f["name"] for f in factors), design["images_per_cell"])] if "images_per_cell" in design else [])
            + [(tuple(c["factors"]), c["stimuli"]) for c in design.get("cells") or ()]
        ),
    )


def _read(study):
    return (
        study.scale_min,
        study.scale_max,
        study.dimensions,
        tuple((f.name, f.role) for f in study.factors),
        study.rater_attributes,
        study.stimulus_kind,
        study.ratings_per_image,
        study.images_per_rater,
        tuple((c.factors, c.stimuli) for c in study.cells),
    )


STUDY_FILES = [REPO_ROOT / "study.yml", *sorted(REPO_ROOT.glob("tests/acceptance/*/project/study.yml"))]


@pytest.mark.parametrize("path", STUDY_FILES, ids=[str(p.relative_to(REPO_ROOT)) for p in STUDY_FILES])
def test_every_study_yml_of_the_repository_reads_as_its_text_declares(path):
    study = load_study(project(path.parent))
    assert _read(study) == _declared(yaml.safe_load(path.read_text(encoding="utf-8")))


def test_the_older_format_still_declares_the_papers_shape(tmp_path):
    old = (
        "scale: {min: 1, max: 9}\ndimensions: [valence, arousal]\nmodel_dimensions: [valence]\n"
        "design: {images_per_cell: 40, ratings_per_image: 50, images_per_rater: 72}\n"
    )
    study = _load(tmp_path, old)
    assert [(f.name, f.role) for f in study.factors] == [
        ("race", "audit"),
        ("gender", "audit"),
        ("emotion", "category"),
    ]
    assert (
        study.rater_attributes == ("gender",) and study.images_per_cell == 40 and study.model_dimensions == ("valence",)
    )


@pytest.mark.parametrize("dims", [(), ("fluency",), ("fluency", "warmth", "depth")])
@pytest.mark.parametrize("balanced, audit", [(True, True), (False, True), (False, False)])  # cells need audit
def test_the_shape_fixtures_declarations_read_as_written(tmp_path, dims, balanced, audit):
    from fakes.shapes import LABELS_CSV

    cfg = _study_yml(Shape("s", labels=True, dimensions=dims, balanced=balanced, ratings=(3, 3), audit=audit))
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "factor_labels.csv").write_text(LABELS_CSV, encoding="utf-8")
    study = _load(tmp_path, yaml.safe_dump(cfg, sort_keys=False))
    assert _read(study) == _declared(cfg)
    assert study.model_dimensions == tuple(cfg["model_dimensions"])
