"""The warehouse's grain does not depend on the paper (docs/study_shape.md, "The grain"): a
ratings-only study with no category, audit factors and a rater attribute of its own names, and
model answers with gaps (fakes/grain.py), built end to end by `rater1001 run`.

Its numbers are checked against references that share no code with the project (the
`krippendorff` package, pandas on the landed Parquet); its outputs are scanned for the paper's
vocabulary.
"""

from __future__ import annotations

import duckdb
import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import build_only
from fakes.grain import DIMENSIONS, PAPER_WORDS, write_grain_study
from rater1001.cli import main
from rater1001.paths import REPO_ROOT, project

pytestmark = pytest.mark.xdist_group("study_grain")


@pytest.fixture(scope="module")
def grain(tmp_path_factory):
    root = tmp_path_factory.mktemp("grain")
    files = write_grain_study(root)
    home = ["--home", str(root)]
    codes = {t: main([*home, "ingest", t, str(f)]) for t, f in files.items()}
    codes["run"] = main([*home, "run", "--allow-unbalanced", "--no-progress"])
    return project(root), codes


def _query(paths, sql: str) -> pd.DataFrame:
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()


def _tables(paths) -> list[str]:
    return _query(paths, "select table_name from information_schema.tables where table_schema = 'main'")[
        "table_name"
    ].tolist()


def test_the_study_runs_end_to_end(grain):
    paths, codes = grain
    assert codes == {t: 0 for t in codes}, codes
    assert (paths.report / "index.html").exists()


def test_no_table_has_a_null_stratum_and_only_the_pooled_scope_without_a_category(grain):
    paths, _ = grain
    seeds = {p.stem for p in (REPO_ROOT / "seeds").glob("*.csv")}  # label catalogues, not strata
    for table in set(_tables(paths)) - seeds:
        columns = set(_query(paths, f'select * from "{table}" limit 0').columns)
        if "category" in columns:
            values = _query(paths, f'select distinct category from "{table}"')["category"].tolist()
            assert values in ([], ["all"]), (table, values)


def _landed_matrix(paths, dimension: str) -> np.ndarray:
    ratings = pd.read_parquet(paths.raw_table("human_ratings"))
    wide = ratings.pivot(index="rater_id", columns="image_id", values=dimension)
    return wide.to_numpy(dtype=float)


@pytest.mark.parametrize("metric", ["interval", "ordinal", "nominal"])
def test_the_human_alpha_is_krippendorffs_on_the_landed_ratings(grain, metric):
    paths, _ = grain
    got = _query(
        paths,
        f"select dimension, alpha from alpha_delta where condition_id = 'human' and metric = '{metric}' and category = 'all'",
    ).set_index("dimension")["alpha"]
    assert sorted(got.index) == sorted(DIMENSIONS)
    for dimension in DIMENSIONS:
        expected = krippendorff.alpha(
            reliability_data=_landed_matrix(paths, dimension), level_of_measurement=metric, value_domain=[1, 2, 3, 4, 5]
        )
        assert got[dimension] == pytest.approx(expected, abs=1e-9), (dimension, metric)


@pytest.mark.parametrize("metric", ["interval", "ordinal", "nominal"])
def test_the_alpha_with_a_model_is_krippendorffs_with_its_answers_as_one_more_rater(grain, metric):
    paths, _ = grain
    preds = pd.read_parquet(paths.raw_table("model_predictions"))
    got = _query(
        paths,
        f"select condition_id, dimension, alpha from alpha_delta where condition_id <> 'human' and metric = '{metric}' and category = 'all'",
    )
    assert len(got) == 2 * len(DIMENSIONS)
    for row in got.itertuples():
        ratings = pd.read_parquet(paths.raw_table("human_ratings"))
        wide = ratings.pivot(index="rater_id", columns="image_id", values=row.dimension)
        model = preds[preds.condition_id == row.condition_id].set_index("image_id")[row.dimension]
        data = np.vstack([wide.to_numpy(dtype=float), model.reindex(wide.columns).to_numpy(dtype=float)])
        domain = sorted(set(np.unique(data[~np.isnan(data)])))
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=metric, value_domain=domain)
        assert row.alpha == pytest.approx(expected, abs=1e-9), (row.condition_id, row.dimension, metric)


def test_every_condition_gets_a_verdict_at_the_pooled_scope(grain):
    paths, _ = grain
    verdicts = _query(paths, "select category, measure, n_conditions, verdict from replaceability_verdicts")
    assert sorted(zip(verdicts.category, verdicts.measure)) == sorted(("all", d) for d in DIMENSIONS)
    assert (verdicts["n_conditions"] == 2).all() and verdicts["verdict"].notna().all()


def test_the_human_loo_histogram_has_every_dimension(grain):
    paths, _ = grain
    hist = _query(paths, "select dimension, category, n, n_with_z from report_loo_z_histogram")
    assert set(hist["dimension"]) == set(DIMENSIONS)
    ratings = pd.read_parquet(paths.raw_table("human_ratings"))
    for dimension, part in hist.groupby("dimension"):
        assert part["n"].sum() == part["n_with_z"].iloc[0] <= ratings[dimension].notna().sum()
        assert part["n_with_z"].iloc[0] > 0


def test_the_calibration_folds_run_by_identity_without_a_category(grain):
    paths, _ = grain
    scores = _query(paths, "select * from calibration_scores")
    assert len(scores) > 0 and set(scores["category"]) <= {"all"}


def test_the_query_views_name_none_of_the_papers_words(grain):
    paths, _ = grain
    for view in [t for t in _tables(paths) if t.startswith("query_")]:
        frame = _query(paths, f'select * from "{view}"')
        text = " ".join(map(str, [*frame.columns, *frame.to_numpy().ravel().tolist()])).lower()
        assert not [w for w in PAPER_WORDS if w in text], view


def test_the_headline_numbers_are_the_tables_numbers_under_the_missing_answer_policy(grain):
    """The report's answer reads headline_intervals: its W1SD counts a stimulus the condition never
    answered against it and its delta alpha keeps that stimulus's human ratings, as zscore_summary
    and alpha_delta do (text-llm never answered the first three stimuli)."""
    paths, _ = grain
    got = _query(
        paths,
        """select h.condition_id, h.dimension, h.statistic, h.estimate,
                  coalesce(z.w1sd, a.delta_alpha) as table_value
           from headline_intervals as h
           left join zscore_summary as z
             on h.statistic = 'w1sd' and z.condition_id = h.condition_id and z.dimension = h.dimension
                and z.category = h.category
           left join alpha_delta as a
             on h.statistic = 'delta_alpha' and a.condition_id = h.condition_id and a.dimension = h.dimension
                and a.category = h.category and a.metric = 'interval'
           where h.statistic in ('w1sd', 'delta_alpha') and h.category = 'all'""",
    )
    assert len(got) == 2 * 2 * len(DIMENSIONS)
    assert np.allclose(got["estimate"], got["table_value"], atol=1e-12, rtol=0), got
    # the policy, from the landing: text-llm's W1SD is over every stimulus whose human SD is > 0;
    # one it did not answer is missing, one of SD 0 is out of W1SD answered or not
    zs = _query(
        paths,
        """select dimension, n_zero_sd_images, n_missing_model_values from zscore_summary
           where condition_id = 'text-llm' and category = 'all'""",
    ).set_index("dimension")
    ratings = pd.read_csv(paths.root / "human_ratings.csv")
    preds = pd.read_csv(paths.root / "model_predictions.csv")
    preds = preds[preds["condition_id"] == "text-llm"].set_index("image_id")
    for dim in DIMENSIONS:
        sd = ratings.dropna(subset=[dim]).groupby("image_id")[dim].std(ddof=1)
        answered = preds[dim].dropna().index
        zero = ~(sd > 0)
        assert zs.loc[dim, "n_zero_sd_images"] == zero.sum()
        assert zs.loc[dim, "n_missing_model_values"] == (~zero & ~sd.index.isin(answered)).sum() >= 2


def test_a_failed_mart_is_named_by_run_and_on_the_reports_first_screen(grain, tmp_path, capsys, monkeypatch):
    """A copy of the built study whose verdict rules the replaceability mart cannot read: `run`
    exits non-zero naming the model and its error in one line, keeps the last complete warehouse,
    and writes its report again, which (also when written by `rater1001 report`) names the failed
    build's failed and skipped models on its first screen. The run's build selects the rules and
    what reads them (conftest.build_only): the failure and what it skips are the whole build's."""
    import shutil

    build_only(monkeypatch, "verdict_rules+")
    paths, _ = grain
    root = tmp_path / "broken"
    shutil.copytree(paths.root, root, ignore=shutil.ignore_patterns("logs", "target"))
    rules = (REPO_ROOT / "seeds" / "verdict_rules.csv").read_text(encoding="utf-8")
    broken = rules.replace("delta_alpha_min,0,", "delta_alpha_min,zero,", 1)
    assert broken != rules
    (root / "seeds" / "verdict_rules.csv").write_text(broken, encoding="utf-8")
    capsys.readouterr()
    assert main(["--home", str(root), "run", "--allow-unbalanced", "--no-progress"]) != 0
    err = capsys.readouterr()
    said = [l for l in (err.out + err.err).splitlines() if "replaceability_verdicts" in l]
    assert any("zero" in l for l in said), err
    for _ in range(2):  # written by run, then again by `rater1001 report`
        html = (root / "report" / "index.html").read_text(encoding="utf-8")
        banner = html[html.index('id="build-failed"') :][:3000]
        first_screen = html.index('id="build-failed"') < html.index('id="built-from"')
        assert first_screen and "model.replaceability_verdicts" in banner and "zero" in banner
        assert "not built because an upstream model failed" in banner and "query_verdict_matrix" in banner
        assert main(["--home", str(root), "report", "--no-png"]) == 0


def _words_read(html: str) -> str:
    """The text a person reads in an HTML page: its text nodes, without scripts and styles."""
    import html as html_lib
    import re

    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", html))


def test_the_report_the_data_quality_report_and_the_summary_speak_the_studys_words(grain, capsys):
    """None of the paper's words as a word (a warehouse identifier such as
    classification_by_category is a name, not a word) in what a person reads of this study."""
    import re

    paths, _ = grain
    capsys.readouterr()
    assert main(["--home", str(paths.root), "summary"]) == 0
    texts = {
        "report": _words_read((paths.report / "index.html").read_text(encoding="utf-8")),
        "data quality": _words_read((paths.data_docs / "index.html").read_text(encoding="utf-8")),
        "summary": capsys.readouterr().out,
    }
    for where, text in texts.items():
        found = {w for w in PAPER_WORDS if re.search(rf"(?<![\w]){w}s?(?![\w])", text, re.IGNORECASE)}
        context = [
            " ".join(text[max(0, m.start() - 60) : m.end() + 40].split())
            for w in found
            for m in re.finditer(rf"(?<![\w]){w}s?(?![\w])", text, re.IGNORECASE)
        ][:5]
        assert not found, (where, context)
    # the study's own names are there instead, and the answer places every condition
    assert "genre" in texts["report"] and "fluency" in texts["report"].lower()
    assert "not in the replaceability pool" not in texts["report"] and "where each condition" not in texts["report"]


def test_declarations_the_data_contradict_are_named_and_nothing_crashes(tmp_path, capsys):
    """A dimension no rater used and a rater attribute with one level: the gate names file, column
    and value, the build and the report still run, and the report's first section says it."""
    root = tmp_path / "contradicted"
    files = write_grain_study(root)
    ratings = pd.read_csv(files["human_ratings"]).assign(coherence=None)
    ratings.to_csv(files["human_ratings"], index=False)
    pd.read_csv(files["raters"]).assign(cohort="early").to_csv(files["raters"], index=False)
    home = ["--home", str(root)]
    assert all(main([*home, "ingest", t, str(f)]) == 0 for t, f in files.items())
    capsys.readouterr()
    assert main([*home, "run", "--allow-unbalanced", "--no-progress"]) == 0
    said = capsys.readouterr().out
    expected = [
        "human_ratings.parquet: column 'coherence' (a declared dimension) holds no rating",
        "raters.parquet: column 'cohort' (a declared rater attribute) has one level, 'early'",
    ]
    report = _words_read((root / "report" / "index.html").read_text(encoding="utf-8"))
    for line in expected:
        assert line in said and line in report


def test_each_rater_attribute_level_is_a_panel_for_the_ratings(grain):
    """demographic_rater_panels against pandas and scipy on the landed files: per condition,
    dimension and cohort level, the level's mean rating and the condition's MAE, bias and Pearson r
    against the level's per-stimulus mean."""
    from scipy import stats

    paths, _ = grain
    got = _query(paths, "select * from demographic_rater_panels").set_index(["condition_id", "dimension", "level"])
    ratings = pd.read_parquet(paths.raw_table("human_ratings"))
    raters = pd.read_parquet(paths.raw_table("raters"))
    preds = pd.read_parquet(paths.raw_table("model_predictions"))
    long = ratings.melt(id_vars=["rater_id", "image_id"], value_vars=list(DIMENSIONS), var_name="dimension").dropna()
    long = long.merge(raters[["rater_id", "cohort"]], on="rater_id")
    n = 0
    for (dim, level), part in long.groupby(["dimension", "cohort"]):
        panel = part.groupby("image_id")["value"].mean()
        for cond in ("text-llm", "proxy"):
            row = got.loc[(cond, dim, level)]
            model = preds[preds.condition_id == cond].set_index("image_id")[dim].reindex(panel.index)
            both = model.notna()
            d = panel[both] - model[both]
            assert row["attribute"] == "cohort" and row["n_raters"] == part["rater_id"].nunique()
            assert row["n_items"] == len(panel) and row["n_missing"] == int((~both).sum())
            assert row["panel_mean_rating"] == pytest.approx(part["value"].mean(), abs=1e-12)
            assert row["mae"] == pytest.approx(d.abs().mean(), abs=1e-12)
            assert row["bias"] == pytest.approx(d.mean(), abs=1e-12)
            assert row["pearson_r"] == pytest.approx(stats.pearsonr(panel[both], model[both])[0], abs=1e-9)
            n += 1
    assert n == len(got) == 2 * 2 * len(DIMENSIONS)
    gaps = got.groupby(level=["condition_id", "dimension"])["mae"].agg(lambda m: m.max() - m.min())
    assert np.allclose(got["mae_gap"], gaps.reindex(got.index.droplevel("level")).to_numpy(), atol=1e-12)


def test_the_report_keeps_only_sections_the_study_can_fill_and_speaks_its_names():
    """Without the fixture: a study rating valence with no model dimension gets no valence agreement
    section (its figures read z_valence, which such a warehouse lacks); the paper's own study keeps
    every section. The report's text, written in the slot names, reads in each study's names."""
    from pathlib import Path

    import yaml
    from rater1001.report.layout import sections_for
    from rater1001.report.vocabulary import studys_sections, translator
    from rater1001.study import load_study, parse_study, read_factor_labels

    labels = read_factor_labels(REPO_ROOT / "seeds" / "factor_labels.csv")
    text = (
        "scale: {min: 1, max: 9}\ndimensions: [valence]\nmodel_dimensions: []\n"
        "factors: [{name: race, role: audit}]\nrater_attributes: []\n"
    )
    study = parse_study(yaml.safe_load(text), labels, Path("study.yml"))
    keys = [s.key for s in studys_sections(sections_for(study.model_dimensions), study)]
    assert "valence" not in keys and "arousal" not in keys and "classification" not in keys  # no category
    paper = load_study(project(REPO_ROOT))
    assert studys_sections(sections_for(paper.model_dimensions), paper) == sections_for(paper.model_dimensions)
    assert translator(paper)("Audit_1 x audit_2 by category, 6 categories") == "Race x gender by emotion, 6 emotions"
    # a judge study's dialogue categories are not the stimulus factor
    assert translator(paper)("per dialogue category, per category") == "per dialogue category, per emotion"
    assert translator(paper)("no condition gave a category label") == "no condition gave an emotion label"
    say = translator(study)
    assert (
        say("Audit_1 x audit_2 ANOVA per category, 6 categories")
        == "Race x second audit factor ANOVA per category, 6 categories"
    )
    assert say("classification_by_category and true_category") == "classification_by_category and true_category"
    # a table body holds the study's data, and a judge block keeps its words
    from rater1001.report.vocabulary import translate_html

    page = "<h3>Audit_1 x audit_2</h3><table><tbody><tr><td>audit_2</td></tr></tbody></table>"
    assert (
        translate_html(page, study) == "<h3>Race x second audit factor</h3>" + page[len("<h3>Audit_1 x audit_2</h3>") :]
    )
    judge = '<section class="block block-table" id="block-TJ5" data-tables="judge_category_win_rates"><h3>Category x variant</h3></section>'
    assert translate_html(judge + "<p>by category</p>", paper) == judge + "<p>by emotion</p>"
    # a figure's titles, and the axis of a slot column, in the study's words; its data stays
    from rater1001.report.vocabulary import translate_spec

    spec = {
        "title": "Audit_1 x audit_2 by category",
        "encoding": {"y": {"field": "true_category", "type": "nominal"}, "x": {"field": "n", "type": "quantitative"}},
        "datasets": {"source_0": [{"true_category": "happy", "audit_1": "Korean"}]},
    }
    got = translate_spec(spec, paper)
    assert got["title"] == "Race x gender by emotion" and got["encoding"]["y"]["title"] == "true_emotion"
    assert "title" not in got["encoding"]["x"] and got["datasets"] == spec["datasets"]
    assert "title" not in translate_spec(spec, study)["encoding"]["y"]  # no category: the neutral name stands


def test_the_rater_type_mixed_model_without_a_category_is_the_paired_t_test(grain):
    """rating ~ rater_type + (1 | image_id) with two rows per stimulus (human mean, model) is the
    paired t-test of model against human mean: the rater_type estimate, t and df are scipy's."""
    from scipy import stats

    paths, _ = grain
    fit = _query(paths, "select * from lmm_rater_type where term = 'rater_type[model]'")
    assert fit["fit_error"].isna().all() and len(fit) == 2 * len(DIMENSIONS)
    pairs = _query(
        paths, "select condition_id, dimension, model_value, human_mean from int_model_vs_human_long"
    ).dropna()
    for row in fit.itertuples():
        p = pairs[(pairs.condition_id == row.condition_id) & (pairs.dimension == row.dimension)]
        ref = stats.ttest_rel(p["model_value"], p["human_mean"])
        assert row.estimate == pytest.approx((p["model_value"] - p["human_mean"]).mean(), abs=1e-9)
        assert row.t == pytest.approx(ref.statistic, abs=1e-6) and row.df == pytest.approx(len(p) - 1, abs=1e-6)
