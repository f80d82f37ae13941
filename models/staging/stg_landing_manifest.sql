with source as (
    select * from {{ source('landing', 'landing_manifest') }}
),

renamed as (
    select
        table_name,
        source,
        source_sha256,
        rows_landed,
        rows_rejected,
        is_simulated,
        landed_at
    from source
)

select * from renamed
