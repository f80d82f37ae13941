-- The paper's Tables 1, S4 and S6 rendered from the landed model conditions (the catalog rows a
-- study ran): settings and the Table 1 cells derived from them, the prompt strategy and back-end
-- (Table S4), Supplement S6's profile where seeds/model_condition_profiles.csv has one, and how
-- many predictions of the condition landed.
with model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

profiles as (
    select * from {{ ref('model_condition_profiles') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

predictions as (
    select
        condition_id,
        count(distinct image_id) as n_images_predicted,
        count(*) as n_predictions
    from model_predictions
    group by condition_id
),

final as (
    select
        model_conditions.condition_id,
        model_conditions.display_name,
        model_conditions.short_name,
        model_conditions.kind,
        model_conditions.provider,
        model_conditions.model_id,
        model_conditions.family,
        model_conditions.parameters,
        model_conditions.quantization,
        model_conditions.thinking,
        model_conditions.thinking_budget,
        model_conditions.include_thoughts,
        case
            when model_conditions.thinking and model_conditions.thinking_budget = -1 then 'Yes (dynamic)'
            when model_conditions.thinking and model_conditions.thinking_budget > 0
                then 'Yes (budget=' || model_conditions.thinking_budget || ')'
            when model_conditions.thinking then 'Yes'
            when model_conditions.thinking_budget = 0 then 'No (budget=0)'
            when not model_conditions.thinking then 'No'
        end as thinking_label,
        model_conditions.backend,
        case
            when model_conditions.backend in ('openai', 'gemini', 'anthropic') then 'API'
            when model_conditions.backend in ('mlx', 'huggingface', 'fer') then 'local'
        end as deployment,
        -- Table 1's Backend cell: 'API', or the local back-end's name with '(local)'
        case
            when model_conditions.backend in ('openai', 'gemini', 'anthropic') then 'API'
            when model_conditions.backend in ('mlx', 'huggingface', 'fer')
                then upper(model_conditions.backend) || ' (local)'
            else model_conditions.backend
        end as backend_label,
        model_conditions.strategy,
        model_conditions.temperature,
        model_conditions.seed,
        model_conditions.image_detail,
        model_conditions.repetition_penalty,
        concat_ws(
            ', ',
            'temp=' || printf('%g', model_conditions.temperature),
            'seed=' || model_conditions.seed,
            'image_detail=' || model_conditions.image_detail,
            'rep_penalty=' || printf('%g', model_conditions.repetition_penalty),
            -- includeThoughts is the Gemini API's parameter (Table 1 prints it for the Gemini rows only)
            case
                when model_conditions.backend = 'gemini' and model_conditions.include_thoughts is not null
                    then 'includeThoughts=' || lower(cast(model_conditions.include_thoughts as varchar))
            end
        ) as key_settings,
        profiles.developer,
        profiles.released,
        profiles.parameters_s6,
        profiles.reasoning,
        profiles.weights,
        model_conditions.paper_table,
        coalesce(predictions.n_images_predicted, 0) as n_images_predicted,
        coalesce(predictions.n_predictions, 0) as n_predictions,
        study_provenance.data_origin
    from model_conditions
    left join profiles using (condition_id)
    left join predictions using (condition_id)
    cross join study_provenance
)

select * from final
