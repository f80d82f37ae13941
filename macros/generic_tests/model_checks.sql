{#- Every check of one model (or seed) that its yml declares, in one test node (docs/sql_style.md,
    "Data tests"): dbt spends ~15-20 ms per node whatever the data, so one node per model instead
    of one per column and kind. The declarations, read from dbt's graph when the test runs:
      a column's `constraints: [{type: not_null}]` or `config: {meta: {not_null_when_declared:
        <slot>}}`                                       -> not-null (rater1001_not_null_checks);
      a column's `config: {meta: {accepted_values | accepted_factor_label | accepted_audit_terms}}`
                                                        -> accepted values
                                                           (rater1001_accepted_values_checks);
      the model's `config: {meta: {grain: [col, ...]}}` -> one row per combination (rater1001_grain).
    The query returns one row per failure: column_name (the grain's columns joined by ', '),
    check_name, value (the value not accepted, or the duplicated key; NULL for a not-null check)
    and n_rows, the rows that fail it. -#}
{% test model_checks(model) %}
{#- dbt's count of failures ("Got N results") is the failing rows, summed over the checks -#}
{{ config(fail_calc='coalesce(sum(n_rows), 0)') }}
{#- a parse-time ref: dbt records a test's dependencies before the graph says whether this model
    has a factor-label column, so every node runs after the label seed -#}
{%- set factor_labels = ref('factor_labels') %}
{%- set node = rater1001_declared_node(model) %}
{%- set not_null = rater1001_not_null_checks(node) %}
{%- set parts = [] %}
{%- for check in not_null %}
{%- set part %}
select '{{ check.column }}' as column_name, '{{ check.name }}' as check_name, cast(null as varchar) as value, n_null_{{ loop.index }} as n_rows
from null_counts
where n_null_{{ loop.index }} > 0
{%- endset %}
{%- do parts.append(part) %}
{%- endfor %}
{%- for check in rater1001_accepted_values_checks(node) %}
{%- set part %}
select
    '{{ check.column }}' as column_name,
    '{{ check.name }}' as check_name,
    cast({{ adapter.quote(check.column) }} as varchar) as value,
    count(*) as n_rows
from {{ model }}
where {{ adapter.quote(check.column) }} is not null
{%- if check.factor %}
  and {{ adapter.quote(check.column) }} not in (select label from {{ factor_labels }} where factor = '{{ check.factor }}')
{%- elif check['values'] | length > 0 %}
  and cast({{ adapter.quote(check.column) }} as varchar) not in ({% for v in check['values'] %}'{{ v }}'{{ ', ' if not loop.last }}{% endfor %})
{%- endif %}
group by {{ adapter.quote(check.column) }}
{%- endset %}
{%- do parts.append(part) %}
{%- endfor %}
{%- set grain = rater1001_grain(node) %}
{%- if grain %}
{%- set part %}
select
    '{{ grain | join(', ') }}' as column_name,
    'grain' as check_name,
    cast({ {%- for c in grain %}'{{ c }}': {{ adapter.quote(c) }}{{ ', ' if not loop.last }}{% endfor -%} } as varchar) as value,
    count(*) as n_rows
from {{ model }}
group by {% for c in grain %}{{ adapter.quote(c) }}{{ ', ' if not loop.last }}{% endfor %}
having count(*) > 1
{%- endset %}
{%- do parts.append(part) %}
{%- endif %}
{%- if parts | length == 0 %}
select null as column_name, null as check_name, null as value, null as n_rows where false
{%- else %}
{%- if not_null %}
{#- one scan counts the NULLs of every not-null column -#}
with null_counts as (
    select
    {%- for check in not_null %}
        count(*) filter (where {{ adapter.quote(check.column) }} is null) as n_null_{{ loop.index }}{{ ',' if not loop.last }}
    {%- endfor %}
    from {{ model }}
)
{%- endif %}
{{ parts | join('\nunion all\n') }}
{%- endif %}
{% endtest %}


{#- The grain of a model's graph `node`: the columns its yml declares one row per combination of
    (the model's `config: {meta: {grain: [...]}}`); empty when it declares none, and at parse time
    (no node). -#}
{% macro rater1001_grain(node) %}
{{ return(((node.config or {}).get('meta') or {}).get('grain') or [] if node else []) }}
{% endmacro %}
