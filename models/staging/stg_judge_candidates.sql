with source as (
    select * from {{ source('judge_landing', 'candidates') }}
),

renamed as (
    select
        sample_id,
        candidate_id,
        variant,
        response_text,
        status,
        error,
        model_id,
        -- Characters, not bytes: the verbosity check's length (Korean is 3 bytes per syllable in UTF-8).
        cast(length(response_text) as integer) as response_chars
    from source
)

select * from renamed
