"""Tukey HSD over the six race x gender cells of every (condition, dimension, emotion) whose
race:gender interaction is significant after BH."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.tukey_table(in_pool(dbt.ref("int_bias_cells").df(), dbt.ref("int_condition_pools").df(), "demographics"),
                              dbt.ref("demographic_stratified_anova").df(), dbt.ref("stg_study_factors").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
