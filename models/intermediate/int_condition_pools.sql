-- Which conditions enter each VLM-only pool (seeds/condition_pools.csv: a pool takes the
-- conditions of its kinds, less the conditions its row names in excluded_conditions). Marts
-- filter on this, so the rule lives in the seed alone. A project's own condition_pools seed
-- written before excluded_conditions existed excludes nothing.
{%- set has_exclusions = false %}
{%- if execute %}
{%- set pool_columns = adapter.get_columns_in_relation(ref('condition_pools')) | map(attribute='name') | list %}
{%- set has_exclusions = 'excluded_conditions' in pool_columns %}
{%- endif %}
with condition_pools as (
    select * from {{ ref('condition_pools') }}
),

model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

pool_members as (
    select
        condition_pools.pool,
        model_conditions.condition_id,
        model_conditions.kind
    from condition_pools
    inner join model_conditions on condition_pools.kind = model_conditions.kind
    {%- if has_exclusions %}
    where not list_contains(
        string_split(coalesce(condition_pools.excluded_conditions, ''), '|'), model_conditions.condition_id
    )
    {%- endif %}
)

select * from pool_members
