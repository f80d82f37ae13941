def model(dbt, session):
    from rater1001.marts import ablations

    return ablations.ablation_thinking_traces(dbt.ref("ablation_prediction_rows"), dbt.ref("int_study_provenance"))
