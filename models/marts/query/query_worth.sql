{{ config(materialized='view') }}
-- For ad hoc queries: what each condition is worth per measure over all stimuli: k* in human
-- raters with its interval (worth_k_star) and the smallest human-rated fraction whose PPI++
-- intervals are within 10 % of the all-human width (worth_budget).
with k_star as (
    select * from {{ ref('worth_k_star') }}
    where factor = 'all'
),

budget as (
    select distinct
        condition_id,
        measure,
        budget_fraction
    from {{ ref('worth_budget') }}
),

final as (
    select
        k_star.condition_id,
        k_star.measure,
        k_star.measure_kind,
        k_star.k_star,
        k_star.lo as k_star_lo,
        k_star.hi as k_star_hi,
        k_star.beyond_panel,
        budget.budget_fraction,
        k_star.n_stimuli,
        k_star.n_missing,
        k_star.data_origin
    from k_star
    left join budget
        on k_star.condition_id = budget.condition_id and k_star.measure = budget.measure
)

select * from final
