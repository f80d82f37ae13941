with source as (
    select * from {{ source('judge_landing', 'dialogues') }}
),

renamed as (
    select
        sample_id,
        category,
        situation,
        turns,
        cast(json_array_length(turns) as integer) as n_turns,
        next_speaker,
        source
    from source
)

select * from renamed
