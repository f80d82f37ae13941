-- Per (condition, dimension, emotion, race, gender) cell: how many images, and the count, mean and
-- sum of squared deviations of the Bland-Altman bias d. The nested F tests of the stratified
-- ANOVA and the Tukey HSD over race x gender cells are functions of these alone (cell means
-- weighted by their counts; docs/marts_demographics.md, "Fits on per-cell aggregates").
select
    condition_id,
    dimension,
    emotion,
    race,
    gender,
    count(*) as n_rows,
    count(d) as n_bias,
    avg(d) as bias_mean,
    var_pop(d) * count(d) as bias_ss
from {{ ref('int_model_vs_human_long') }}
group by all
