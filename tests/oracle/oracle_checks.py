"""One check per mart (or per part of the report's answer): the oracle's rows against the
warehouse's. Each returns a Comparison (values compared, largest difference, what disagrees).
No project code."""

from __future__ import annotations

import functools
from pathlib import Path

import oracle_calc as oc
import pandas as pd
import yaml
from oracle_warehouse import CLOSED_FORM, FIT, WAREHOUSE_NAMES, Comparison, compare, mart, read


def _alpha(root: Path, landed: oc.Landed, metric: str) -> Comparison:
    expected = oc.alpha_table(landed, (metric,))
    actual = mart(root, "alpha_delta", f"metric = '{metric}'")
    values = ["alpha", "delta_alpha", "human_alpha", "n_units", "n_values"]
    return compare(expected, actual, ["dimension", "scope", "condition_id", "metric"], values, what="alpha_delta")


def alpha_interval(root, landed):
    return _alpha(root, landed, "interval")


def alpha_ordinal(root, landed):
    return _alpha(root, landed, "ordinal")


def alpha_nominal(root, landed):
    return _alpha(root, landed, "nominal")


def zscores_model(root, landed):
    z = oc.zscore_table(landed)
    values = ["mean_abs_z", "w1sd", "w1sd_answered_only", "n_images", "n_zero_sd_images", "n_missing_model_values"]
    return compare(
        z[z["condition_id"] != "human_loo"],
        mart(root, "zscore_summary"),
        ["condition_id", "dimension", "scope"],
        values,
        what="zscore_summary",
    )


def zscores_human_loo(root, landed):
    z = oc.zscore_table(landed)
    return compare(
        z[z["condition_id"] == "human_loo"],
        mart(root, "zscore_summary"),
        ["condition_id", "dimension", "scope"],
        ["mean_abs_z", "w1sd", "n_images"],
        what="zscore_summary",
    )


def agreement(root, landed):
    values = [
        "n",
        "pearson_r",
        "bias",
        "sd_d",
        "loa_lower",
        "loa_upper",
        "mae",
        "mae_folded_normal",
        "human_loo_mae",
        "human_pairwise_mae",
    ]
    return compare(
        oc.agreement_table(landed),
        mart(root, "dimensional_agreement"),
        ["condition_id", "dimension", "scope"],
        values,
        what="dimensional_agreement",
    )


def classification(root, landed):
    values = ["n", "n_missing", "accuracy", "accuracy_answered_only", "f1_macro", "kappa"]
    return compare(
        oc.classification_table(landed),
        mart(root, "classification_summary"),
        ["condition_id"],
        values,
        what="classification_summary",
    )


def classification_by_label(root, landed):
    values = ["precision", "recall", "f1", "support", "n_predicted", "kappa_one_vs_rest"]
    return compare(
        oc.classification_by_label_table(landed),
        mart(root, WAREHOUSE_NAMES["by_label_table"]),
        ["condition_id", "label"],
        values,
        what="classification_by_category",
    )


def audit_slices(root, landed):
    """Each audit factor's slices and each pair's, recomputed, for each condition and the raters'
    plurality label ('human')."""
    actual = mart(root, "demographic_slices")
    return compare(
        oc.audit_slices_table(landed),
        actual,
        ["condition_id", "slice_type", "slice"],
        ["n", "accuracy", "f1_macro"],
        what="demographic_slices",
    )


def audit_anova(root, landed):
    """demographic_stratified_anova: the bias F tests by audit factor and pair, per stratum."""
    values = ["n", "df_num", "df_den", "ss_term", "ss_total", "f_value", "eta_sq", "p_raw", "q_bh", "family_size"]
    return compare(
        oc.audit_anova_table(landed),
        mart(root, "demographic_stratified_anova"),
        ["condition_id", "dimension", "scope", "term"],
        values,
        what="demographic_stratified_anova",
    )


def _every_row_and_reasons(out: Comparison, expected, actual, keys, what: str, undefined: str) -> Comparison:
    """The warehouse has no row the oracle lacks, and each statistic the oracle finds undefined
    comes with the warehouse's reason."""
    if actual is None:
        return out
    if len(actual) != len(expected):
        out.problems.append(f"{what}: {len(actual)} rows, the oracle {len(expected)}")
    if len(expected):
        undefined_keys = {tuple(r) for r in expected.loc[expected[undefined].isna(), keys].itertuples(index=False)}
        for r in actual.itertuples(index=False):
            if tuple(getattr(r, k) for k in keys) in undefined_keys and not r.reason:
                out.problems.append(f"{what} {dict(zip(keys, (getattr(r, k) for k in keys)))}: NULL without a reason")
    return out


def audit_glmm(root, landed):
    """demographic_glmm_lrt: each audit factor's likelihood-ratio test of correctness, both
    models fitted by maximum likelihood (fits 1e-4); counts and df exact."""
    expected, actual = oc.audit_glmm_table(landed), mart(root, "demographic_glmm_lrt")
    keys = ["condition_id", "factor"]
    out = compare(expected, actual, keys, ["n_obs", "n_levels", "n_groups", "df"], what="demographic_glmm_lrt")
    fits = ["chi2", "p_value", "loglik_full", "loglik_null", "random_intercept_sd", "random_intercept_sd_null"]
    out.add(compare(expected, actual, keys, fits, tol=FIT, what="demographic_glmm_lrt"))
    return _every_row_and_reasons(out, expected, actual, keys, "demographic_glmm_lrt", "chi2")


def audit_omnibus(root, landed):
    """demographic_omnibus: each audit factor's main effect on the bias and its interaction with
    the category, over every stimulus with a level of the factor."""
    values = ["n", "df_num", "df_den", "ss_term", "ss_total", "f_value", "eta_sq", "p_raw"]
    expected, actual = oc.audit_omnibus_table(landed), mart(root, "demographic_omnibus")
    keys = ["condition_id", "dimension", "factor", "term"]
    out = compare(expected, actual, keys, values, what="demographic_omnibus")
    return _every_row_and_reasons(out, expected, actual, keys, "demographic_omnibus", "f_value")


def audit_tukey(root, landed):
    """demographic_tukey: pairwise_tukeyhsd over the a x b cells of each pair whose interaction
    the oracle's ANOVA finds significant, per stratum."""
    values = ["meandiff", "p_adj", "lower", "upper", "reject"]
    expected, actual = oc.audit_tukey_table(landed), mart(root, "demographic_tukey")
    if actual is not None:
        actual = actual.assign(reject=actual["reject"].astype(float))
    keys = ["condition_id", "dimension", "scope", "term", "group1", "group2"]
    out = compare(expected, actual, keys, values, what="demographic_tukey")
    if actual is not None:  # the number of rows is compared too (none where nothing is significant)
        out.compared += 1
        if len(actual) != len(expected):
            out.problems.append(f"demographic_tukey: {len(actual)} rows, the oracle {len(expected)}")
    return out


def rater_audit(root, landed):
    """Per rater attribute level: agreement of its raters with each condition's labels
    (demographic_rater_agreement), or in a ratings-only study the level's panel per model
    dimension (demographic_rater_panels)."""
    expected = oc.rater_agreement_table(landed)
    actual = mart(root, "demographic_rater_agreement")
    if landed.category is not None:
        return compare(
            expected.drop(columns="measure"),
            actual,
            ["condition_id", "attribute", "level"],
            ["n_raters", "n_labels", "n_agree", "agreement"],
            what="demographic_rater_agreement",
        )
    # A ratings-only study: each attribute level's raters are a panel of their own
    # (demographic_rater_panels: the condition against the panel's mean rating, a row per model
    # dimension); the oracle asks for that row and the level's raters of the dimension.
    panels = mart(root, "demographic_rater_panels")
    return compare(
        expected.rename(columns={"measure": "dimension"}),
        panels,
        ["condition_id", "dimension", "attribute", "level"],
        ["n_raters"],
        what="demographic_rater_panels",
    )


def answer_numbers(root, landed):
    """The numbers the report's answer prints per condition (headline_intervals' estimates over
    every stimulus: delta alpha and W1SD per model dimension, kappa) and the human LOO W1SD it
    prints beside W1SD (zscore_summary), against the oracle."""
    expected = oc.headline_table(landed)
    est = mart(root, "headline_intervals", f"{WAREHOUSE_NAMES['scope']} = 'all'")
    out = Comparison()
    kappa = expected["statistic"] == "kappa"
    out.add(
        compare(
            expected[~kappa], est, ["condition_id", "dimension", "statistic"], ["estimate"], what="headline_intervals"
        )
    )
    out.add(
        compare(
            expected[kappa].drop(columns="dimension"),
            est,
            ["condition_id", "statistic"],
            ["estimate"],
            what="headline_intervals",
        )
    )
    z = oc.zscore_table(landed)
    out.add(
        compare(
            z[(z["condition_id"] == "human_loo") & (z["scope"] == "all")],
            mart(root, "zscore_summary"),
            ["condition_id", "dimension", "scope"],
            ["w1sd"],
            what="zscore_summary (answer baseline)",
        )
    )
    return out


def query_headline(root, landed):
    """query_condition_headline, the ad hoc view of the same numbers: delta alpha, W1SD and the
    human LOO W1SD per condition and model dimension."""
    expected = oc.headline_table(landed)
    wide = (
        expected[expected["statistic"] != "kappa"]
        .pivot_table(index=["condition_id", "dimension"], columns="statistic", values="estimate", aggfunc="first")
        .reset_index()
    )
    z = oc.zscore_table(landed)
    loo = z[(z["condition_id"] == "human_loo") & (z["scope"] == "all")][["dimension", "w1sd"]]
    wide = wide.merge(loo.rename(columns={"w1sd": "human_loo_w1sd"}), on="dimension", how="left")
    return compare(
        wide,
        read(root, "select * from query_condition_headline"),
        ["condition_id", "dimension"],
        ["delta_alpha", "w1sd", "human_loo_w1sd"],
        what="query_condition_headline",
    )


def _calibration_none(root, landed, values: list[str]):
    """calibration_scores' method 'none' rows against the oracle's, on `values`."""
    return compare(
        oc.calibration_none_table(landed),
        mart(root, "calibration_scores"),
        ["condition_id", "dimension", "scope", "method"],
        values,
        what="calibration_scores",
    )


def calibration_uncalibrated(root, landed):
    """calibration_scores' method 'none' rows: the scores over the answered stimuli and the human
    LOO baseline (the calibrated rows are fits on identity folds: not compared here)."""
    return _calibration_none(root, landed, ["n_scored", "mean_abs_z", "mae", "bias", "sd_d", "n_unique", "loo_w1sd"])


def calibration_missing_answers(root, landed):
    """calibration_scores' uncalibrated W1SD and its counts under the missing-answer policy, and its
    alpha terms over every stimulus of the level (a stimulus never answered is still a unit)."""
    values = ["w1sd", "n_missing", "n_zero_sd", "alpha_human", "alpha_with_model", "delta_alpha", "delta_alpha_pooled"]
    return _calibration_none(root, landed, values)


def calibration_builds(root, landed):
    """calibration_scores exists and has a row per (condition, model dimension) the condition
    answered, for the uncalibrated method at least (its numbers are fits: see the stats tests)."""
    actual = mart(root, "calibration_scores")
    out = Comparison()
    if actual is None:
        out.problems.append("calibration_scores: table missing (its model did not build)")
        return out
    for cond in landed.conditions:
        for dim in landed.model_dims:
            if landed.model_values(cond, dim).notna().any():
                out.compared += 1
                if actual[(actual["condition_id"] == cond) & (actual["dimension"] == dim)].empty:
                    out.problems.append(f"calibration_scores: no row for {cond} x {dim}")
    return out


def verdicts(root, landed):
    """The answer's verdict matrix has a verdict for every measure the study has (classification
    with a category; each model dimension) over every stimulus or per category level."""
    actual = mart(root, "replaceability_verdicts")
    out = Comparison()
    if actual is None:
        out.problems.append("replaceability_verdicts: table missing")
        return out
    measures = (["classification"] if landed.category is not None else []) + landed.model_dims
    for m in measures:
        out.compared += 1
        if actual[actual["measure"] == m].empty:
            out.problems.append(f"replaceability_verdicts: no verdict for measure {m}")
    return out


MODELS = Path(__file__).resolve().parents[2] / "models"


@functools.cache
def declared_grains() -> dict[str, list[str]]:
    """{model: its grain columns} as the models' yml declares them (config.meta.grain): the keys
    every model groups or joins by, read from the declarations, not from project code. Read once
    per process (every study's check asks)."""
    grains = {}
    for path in sorted(MODELS.rglob("*.yml")):
        for node in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("models", []):
            grain = ((node.get("config") or {}).get("meta") or {}).get("grain")
            if grain:
                grains[node["name"]] = list(grain)
    return grains


def no_null_keys(root, landed):
    """No NULL in a key column (issue 31: no nullable column in a join or group key): the compared
    marts' keys, and the declared grain of every model the build made, intermediate ones included
    (a study with fewer audit factors than slots, or without a category, must not leave a key
    column NULL)."""
    keys = {
        "alpha_delta": ["dimension", WAREHOUSE_NAMES["scope"], "condition_id", "metric"],
        "zscore_summary": ["condition_id", "dimension", WAREHOUSE_NAMES["scope"]],
        "dimensional_agreement": ["condition_id", "dimension", WAREHOUSE_NAMES["scope"]],
    }
    keys = keys if landed.dims else {}  # a labels-only study has no rating marts
    out = Comparison()
    for table, cols in keys.items():
        frame = read(root, f"select {', '.join(cols)} from {table}")
        if frame is None:
            out.problems.append(f"{table}: table missing")
            continue
        out.compared += int(frame.size)
        for c in cols:
            n = int(frame[c].isna().sum())
            if n:
                out.problems.append(f"{table}.{c}: {n} NULL keys")
    for table, cols in declared_grains().items():
        nulls = ", ".join(f'count(*) filter (where "{c}" is null) as "{c}"' for c in cols)
        frame = read(root, f'select count(*) as n_rows, {nulls} from "{table}"')
        if frame is None:  # a model the oracle's build did not select
            continue
        out.compared += int(frame["n_rows"].iloc[0]) * len(cols)
        for c in cols:
            n = int(frame[c].iloc[0])
            if n:
                out.problems.append(f"{table}.{c} (grain): {n} NULL keys")
    return out


CHECKS = {
    "alpha_interval": alpha_interval,
    "alpha_ordinal": alpha_ordinal,
    "alpha_nominal": alpha_nominal,
    "zscores_model": zscores_model,
    "zscores_human_loo": zscores_human_loo,
    "agreement": agreement,
    "classification": classification,
    "classification_by_label": classification_by_label,
    "audit_slices": audit_slices,
    "audit_anova": audit_anova,
    "audit_glmm": audit_glmm,
    "audit_omnibus": audit_omnibus,
    "audit_tukey": audit_tukey,
    "rater_audit": rater_audit,
    "answer_numbers": answer_numbers,
    "query_headline": query_headline,
    "calibration_builds": calibration_builds,
    "calibration_uncalibrated": calibration_uncalibrated,
    "calibration_missing_answers": calibration_missing_answers,
    "verdicts": verdicts,
    "no_null_keys": no_null_keys,
}


def applies(check: str, landed: oc.Landed) -> bool:
    """Whether a check has anything to compare on this study's shape."""
    labels = landed.category is not None
    return {
        "alpha_interval": bool(landed.dims),
        "alpha_ordinal": bool(landed.dims),
        "alpha_nominal": bool(landed.dims),
        "zscores_model": bool(landed.model_dims),
        "zscores_human_loo": bool(landed.model_dims),
        "agreement": bool(landed.model_dims),
        "classification": labels,
        "classification_by_label": labels,
        "audit_slices": labels and bool(landed.audit),
        "audit_anova": bool(landed.audit) and bool(landed.model_dims) and bool(landed.conditions),
        "audit_glmm": labels and bool(landed.audit) and bool(landed.conditions),
        "audit_omnibus": bool(landed.audit) and bool(landed.model_dims) and bool(landed.conditions),
        # a Tukey table needs a pair of audit factors; it may be empty (no interaction significant)
        "audit_tukey": len(landed.audit) > 1 and bool(landed.model_dims) and bool(landed.conditions),
        "rater_audit": bool(landed.attributes),
        "answer_numbers": bool(landed.conditions) and (bool(landed.model_dims) or labels),
        "query_headline": bool(landed.model_dims),
        # calibration folds by identity: a study without identity_id has no calibration
        "calibration_builds": bool(landed.model_dims) and landed.stimuli.get("identity_id", pd.Series()).notna().any(),
        "calibration_uncalibrated": labels and bool(landed.model_dims),
        "calibration_missing_answers": labels and bool(landed.model_dims),
        "verdicts": bool(landed.conditions),
        "no_null_keys": True,
    }[check]


def run_all(root: Path) -> dict[str, Comparison]:
    landed = oc.load(root)
    return {name: fn(root, landed) for name, fn in CHECKS.items() if applies(name, landed)}


def summary(results: dict[str, Comparison]) -> pd.DataFrame:
    return pd.DataFrame(
        [dict(check=k, compared=v.compared, max_diff=v.max_diff, problems=len(v.problems)) for k, v in results.items()]
    )


__all__ = ["CHECKS", "CLOSED_FORM", "applies", "run_all", "summary"]
