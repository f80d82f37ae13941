"""Per (condition, dimension, term): in how many emotion strata the term is significant after BH
("valence - race significant in k/6 emotions")."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit

    table = audit.significance_counts_table(dbt.ref("demographic_stratified_anova").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
