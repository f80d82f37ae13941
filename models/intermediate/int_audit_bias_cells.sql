-- Per (condition, dimension, category stratum, audit factor, level) cell: how many stimuli, and
-- the count, mean and sum of squared deviations of the Bland-Altman bias d, for every declared
-- audit factor (the long form stg_stimulus_factor_levels). The omnibus F tests (bias by factor
-- and factor x category) are functions of these alone (docs/marts_demographics.md, "Fits on
-- per-cell aggregates"); no key is NULL.
with bias as (
    select * from {{ ref('int_model_vs_human_long') }}
    where category is not null
),

cells as (
    select
        bias.condition_id,
        bias.dimension,
        bias.category,
        levels.factor,
        levels.level,
        {{ bias_cell_stats('bias.d') }}
    from bias
    inner join {{ ref('stg_stimulus_factor_levels') }} as levels
        on bias.image_id = levels.image_id and levels.role = 'audit'
    group by all
)

select * from cells
