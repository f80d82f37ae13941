"""Table 4A-2: per model family with several sizes, accuracy per emotion and size, with the delta
to the next smaller size."""

COLUMNS = ["family", "condition_id", "size_b", "emotion", "n_images", "accuracy", "previous_size", "delta_accuracy"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, scaling_accuracy

    rows = dbt.ref("ablation_prediction_rows").df()
    conditions = dbt.ref("stg_model_conditions").df()
    return finish(scaling_accuracy(rows, conditions), COLUMNS, dbt.ref("int_study_provenance").df())
