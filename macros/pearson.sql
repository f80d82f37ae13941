{#- Pearson r of the per-image human means and a model's values for a GROUP BY, with the reason
    when it is undefined (paper section 3.4.2, Tables 4b/5b): fewer than 3 images with both values,
    or a side that is constant over them. Python twin: rater1001.stats.agreement.pearson. -#}
{% macro pearson_columns(human_mean, model, r='pearson_r', reason='pearson_null_reason') -%}
    {%- set model_constant -%}
        min({{ model }}) filter (where {{ human_mean }} is not null)
        = max({{ model }}) filter (where {{ human_mean }} is not null)
    {%- endset -%}
    {%- set human_constant -%}
        min({{ human_mean }}) filter (where {{ model }} is not null)
        = max({{ human_mean }}) filter (where {{ model }} is not null)
    {%- endset -%}
    case
        when count({{ model }} - {{ human_mean }}) >= 3 and not ({{ model_constant }}) and not ({{ human_constant }})
            then corr({{ human_mean }}, {{ model }})
    end as {{ r }},
    case
        when count({{ model }} - {{ human_mean }}) < 3 then 'fewer than 3 images with both values'
        when {{ model_constant }} then 'model gives one constant value (SD 0)'
        when {{ human_constant }} then 'human means are constant (SD 0)'
    end as {{ reason }}
{%- endmacro %}
