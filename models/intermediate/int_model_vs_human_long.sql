-- int_model_vs_human in long form: one row per (condition, image, model dimension), so every
-- agreement mart groups by dimension instead of repeating itself per column. Only images the
-- condition has a prediction row for appear; model_value is NULL where that step failed to parse.
-- A study whose models predict no dimension has an empty table of the same columns.
with model_vs_human as (
    select * from {{ ref('int_model_vs_human') }}
),

unpivoted as (
    {%- if study_setting('model_dimensions') | length == 0 %}
    select
        condition_id,
        image_id,
        cast(null as varchar) as dimension,
        true_category as category,
        audit_1,
        audit_2,
        identity_id,
        predicted_category,
        cast(null as double) as model_value,
        cast(null as bigint) as human_n,
        cast(null as double) as human_mean,
        cast(null as double) as human_sd,
        cast(null as double) as d,
        cast(null as double) as z
    from model_vs_human
    where false
    {%- endif %}
    {%- for dim in study_setting('model_dimensions') %}
    {%- if not loop.first %}
    union all
    {%- endif %}
    select
        condition_id,
        image_id,
        '{{ dim }}' as dimension,
        true_category as category,
        audit_1,
        audit_2,
        identity_id,
        predicted_category,
        cast(model_{{ dim }} as double) as model_value,
        human_n_{{ dim }} as human_n,
        human_mean_{{ dim }} as human_mean,
        human_sd_{{ dim }} as human_sd,
        d_{{ dim }} as d,
        z_{{ dim }} as z
    from model_vs_human
    {%- endfor %}
)

select * from unpivoted
