"""Per (condition, dimension, emotion): the paper's four nested linear models of the Bland-Altman
bias and three nested F tests (race, gender, race:gender), eta squared, BH q within each
(condition, dimension) family (Tables 7b, 7c)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.stratified_anova_table(in_pool(dbt.ref("int_bias_cells").df(), dbt.ref("int_condition_pools").df(), "demographics"),
                                        study_factors=dbt.ref("stg_study_factors").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
