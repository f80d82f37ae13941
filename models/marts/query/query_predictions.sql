{{ config(materialized='view') }}
-- For ad hoc queries: every model prediction (every run) with its stimulus and the image's human
-- mean, SD and count per model dimension. A view, so it costs nothing to build and always reads
-- the tables below it. The factor columns carry the study's names (race, gender and emotion in the
-- paper's study); a factor the study does not declare has no column, nor a label without a category.
with model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

final as (
    select
        model_predictions.condition_id,
        model_predictions.run_id,
        model_predictions.run_id
        = min(model_predictions.run_id) over (
            partition by model_predictions.condition_id, model_predictions.image_id
        ) as is_primary_run,
        model_predictions.image_id,
        stimuli.file_path,
        stimuli.identity_id,
        {#- the factors the study declares, under its own names (docs/study_shape.md, "Factor names") #}
        {%- for slot in ['audit_1', 'audit_2'] if study_setting('factor_slots', {}).get(slot) %}
        stimuli.{{ slot }} as {{ factor_name(slot) }},
        {%- endfor %}
        {%- if has_category() %}
        stimuli.category as true_{{ factor_name('category') }},
        model_predictions.predicted_category as predicted_{{ factor_name('category') }},
        case
            when model_predictions.predicted_category is not null
                then model_predictions.predicted_category = stimuli.category
        end as correct,
        {%- endif %}
        model_predictions.parse_path
        {%- for dim in study_setting('model_dimensions') %},
        model_predictions.model_{{ dim }},
        human_{{ dim }}.human_mean as human_mean_{{ dim }},
        human_{{ dim }}.human_sd as human_sd_{{ dim }},
        human_{{ dim }}.n_ratings as human_n_{{ dim }}
        {%- endfor %},
        study_provenance.data_origin
    from model_predictions
    inner join stimuli using (image_id)
    {%- for dim in study_setting('model_dimensions') %}
    left join image_human_stats as human_{{ dim }}
        on model_predictions.image_id = human_{{ dim }}.image_id and human_{{ dim }}.dimension = '{{ dim }}'
    {%- endfor %}
    cross join study_provenance
)

select * from final
