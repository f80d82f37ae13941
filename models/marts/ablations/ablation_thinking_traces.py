"""Table 4A-3: thinking length per emotion per thinking condition (characters of the trace and
reported tokens), correct vs wrong answers with the Mann-Whitney U test."""

COLUMNS = ["condition_id", "emotion", "measure", "n_traces", "mean_length", "mean_length_wrong",
           "mean_length_correct", "n_wrong", "n_correct", "mann_whitney_u", "mann_whitney_p",
           "rank_biserial_wrong_vs_correct", "null_reason"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, thinking_traces

    rows = dbt.ref("ablation_prediction_rows").df()
    thinking = sorted(rows.loc[rows["condition_thinking"].fillna(False).astype(bool), "condition_id"].unique())
    return finish(thinking_traces(rows, thinking), COLUMNS, dbt.ref("int_study_provenance").df())
