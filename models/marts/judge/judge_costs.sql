-- Calls, parse outcome, tokens and cost per LLM judge.
with judge_verdicts as (
    select * from {{ ref('stg_judge_verdicts') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

costs as (
    select
        judge_verdicts.judge_id,
        any_value(judge_verdicts.judge_model) as judge_model,
        count(*) as n_calls,
        count(*) filter (where judge_verdicts.parse_status = 'ok') as n_parsed,
        count(*) filter (where judge_verdicts.parse_status = 'partial') as n_partial,
        count(*) filter (where judge_verdicts.parse_status = 'failed') as n_parse_failed,
        count(*) filter (where judge_verdicts.parse_status = 'ambiguous') as n_ambiguous,
        count(*) filter (where judge_verdicts.parse_status = 'call_failed') as n_call_failed,
        cast(count(*) filter (where judge_verdicts.parse_status = 'ok') as double) / count(*) as parse_rate,
        sum(judge_verdicts.input_tokens) as input_tokens,
        sum(judge_verdicts.output_tokens) as output_tokens,
        sum(judge_verdicts.cost_usd) as cost_usd,
        count(*) filter (where judge_verdicts.cost_usd is null) as n_calls_without_price,
        avg(judge_verdicts.latency_ms) as mean_latency_ms,
        any_value(study_provenance.data_origin) as data_origin
    from judge_verdicts
    cross join study_provenance
    where judge_verdicts.judge_kind = 'llm'
    group by judge_verdicts.judge_id
)

select * from costs
