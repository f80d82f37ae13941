{{ config(materialized='view') }}
-- For ad hoc queries: every model prediction (every run) with its stimulus and the image's human
-- mean, SD and count per model dimension. A view, so it costs nothing to build and always reads
-- the tables below it. The factor columns carry the study's names (race, gender and emotion in the
-- paper's study).
select
    p.condition_id,
    p.run_id,
    p.run_id = min(p.run_id) over (partition by p.condition_id, p.image_id) as is_primary_run,
    p.image_id,
    s.file_path,
    s.identity_id,
    {#- the factors under the study's own names (docs/study_shape.md, "Factor names") #}
    s.race as {{ factor_name('race') }},
    s.gender as {{ factor_name('gender') }},
    s.emotion as true_{{ factor_name('emotion') }},
    p.predicted_emotion as predicted_{{ factor_name('emotion') }},
    case when p.predicted_emotion is not null then p.predicted_emotion = s.emotion end as correct,
    p.parse_path
    {%- for dim in var('model_dimensions') %},
    p.model_{{ dim }},
    h_{{ dim }}.human_mean as human_mean_{{ dim }},
    h_{{ dim }}.human_sd as human_sd_{{ dim }},
    h_{{ dim }}.n_ratings as human_n_{{ dim }}
    {%- endfor %},
    prov.data_origin
from {{ ref('stg_model_predictions') }} p
join {{ ref('stg_stimuli') }} s using (image_id)
{%- for dim in var('model_dimensions') %}
left join {{ ref('int_image_human_stats') }} h_{{ dim }}
  on h_{{ dim }}.image_id = p.image_id and h_{{ dim }}.dimension = '{{ dim }}'
{%- endfor %}
cross join {{ ref('int_study_provenance') }} prov
