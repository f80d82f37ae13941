"""Table 4A-2's dimensional part: per family and size, Pearson r, MAE and bias of each model
dimension and the largest race gap (accuracy and macro-F1, pp), with size-to-size deltas."""

COLUMNS = ["family", "condition_id", "size_b", "metric", "value", "reason", "previous_size", "delta_value"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, model_dimensions, scaling_metrics

    rows = dbt.ref("ablation_prediction_rows").df()
    conditions = dbt.ref("stg_model_conditions").df()
    return finish(scaling_metrics(rows, conditions, model_dimensions(rows)), COLUMNS,
                  dbt.ref("int_study_provenance").df())
