with source as (
    select * from {{ source('landing', 'human_ratings') }}
),

renamed as (
    select
        rater_id,
        image_id,
        {%- for dim in study_setting('dimensions') %}
        cast({{ dim }} as integer) as {{ dim }},
        {%- endfor %}
        {%- for dim in study_setting('dimensions') %}
        rt_{{ dim }}_ms,
        {%- endfor %}
        trial_index,
        {{ factor_slot('category') }} as chosen_category
    from source
)

select * from renamed
