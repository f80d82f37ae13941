-- Calls, parse outcome, tokens and cost per LLM judge.
select
    judge_id,
    any_value(judge_model) as judge_model,
    count(*) as n_calls,
    count(*) filter (where parse_status = 'ok') as n_parsed,
    count(*) filter (where parse_status = 'partial') as n_partial,
    count(*) filter (where parse_status = 'failed') as n_parse_failed,
    count(*) filter (where parse_status = 'call_failed') as n_call_failed,
    (count(*) filter (where parse_status = 'ok'))::double / count(*) as parse_rate,
    sum(input_tokens) as input_tokens,
    sum(output_tokens) as output_tokens,
    sum(cost_usd) as cost_usd,
    count(*) filter (where cost_usd is null) as n_calls_without_price,
    avg(latency_ms) as mean_latency_ms,
    any_value(p.data_origin) as data_origin
from {{ ref('stg_judge_calls') }}
cross join {{ ref('int_study_provenance') }} p
where judge_kind = 'llm'
group by judge_id
