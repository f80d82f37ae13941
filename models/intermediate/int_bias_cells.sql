-- Per (condition, dimension, category, audit_1, audit_2) cell: how many images, and the count, mean and
-- sum of squared deviations of the Bland-Altman bias d. The nested F tests of the stratified
-- ANOVA and the Tukey HSD over audit_1 x audit_2 cells are functions of these alone (cell means
-- weighted by their counts; docs/marts_demographics.md, "Fits on per-cell aggregates").
select
    condition_id,
    dimension,
    category,
    audit_1,
    audit_2,
    count(*) as n_rows,
    count(d) as n_bias,
    avg(d) as bias_mean,
    var_pop(d) * count(d) as bias_ss
from {{ ref('int_model_vs_human_long') }}
group by all
