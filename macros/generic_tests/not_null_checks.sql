{#- The not-null declarations model_checks checks. A column declares its check where it is
    documented, in the yml: `constraints: [{type: not_null}]` (never null; dbt's own property,
    which dbt docs shows as "N" and enforces in the DDL only under a contract, which no model has),
    or `config: {meta: {not_null_when_declared: <slot>}}` (never null when the study fills that role
    slot, study setting factor_slots: a slot the study leaves empty may be all NULL).
    The (column, check) pairs of a model's graph `node` (rater1001_declared_node; none at parse
    time, when the graph is not yet built: no checks). A not_null_when_declared
    column whose slot the study leaves empty has no check. -#}
{% macro rater1001_not_null_checks(node) %}
{%- set checks = [] %}
{%- set slots = study_setting('factor_slots', {}) %}
{%- for column in (node.columns.values() if node else []) %}
{%- set when_slot = (column.config or {}).get('meta', {}).get('not_null_when_declared') %}
{%- if column.constraints | selectattr('type', 'equalto', 'not_null') | list | length > 0 %}
{%- do checks.append({'column': column.name, 'name': 'not_null'}) %}
{%- elif when_slot and when_slot in slots %}
{%- do checks.append({'column': column.name, 'name': 'not_null when slot ' ~ when_slot ~ ' is declared'}) %}
{%- endif %}
{%- endfor %}
{{ return(checks) }}
{% endmacro %}
