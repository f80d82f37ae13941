-- The paper's Tables 1, S4 and S6 rendered from the landed model conditions (the catalog rows a
-- study ran): settings and the Table 1 cells derived from them, the prompt strategy and back-end
-- (Table S4), Supplement S6's profile where seeds/model_condition_profiles.csv has one, and how
-- many predictions of the condition landed.
with predictions as (
    select condition_id, count(distinct image_id) as n_images_predicted, count(*) as n_predictions
    from {{ ref('stg_model_predictions') }}
    group by condition_id
)
select
    c.condition_id,
    c.display_name,
    c.short_name,
    c.kind,
    c.provider,
    c.model_id,
    c.family,
    c.parameters,
    c.quantization,
    c.thinking,
    c.thinking_budget,
    c.include_thoughts,
    case
        when c.thinking and c.thinking_budget = -1 then 'Yes (dynamic)'
        when c.thinking and c.thinking_budget > 0 then 'Yes (budget=' || c.thinking_budget || ')'
        when c.thinking then 'Yes'
        when c.thinking_budget = 0 then 'No (budget=0)'
        when not c.thinking then 'No'
    end as thinking_label,
    c.backend,
    case
        when c.backend in ('openai', 'gemini', 'anthropic') then 'API'
        when c.backend in ('mlx', 'huggingface', 'fer') then 'local'
    end as deployment,
    -- Table 1's Backend cell: 'API', or the local back-end's name with '(local)'
    case
        when c.backend in ('openai', 'gemini', 'anthropic') then 'API'
        when c.backend in ('mlx', 'huggingface', 'fer') then upper(c.backend) || ' (local)'
        else c.backend
    end as backend_label,
    c.strategy,
    c.temperature,
    c.seed,
    c.image_detail,
    c.repetition_penalty,
    concat_ws(', ',
        'temp=' || printf('%g', c.temperature),
        'seed=' || c.seed,
        'image_detail=' || c.image_detail,
        'rep_penalty=' || printf('%g', c.repetition_penalty),
        -- includeThoughts is the Gemini API's parameter (Table 1 prints it for the Gemini rows only)
        case when c.backend = 'gemini' and c.include_thoughts is not null
             then 'includeThoughts=' || lower(cast(c.include_thoughts as varchar)) end
    ) as key_settings,
    pr.developer,
    pr.released,
    pr.parameters_s6,
    pr.reasoning,
    pr.weights,
    c.paper_table,
    coalesce(p.n_images_predicted, 0) as n_images_predicted,
    coalesce(p.n_predictions, 0) as n_predictions,
    prov.data_origin
from {{ ref('stg_model_conditions') }} c
left join {{ ref('model_condition_profiles') }} pr using (condition_id)
left join predictions p using (condition_id)
cross join {{ ref('int_study_provenance') }} prov
