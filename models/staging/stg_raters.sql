-- One column per declared rater attribute, named as study.yml declares it.
select
    rater_id,
    {%- for a in var('rater_attributes') %}
    {{ a }},
    {%- endfor %}
    cast(age as integer) as age
from {{ source('landing', 'raters') }}
