-- Per (condition, image), the primary run's answer (int_model_vs_human) with the run's thinking
-- measures: characters of the thinking trace, reported thinking tokens (summed over steps) and the
-- number of prompt steps (length of raw_responses), so tokens per step = tokens / steps. Only the
-- 'ablations_4a' pool (seeds/condition_pools.csv: VLMs), the base of every section 4A mart.
select
    m.*,
    length(p.thinking_text) as thinking_chars,
    coalesce(json_array_length(p.raw_responses), 1) as n_steps,
    c.thinking as condition_thinking,
    pr.data_origin
from {{ ref('int_model_vs_human') }} m
join {{ ref('stg_model_predictions') }} p using (condition_id, image_id, run_id)
left join {{ ref('stg_model_conditions') }} c using (condition_id)
cross join {{ ref('int_study_provenance') }} pr
where m.condition_id in (select condition_id from {{ ref('int_condition_pools') }} where pool = 'ablations_4a')
