"""Table 4A-1 for every catalog pair of conditions with the same model_id and a different thinking
setting: accuracy side by side per emotion, thinking tokens per step, McNemar on paired outcomes."""

COLUMNS = ["model_id", "condition_a", "condition_b", "emotion", "n_images", "accuracy_a", "accuracy_b",
           "accuracy_diff_pp", "thinking_tokens_per_step_a", "thinking_tokens_per_step_b", "both_correct",
           "only_a_correct", "only_b_correct", "both_wrong", "mcnemar_statistic", "mcnemar_p", "mcnemar_method",
           "mcnemar_null_reason"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, thinking_comparison

    rows = dbt.ref("ablation_prediction_rows").df()
    conditions = dbt.ref("stg_model_conditions").df()
    return finish(thinking_comparison(rows, conditions), COLUMNS, dbt.ref("int_study_provenance").df())
