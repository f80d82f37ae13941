with source as (
    select * from {{ source('landing', 'model_conditions') }}
)

select * from source
