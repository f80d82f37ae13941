{{ config(materialized='view') }}
-- For ad hoc queries: the replaceability verdict matrix, one row per (emotion, measure, condition):
-- the cell's verdict (replaceability_verdicts), whether this condition is among the cell's passing
-- or stereotyped conditions, and the inputs the rule read (replaceability_inputs).
select
    i.emotion,
    i.measure,
    i.condition_id,
    v.verdict as cell_verdict,
    coalesce(list_contains(string_split(v.passing_conditions, ','), i.condition_id), false) as condition_passes,
    coalesce(list_contains(string_split(v.stereotyped_conditions, ','), i.condition_id), false) as condition_stereotyped,
    i.w1sd,
    i.human_loo_w1sd,
    i.mean_abs_z,
    i.delta_alpha,
    i.delta_alpha_pooled,
    v.delta_alpha_scope,
    i.kappa,
    v.rule,
    v.data_origin
from {{ ref('replaceability_inputs') }} i
join {{ ref('replaceability_verdicts') }} v using (emotion, measure)
