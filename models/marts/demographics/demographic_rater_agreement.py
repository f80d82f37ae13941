"""How often each condition's label agrees with the labels of the raters in each level of each
declared rater attribute, and whether that differs by level (the audit by rater attribute)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.rater_agreement_table(
        dbt.ref("stg_human_ratings").df(), dbt.ref("stg_rater_attributes").df(),
        in_pool(dbt.ref("stg_model_predictions").df(), dbt.ref("int_condition_pools").df(), "demographics"))
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
