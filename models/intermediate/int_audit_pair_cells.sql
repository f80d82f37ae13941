-- Per (condition, dimension, category stratum, pair of audit factors, cell of the pair): how
-- many stimuli, and the count, mean and sum of squared deviations of the Bland-Altman bias d,
-- for every pair of declared audit factors in declared order (the long form
-- stg_stimulus_factor_levels joined with itself). The Tukey HSD over a pair's cells is a
-- function of these alone, and so is the stratified ANOVA of two audit factors (a cell's two
-- levels apart); no key is NULL.
with audit_levels as (
    select * from {{ ref('stg_stimulus_factor_levels') }}
    where role = 'audit'
),

pairs as (
    select
        first_factor.image_id,
        first_factor.factor || ':' || second_factor.factor as term,
        first_factor.level || ':' || second_factor.level as cell,
        first_factor.level as first_level,
        second_factor.level as second_level
    from audit_levels as first_factor
    inner join audit_levels as second_factor
        on
            first_factor.image_id = second_factor.image_id
            and first_factor.position < second_factor.position
)

select
    model_long.condition_id,
    model_long.dimension,
    model_long.category,
    pairs.term,
    pairs.cell,
    pairs.first_level,
    pairs.second_level,
    {{ bias_cell_stats('model_long.d') }}
from {{ ref('int_model_vs_human_long') }} as model_long
inner join pairs on model_long.image_id = pairs.image_id
where model_long.category is not null
group by all
