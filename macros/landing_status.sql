{#- Which landing this build reads and what the quality gate recorded for it. The landing is named
    by the SHA-256 of its manifest file (rater1001.freshness.landing_fingerprint computes the same
    from the same bytes); the gate writes that fingerprint into data/raw/_quality.json, so a verdict
    recorded for an older landing does not count for this one. read_blob / read_text return no row
    for a missing file, so an unchecked landing reads as 'not checked' instead of failing. -#}
{% macro landing_status_sql() -%}
{%- set raw = landing_path() -%}
select
    manifest.landing_sha256,
    case
        when gate.verdict is null then 'not checked'
        when json_extract_string(gate.verdict, 'landing_sha256') is distinct from manifest.landing_sha256
            then 'checked another landing'
        when cast(json_extract_string(gate.verdict, 'passed') as boolean) then 'passed'
        else 'failed'
    end as gate_status,
    json_extract_string(gate.verdict, 'checked_at') as gate_checked_at
from (select 1) as one
left join (select sha256(content) as landing_sha256 from read_blob('{{ raw }}/_manifest.parquet')) as manifest on true
left join (select cast(content as json) as verdict from read_text('{{ raw }}/_quality.json')) as gate on true
{%- endmacro %}


{#- on-run-start / on-run-end: a build of a landing that failed the gate or was never checked says
    so before it starts and again when it ends, whoever runs dbt (rater1001 or a plain dbt build). -#}
{% macro warn_unless_gate_passed() %}
{%- if execute -%}
{%- set row = run_query(landing_status_sql()).rows[0] -%}
{%- if row['gate_status'] != 'passed' -%}
{%- set why = {
    'not checked': 'has NOT been checked by the quality gate',
    'failed': 'FAILED the quality gate (checked ' ~ row['gate_checked_at'] ~ ')',
    'checked another landing': 'has NOT been checked: the recorded quality-gate result is for an earlier landing',
}[row['gate_status']] -%}
{{ log('!!!!! rater1001: the landing in ' ~ env_var('RATER1001_RAW', 'data/raw') ~ ' ' ~ why
       ~ '. Everything this build writes is built from data that did not pass the gate;'
       ~ ' run `rater1001 check` (report: report/data_quality/index.html). !!!!!', info=True) }}
{%- endif -%}
{%- endif -%}
select 1
{% endmacro %}
