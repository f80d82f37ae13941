{#- The not-null checks of one model (or seed) in one test node. A column declares its check where it
    is documented, in the yml: `constraints: [{type: not_null}]` (never null; dbt's own property,
    which dbt docs shows as "N" and enforces in the DDL only under a contract, which no model has),
    or `config: {meta: {not_null_when_declared: <slot>}}` (never null when the study fills that role
    slot, var factor_slots: a slot the study leaves empty may be all NULL). One query counts the
    NULLs of every declared column in one scan and returns one row per failing column with its
    name, its check and how many rows are NULL. One node per model instead of one per column:
    dbt spends ~8.5 ms per test node whatever the data (docs/sql_style.md, "Data tests"). -#}
{% test not_null_columns(model) %}
{#- dbt's count of failures is the NULL rows, as the per-column not_null counted them, not the columns -#}
{{ config(fail_calc='coalesce(sum(n_null_rows), 0)') }}
{%- set checks = rater1001_not_null_checks(model) %}
{%- if checks | length == 0 %}
select null as column_name, null as check_name, null as n_null_rows where false
{%- else %}
with null_counts as (
    select
    {%- for check in checks %}
        count(*) filter (where {{ adapter.quote(check.column) }} is null) as n_null_{{ loop.index }}{{ ',' if not loop.last }}
    {%- endfor %}
    from {{ model }}
)
{%- for check in checks %}
select '{{ check.column }}' as column_name, '{{ check.name }}' as check_name, n_null_{{ loop.index }} as n_null_rows
from null_counts
where n_null_{{ loop.index }} > 0
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
{% endtest %}


{#- The (column, check) pairs that not_null_columns checks on `model`, read from the yml declarations
    of the model's node in the graph (empty at parse time, when the graph is not yet built). A
    not_null_when_declared column whose slot the study leaves empty has no check. -#}
{% macro rater1001_not_null_checks(model) %}
{%- set checks = [] %}
{%- set slots = var('factor_slots', {}) %}
{%- for column in rater1001_declared_columns(model) %}
{%- set when_slot = (column.config or {}).get('meta', {}).get('not_null_when_declared') %}
{%- if column.constraints | selectattr('type', 'equalto', 'not_null') | list | length > 0 %}
{%- do checks.append({'column': column.name, 'name': 'not_null'}) %}
{%- elif when_slot and when_slot in slots %}
{%- do checks.append({'column': column.name, 'name': 'not_null when slot ' ~ when_slot ~ ' is declared'}) %}
{%- endif %}
{%- endfor %}
{{ return(checks) }}
{% endmacro %}
