{#- The per-cell sufficient statistics of the rater-type LMM (docs/marts_agreement.md,
    "lmm_rater_type in closed form") for a GROUP BY over one row per image: rows, images with both
    values, and the mean and sum of squared deviations of D = model - human and S = model + human
    (NULL without values, as var_pop). Python twin: rater1001.stats.lmm.rater_type_cells. -#}
{% macro rater_type_cell_stats(human_mean, model) -%}
count(*) as n_rows,
count({{ model }} - {{ human_mean }}) as n_images,
avg({{ model }} - {{ human_mean }}) as diff_mean,
var_pop({{ model }} - {{ human_mean }}) * count({{ model }} - {{ human_mean }}) as diff_ss,
avg({{ model }} + {{ human_mean }}) as sum_mean,
var_pop({{ model }} + {{ human_mean }}) * count({{ model }} - {{ human_mean }}) as sum_ss
{%- endmacro %}
