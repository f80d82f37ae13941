-- One row per (condition, image): the model's answer beside the image's human statistics and
-- design factors. Bland-Altman differences follow the paper's sign (human mean minus model), and z
-- places the model's value in the image's human distribution. When a condition has several runs,
-- its first run_id (in sort order) is the primary run used here; replicate runs stay in staging.
with primary_run as (
    select *
    from {{ ref('stg_model_predictions') }}
    qualify row_number() over (partition by condition_id, image_id order by run_id) = 1
)
select
    p.condition_id,
    p.image_id,
    p.run_id,
    s.identity_id,
    s.race,
    s.gender,
    s.emotion as true_emotion,
    p.predicted_emotion,
    case when p.predicted_emotion is not null
         then p.predicted_emotion = s.emotion end as correct,
    p.parse_path,
    p.thinking_tokens
    {%- for dim in var('model_dimensions') %},
    p.model_{{ dim }},
    h_{{ dim }}.n_ratings as human_n_{{ dim }},
    h_{{ dim }}.human_mean as human_mean_{{ dim }},
    h_{{ dim }}.human_sd as human_sd_{{ dim }},
    h_{{ dim }}.human_mean - p.model_{{ dim }} as d_{{ dim }},
    {{ zscore('p.model_' ~ dim, 'h_' ~ dim ~ '.human_mean', 'h_' ~ dim ~ '.human_sd') }} as z_{{ dim }}
    {%- endfor %}
from primary_run p
join {{ ref('stg_stimuli') }} s using (image_id)
{%- for dim in var('model_dimensions') %}
left join {{ ref('int_image_human_stats') }} h_{{ dim }}
  on h_{{ dim }}.image_id = p.image_id and h_{{ dim }}.dimension = '{{ dim }}'
{%- endfor %}
