{#- Fails on a declared analysis choice whose value is not one of its own allowed_values, so a
    typo in seeds/analysis_choices.csv stops the build instead of silently taking the default. -#}
{% test choices_have_allowed_values(model) %}
select choice, value, allowed_values
from {{ model }}
where not list_contains(string_split(allowed_values, '|'), value)
{% endtest %}
