"""Table 4A-3's correlation: Spearman between per-emotion thinking length and the human median
response time of the emotion, with the exact small-n p-value and the caveat."""

COLUMNS = ["condition_id", "measure", "rt_dimension", "n_emotions", "spearman_rho", "p_value", "p_method",
           "small_n_caveat", "null_reason"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, thinking_rt_correlation

    traces = dbt.ref("ablation_thinking_traces").df()
    rt = dbt.ref("ablation_human_rt_by_emotion").df()
    return finish(thinking_rt_correlation(traces, rt), COLUMNS, dbt.ref("int_study_provenance").df())
