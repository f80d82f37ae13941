{#- The per-cell aggregates of the Bland-Altman bias `d` (an expression) that the nested F tests
    and Tukey HSD read instead of one row per stimulus (docs/marts_demographics.md, "Fits on
    per-cell aggregates"): rows, rows with a bias value, their mean and the sum of squared
    deviations about it (NULL without values, as var_pop). -#}
{% macro bias_cell_stats(d) -%}
count(*) as n_rows,
count({{ d }}) as n_bias,
avg({{ d }}) as bias_mean,
var_pop({{ d }}) * count({{ d }}) as bias_ss
{%- endmacro %}
