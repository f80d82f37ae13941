-- One row describing where the landed data came from. Every mart joins it so that an output built
-- from the simulated demo study says SIMULATED; the report and `rater1001 summary` read the landing
-- fingerprint and gate status to say when the warehouse is stale or unchecked.
with landing_manifest as (
    select * from {{ ref('stg_landing_manifest') }}
),

landing_status as (
    -- sqlfluff's DuckDB grammar does not know `is distinct from` (the macro's gate check)
    {{ landing_status_sql() }}  -- noqa: PRS
),

provenance as (
    select
        coalesce(bool_or(landing_manifest.is_simulated), false) as is_simulated,
        case
            when coalesce(bool_or(landing_manifest.is_simulated), false) then 'SIMULATED' else 'observed'
        end as data_origin,
        count(landing_manifest.table_name) as n_landed_tables,
        string_agg(
            landing_manifest.table_name || ' <- ' || coalesce(landing_manifest.source, '?'), '; '
            order by landing_manifest.table_name
        ) as sources,
        max(landing_manifest.landed_at) as last_landed_at,
        any_value(landing_status.landing_sha256) as landing_sha256,
        any_value(landing_status.gate_status) as gate_status,
        any_value(landing_status.gate_checked_at) as gate_checked_at
    from landing_status
    left join landing_manifest on true
)

select * from provenance
