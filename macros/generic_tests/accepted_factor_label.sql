{#- Fails on values that are not a declared label of `factor` in the factor_labels seed. The label
    sets are study data, so they are looked up rather than listed in yml. -#}
{% test accepted_factor_label(model, column_name, factor) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} is not null
  and {{ column_name }} not in (
      select label from {{ ref('factor_labels') }} where factor = '{{ factor }}'
  )
{% endtest %}
