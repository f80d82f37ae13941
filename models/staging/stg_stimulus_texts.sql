-- The text of each text stimulus (study.yml stimulus_kind: text), verbatim from the landing's
-- stimuli.text column; an image study has no rows.
with source as (
    select * from {{ source('landing', 'stimuli') }}
),

texts as (
    select
        image_id,
        text
    from source
    where text is not null
)

select * from texts
