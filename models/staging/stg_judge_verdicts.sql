with source as (
    select * from {{ source('judge_landing', 'judge_verdicts') }}
),

renamed as (
    select
        judge_id,
        judge_kind,
        judge_model,
        sample_id,
        variant,
        candidate_a,
        candidate_b,
        "order" as presentation_order,
        verdict_empathy,
        verdict_naturalness,
        verdict_coherence,
        verdict_overall,
        reason,
        raw_text,
        parse_status,
        prompt_version,
        input_tokens,
        output_tokens,
        cost_usd,
        latency_ms
    from source
)

select * from renamed
