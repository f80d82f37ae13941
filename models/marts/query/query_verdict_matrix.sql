{{ config(materialized='view') }}
-- For ad hoc queries: the replaceability verdict matrix, one row per (stratum, measure, condition):
-- the cell's verdict (replaceability_verdicts), whether this condition is among the cell's passing
-- or stereotyped conditions, and the inputs the rule read (replaceability_inputs).
with replaceability_inputs as (
    select * from {{ ref('replaceability_inputs') }}
),

replaceability_verdicts as (
    select * from {{ ref('replaceability_verdicts') }}
),

final as (
    select
        {#- the stratum under the category's name; 'scope' (only 'all') in a study without one #}
        replaceability_inputs.category as {{ factor_name('category') if has_category() else 'scope' }},
        replaceability_inputs.measure,
        replaceability_inputs.condition_id,
        replaceability_verdicts.verdict as cell_verdict,
        coalesce(
            list_contains(
                string_split(replaceability_verdicts.passing_conditions, ','), replaceability_inputs.condition_id
            ),
            false
        ) as condition_passes,
        coalesce(
            list_contains(
                string_split(replaceability_verdicts.stereotyped_conditions, ','), replaceability_inputs.condition_id
            ),
            false
        ) as condition_stereotyped,
        replaceability_inputs.w1sd,
        replaceability_inputs.human_loo_w1sd,
        replaceability_inputs.mean_abs_z,
        replaceability_inputs.delta_alpha,
        replaceability_inputs.delta_alpha_pooled,
        replaceability_verdicts.delta_alpha_scope,
        replaceability_inputs.kappa,
        replaceability_verdicts.rule,
        replaceability_verdicts.data_origin
    from replaceability_inputs
    inner join replaceability_verdicts using (category, measure)
)

select * from final
