{{ config(materialized='view') }}
-- For ad hoc queries: the headline numbers per (condition, model dimension) over all images, side
-- by side from the marts that compute them: accuracy and kappa (classification_summary), interval
-- delta alpha (alpha_delta), W1SD and mean |z| (zscore_summary) and the human leave-one-out W1SD
-- they are judged against.
with zscore_summary as (
    select * from {{ ref('zscore_summary') }}
),

answered as (
    select
        condition_id,
        dimension,
        count(model_value) as n_answered
    from {{ ref('int_model_vs_human_long') }}
    group by condition_id, dimension
),

classification_summary as (
    select * from {{ ref('classification_summary') }}
),

alpha_delta as (
    select * from {{ ref('alpha_delta') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

worth_k_star as (
    select * from {{ ref('worth_k_star') }}
    where factor = 'all'
),

model_z as (
    select
        zscore_summary.condition_id,
        zscore_summary.dimension,
        -- no W1SD for a dimension the condition gave no value on (the policy's 0 reads as a result)
        case when answered.n_answered > 0 then zscore_summary.w1sd end as w1sd,
        zscore_summary.mean_abs_z,
        zscore_summary.n_images
    from zscore_summary
    left join answered using (condition_id, dimension)
    where zscore_summary.category = 'all' and zscore_summary.condition_id <> 'human_loo'
),

loo as (
    select
        dimension,
        w1sd as human_loo_w1sd,
        mean_abs_z as human_loo_mean_abs_z
    from zscore_summary
    where category = 'all' and condition_id = 'human_loo'
),

final as (
    select
        model_z.condition_id,
        model_z.dimension,
        classification_summary.accuracy,
        classification_summary.kappa,
        alpha_delta.delta_alpha,
        model_z.w1sd,
        loo.human_loo_w1sd,
        model_z.mean_abs_z,
        loo.human_loo_mean_abs_z,
        model_z.n_images,
        worth_k_star.k_star,
        worth_k_star.lo as k_star_lo,
        worth_k_star.hi as k_star_hi,
        study_provenance.data_origin
    from model_z
    left join loo using (dimension)
    left join classification_summary on model_z.condition_id = classification_summary.condition_id
    left join alpha_delta
        on
            model_z.condition_id = alpha_delta.condition_id
            and model_z.dimension = alpha_delta.dimension
            and alpha_delta.category = 'all'
            and alpha_delta.metric = 'interval'
    left join worth_k_star
        on model_z.condition_id = worth_k_star.condition_id and model_z.dimension = worth_k_star.measure
    cross join study_provenance
)

select * from final
