def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_significance_counts(
        dbt.ref("demographic_stratified_anova"), dbt.ref("int_study_provenance")
    )
