-- One column per declared rater attribute, named as study.yml declares it.
with source as (
    select * from {{ source('landing', 'raters') }}
),

renamed as (
    select
        rater_id,
        {%- for attribute in study_setting('rater_attributes') %}
        {{ attribute }},
        {%- endfor %}
        cast(age as integer) as age
    from source
)

select * from renamed
