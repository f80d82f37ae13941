def model(dbt, session):
    from rater1001.marts import ablations

    return ablations.ablation_scaling_metrics(
        dbt.ref("ablation_prediction_rows"), dbt.ref("stg_model_conditions"), dbt.ref("int_study_provenance")
    )
