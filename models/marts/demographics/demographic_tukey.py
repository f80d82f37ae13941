"""Tukey HSD over the six race x gender cells of every (condition, dimension, emotion) whose
race:gender interaction is significant after BH."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit

    table = audit.tukey_table(dbt.ref("int_model_vs_human").df(),
                              dbt.ref("demographic_stratified_anova").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
