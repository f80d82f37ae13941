-- The declared factors land under the study's own names; each fills its role slot here
-- (macros/factor_slot.sql), so everything downstream reads emotion / race / gender. Without a
-- category every stimulus is in the one stratum 'all' (docs/study_shape.md, "The grain").
with source as (
    select * from {{ source('landing', 'stimuli') }}
),

renamed as (
    select
        image_id,
        identity_id,
        {{ factor_slot('race') }} as race,
        {{ factor_slot('gender') }} as gender,
        {{ factor_slot('emotion', empty="'all'") }} as emotion,
        file_path
    from source
)

select * from renamed
