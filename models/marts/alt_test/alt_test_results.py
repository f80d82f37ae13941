def model(dbt, session):
    from rater1001.marts import alt_test

    return alt_test.alt_test_results(
        dbt.ref("alt_test_rater_outcomes"),
        dbt.ref("int_study_provenance"),
        epsilons=dbt.config.get("alt_test_epsilons"),
        q=dbt.config.get("alt_test_q"),
        min_instances=dbt.config.get("alt_test_min_instances"),
        min_instances_per_category=dbt.config.get("alt_test_min_instances_per_category"),
    )
