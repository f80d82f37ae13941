-- One row describing where the landed data came from. Every mart joins it so that an output built
-- from the simulated demo study says SIMULATED.
select
    coalesce(bool_or(is_simulated), false) as is_simulated,
    case when coalesce(bool_or(is_simulated), false) then 'SIMULATED' else 'observed' end as data_origin,
    count(*) as n_landed_tables,
    string_agg(table_name || ' <- ' || coalesce(source, '?'), '; ' order by table_name) as sources,
    max(landed_at) as last_landed_at
from {{ ref('stg_landing_manifest') }}
