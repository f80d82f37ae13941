-- Per (condition, image), the primary run's answer (int_model_vs_human) with the run's thinking
-- measures: characters of the thinking trace, reported thinking tokens (summed over steps) and the
-- number of prompt steps (length of raw_responses), so tokens per step = tokens / steps. Only the
-- 'ablations_4a' pool (seeds/condition_pools.csv: VLMs), the base of every section 4A mart.
with model_vs_human as (
    select * from {{ ref('int_model_vs_human') }}
),

model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

condition_pools as (
    select * from {{ ref('int_condition_pools') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

final as (
    select
        model_vs_human.*,
        length(model_predictions.thinking_text) as thinking_chars,
        coalesce(json_array_length(model_predictions.raw_responses), 1) as n_steps,
        model_conditions.thinking as condition_thinking,
        study_provenance.data_origin
    from model_vs_human
    inner join model_predictions using (condition_id, image_id, run_id)
    left join model_conditions using (condition_id)
    cross join study_provenance
    where model_vs_human.condition_id in (
        select condition_id from condition_pools
        where pool = 'ablations_4a'
    )
)

select * from final
