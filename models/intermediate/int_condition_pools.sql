-- Which conditions enter each VLM-only pool (seeds/condition_pools.csv: a pool takes the
-- conditions of its kinds, less the conditions its row names in excluded_conditions). Marts
-- filter on this, so the rule lives in the seed alone. A project's own condition_pools seed
-- written before excluded_conditions existed excludes nothing.
{%- set has_exclusions = execute and 'excluded_conditions' in (adapter.get_columns_in_relation(ref('condition_pools')) | map(attribute='name') | list) %}
select p.pool, c.condition_id, c.kind
from {{ ref('condition_pools') }} p
join {{ ref('stg_model_conditions') }} c on c.kind = p.kind
{%- if has_exclusions %}
where not list_contains(string_split(coalesce(p.excluded_conditions, ''), '|'), c.condition_id)
{%- endif %}
