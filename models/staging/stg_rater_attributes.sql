-- The declared rater attributes in long form, one row per (rater, attribute) with a value: what
-- the audit by rater attribute slices by, whatever the study names its attributes.
{%- set attributes = var('rater_attributes') %}
{%- if attributes | length == 0 %}
select cast(null as varchar) as rater_id, cast(null as varchar) as attribute,
       cast(null as varchar) as level
where false
{%- else %}
{%- for a in attributes %}
select rater_id, '{{ a }}' as attribute, cast({{ a }} as varchar) as level
from {{ source('landing', 'raters') }}
where {{ a }} is not null
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
