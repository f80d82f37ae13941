select
    rater_id,
    image_id,
    {%- for dim in var('dimensions') %}
    cast({{ dim }} as integer) as {{ dim }},
    {%- endfor %}
    rt_valence_ms,
    rt_arousal_ms,
    rt_naturalness_ms,
    trial_index,
    emotion as chosen_emotion
from {{ source('landing', 'human_ratings') }}
