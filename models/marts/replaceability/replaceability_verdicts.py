def model(dbt, session):
    from rater1001.marts import replaceability

    return replaceability.replaceability_verdicts(
        dbt.ref("replaceability_inputs"), dbt.ref("verdict_rules"), dbt.ref("int_study_provenance")
    )
