{#- Fails on values that are not a declared label of `factor` in the factor_labels seed. The label
    sets are study data, so they are looked up rather than listed in yml. A column of a role slot
    names the `slot` instead: its labels are those of the factor the study put in the slot
    (var factor_slots); a slot the study leaves empty has none to check. -#}
{% test accepted_factor_label(model, column_name, factor=none, slot=none) %}
{%- set factor = factor or var('factor_slots', {}).get(slot) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} is not null
{%- if factor %}
  and {{ column_name }} not in (
      select label from {{ ref('factor_labels') }} where factor = '{{ factor }}'
  )
{%- else %}
  and false
{%- endif %}
{% endtest %}
