-- The declared factors land under the study's own names; each fills its role slot here
-- (macros/factor_slot.sql), so everything downstream reads category / audit_1 / audit_2. Without a
-- category every stimulus is in the one stratum 'all' (docs/study_shape.md, "The grain").
with source as (
    select * from {{ source('landing', 'stimuli') }}
),

renamed as (
    select
        image_id,
        identity_id,
        {{ factor_slot('audit_1') }} as audit_1,
        {{ factor_slot('audit_2') }} as audit_2,
        {{ factor_slot('category', empty="'all'") }} as category,
        file_path
    from source
)

select * from renamed
