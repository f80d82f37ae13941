{#- Fails on every rater whose value of a declared rater attribute (setting rater_attributes, one column
    each, named as declared) is missing or not a declared label of that attribute. Generated from
    study.yml, so a study with other attributes tests exactly its own columns. -#}
{% test declared_rater_attributes(model) %}
{%- set attributes = study_setting('rater_attributes') %}
{#- Referred to whatever the attributes: dbt records refs while it parses, before the study's
    settings are read (macros/study_setting.sql). -#}
{%- set labels = ref('factor_labels') %}
{%- if attributes | length == 0 %}
select null as rater_id, null as attribute, null as value where false
{%- else %}
{%- for a in attributes %}
select rater_id, '{{ a }}' as attribute, {{ a }} as value
from {{ model }}
where {{ a }} is null
   or {{ a }} not in (select label from {{ labels }} where factor = '{{ a }}')
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
{% endtest %}
