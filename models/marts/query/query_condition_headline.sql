{{ config(materialized='view') }}
-- For ad hoc queries: the headline numbers per (condition, model dimension) over all images, side
-- by side from the marts that compute them: accuracy and kappa (classification_summary), interval
-- delta alpha (alpha_delta), W1SD and mean |z| (zscore_summary) and the human leave-one-out W1SD
-- they are judged against.
with z as (
    select condition_id, dimension, w1sd, mean_abs_z, n_images
    from {{ ref('zscore_summary') }}
    where emotion = 'all' and condition_id <> 'human_loo'
),
loo as (
    select dimension, w1sd as human_loo_w1sd, mean_abs_z as human_loo_mean_abs_z
    from {{ ref('zscore_summary') }}
    where emotion = 'all' and condition_id = 'human_loo'
)
select
    z.condition_id,
    z.dimension,
    c.accuracy,
    c.kappa,
    a.delta_alpha,
    z.w1sd,
    loo.human_loo_w1sd,
    z.mean_abs_z,
    loo.human_loo_mean_abs_z,
    z.n_images,
    prov.data_origin
from z
left join loo using (dimension)
left join {{ ref('classification_summary') }} c on c.condition_id = z.condition_id
left join {{ ref('alpha_delta') }} a
  on a.condition_id = z.condition_id and a.dimension = z.dimension and a.emotion = 'all' and a.metric = 'interval'
cross join {{ ref('int_study_provenance') }} prov
