{#- The table rater1001_build says whether the warehouse is a complete build. A build that writes
    the warehouse in place (a plain `dbt build` or `dbt run`) marks it incomplete before its first
    node and complete after its last, only when every node passed; a killed or failed one leaves it
    incomplete, and rater1001's readers refuse such a warehouse (freshness.require_complete).
    `rater1001 build` writes a staged copy and publishes it only when complete (warehouse.py), so
    the published file always says complete. Commands that write no model (test, docs, show) leave
    the mark alone. -#}
{% macro mark_build_started() %}
{%- if execute and flags.WHICH in ('build', 'run', 'seed') -%}
create or replace table {{ target.schema }}.rater1001_build as
select
    '{{ invocation_id }}' as invocation_id,
    '{{ flags.WHICH }}' as command,
    cast('{{ run_started_at.isoformat() }}' as timestamptz) as started_at,
    cast(null as timestamptz) as finished_at,
    false as complete,
    cast(null as varchar) as failed_nodes
{%- else -%}
select 1
{%- endif -%}
{% endmacro %}


{% macro mark_build_finished(results) %}
{%- if execute and flags.WHICH in ('build', 'run', 'seed') -%}
{%- set failed = [] -%}
{%- for result in results if result.status in ('error', 'fail', 'skipped', 'runtime error') -%}
{%- do failed.append(result.node.name) -%}
{%- endfor -%}
create or replace table {{ target.schema }}.rater1001_build as
select
    '{{ invocation_id }}' as invocation_id,
    '{{ flags.WHICH }}' as command,
    cast('{{ run_started_at.isoformat() }}' as timestamptz) as started_at,
    now() as finished_at,
    {{ 'true' if not failed else 'false' }} as complete,
    {{ "'" ~ (failed[:10] | join(', ')) ~ (' and more' if failed | length > 10 else '') ~ " failed'" if failed else 'cast(null as varchar)' }} as failed_nodes
{%- else -%}
select 1
{%- endif -%}
{% endmacro %}
