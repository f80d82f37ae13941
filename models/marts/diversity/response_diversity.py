def model(dbt, session):
    from rater1001.marts import diversity

    return diversity.response_diversity(dbt.ref("int_model_vs_human_long"), dbt.ref("int_study_provenance"))
