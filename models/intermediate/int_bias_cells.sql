-- Per (condition, dimension, category, audit_1, audit_2) cell: how many images, and the count, mean and
-- sum of squared deviations of the Bland-Altman bias d. The nested F tests of the stratified
-- ANOVA of one or two audit factors are functions of these alone (cell means weighted by their
-- counts; docs/marts_demographics.md, "Fits on per-cell aggregates").
select
    condition_id,
    dimension,
    category,
    audit_1,
    audit_2,
    {{ bias_cell_stats('d') }}
from {{ ref('int_model_vs_human_long') }}
group by all
