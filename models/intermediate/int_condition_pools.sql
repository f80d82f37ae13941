-- Which conditions enter each VLM-only pool (seeds/condition_pools.csv: a pool takes the
-- conditions of its kinds). Marts filter on this, so the rule lives in the seed alone.
select p.pool, c.condition_id, c.kind
from {{ ref('condition_pools') }} p
join {{ ref('stg_model_conditions') }} c on c.kind = p.kind
