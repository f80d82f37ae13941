{#- Fails on values outside the study's rating scale [study settings scale_min, scale_max]. -#}
{% test within_scale(model, column_name) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} < {{ study_setting('scale_min') }} or {{ column_name }} > {{ study_setting('scale_max') }}
{% endtest %}
