-- One row describing where the landed data came from. Every mart joins it so that an output built
-- from the simulated demo study says SIMULATED; the report and `rater1001 summary` read the landing
-- fingerprint and gate status to say when the warehouse is stale or unchecked.
select
    coalesce(bool_or(m.is_simulated), false) as is_simulated,
    case when coalesce(bool_or(m.is_simulated), false) then 'SIMULATED' else 'observed' end as data_origin,
    count(m.table_name) as n_landed_tables,
    string_agg(m.table_name || ' <- ' || coalesce(m.source, '?'), '; ' order by m.table_name) as sources,
    max(m.landed_at) as last_landed_at,
    any_value(s.landing_sha256) as landing_sha256,
    any_value(s.gate_status) as gate_status,
    any_value(s.gate_checked_at) as gate_checked_at
from ({{ landing_status_sql() }}) as s
left join {{ ref('stg_landing_manifest') }} as m on true
