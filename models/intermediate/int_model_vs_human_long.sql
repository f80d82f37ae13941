-- int_model_vs_human in long form: one row per (condition, image, model dimension), so every
-- agreement mart groups by dimension instead of repeating itself per column. Only images the
-- condition has a prediction row for appear; model_value is NULL where that step failed to parse.
{%- for dim in var('model_dimensions') %}
{% if not loop.first %}union all{% endif %}
select
    condition_id,
    image_id,
    '{{ dim }}' as dimension,
    true_emotion as emotion,
    race,
    gender,
    identity_id,
    predicted_emotion,
    cast(model_{{ dim }} as double) as model_value,
    human_n_{{ dim }} as human_n,
    human_mean_{{ dim }} as human_mean,
    human_sd_{{ dim }} as human_sd,
    d_{{ dim }} as d,
    z_{{ dim }} as z
from {{ ref('int_model_vs_human') }}
{%- endfor %}
