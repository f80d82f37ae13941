with source as (
    select * from {{ source('landing', 'model_predictions') }}
),

renamed as (
    select
        condition_id,
        image_id,
        run_id,
        strategy,
        {{ factor_slot('category') }} as predicted_category,
        {%- for dim in study_setting('model_dimensions') %}
        cast({{ dim }} as double) as model_{{ dim }},
        {%- endfor %}
        raw_responses,
        parse_path,
        parse_detail,
        thinking_text,
        thinking_tokens,
        latency_ms,
        input_tokens,
        output_tokens
    from source
)

select * from renamed
