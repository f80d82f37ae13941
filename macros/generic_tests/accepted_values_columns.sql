{#- The accepted-values checks of one model (or seed) in one test node. A column declares its check
    where it is documented, in the yml's column `config: {meta: ...}`:
      accepted_values: [a, b]         its values are among these;
      accepted_factor_label: <slot>   its values are labels (factor_labels seed) of the factor the
                                      study put in that role slot (var factor_slots); a slot the
                                      study leaves empty has none to check;
      accepted_audit_terms: <kind>    its values name the study's audit factors as the audit marts
                                      spell them (rater1001_audit_terms).
    NULLs pass (dbt's accepted_values does the same; a not-null check is declared on its own). The
    query returns one row per (column, value not accepted) with the column, its check and the
    number of rows. One node per model instead of one per column (docs/sql_style.md, "Data tests"). -#}
{% test accepted_values_columns(model) %}
{#- dbt's count of failures is the rows whose value is not accepted -#}
{{ config(fail_calc='coalesce(sum(n_rows), 0)') }}
{#- a parse-time ref: the label lookup depends on the seed whether or not this model uses it -#}
{%- set factor_labels = ref('factor_labels') %}
{%- set checks = rater1001_accepted_values_checks(model) %}
{%- if checks | length == 0 %}
select null as column_name, null as check_name, null as value, null as n_rows where false
{%- else %}
{%- for check in checks %}
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
group by all
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
{% endtest %}


{#- The checks accepted_values_columns runs on `model`: {column, name, values | factor}, read from
    the yml declarations of the model's node in the graph (empty at parse time). -#}
{% macro rater1001_accepted_values_checks(model) %}
{%- set checks = [] %}
{%- set slots = var('factor_slots', {}) %}
{%- for column in rater1001_declared_columns(model) %}
{%- set meta = (column.config or {}).get('meta', {}) %}
{%- if meta.get('accepted_values') is not none %}
{%- do checks.append({'column': column.name, 'name': 'accepted_values', 'values': meta['accepted_values']}) %}
{%- endif %}
{%- set slot = meta.get('accepted_factor_label') %}
{%- if slot and slots.get(slot) %}
{%- do checks.append({'column': column.name, 'name': 'accepted_factor_label ' ~ slot, 'factor': slots[slot]}) %}
{%- endif %}
{%- set kind = meta.get('accepted_audit_terms') %}
{%- if kind %}
{#- a study without audit factors has no term to accept: every non-NULL value fails -#}
{%- do checks.append({'column': column.name, 'name': 'accepted_audit_terms ' ~ kind, 'values': rater1001_audit_terms(kind)}) %}
{%- endif %}
{%- endfor %}
{{ return(checks) }}
{% endmacro %}


{#- The names of the study's audit factors as the audit marts spell them (var factor_slots;
    docs/study_shape.md, "Factor names"): kind `factor` = each audit factor; `slice_type` = each,
    and a_b for two; `term` = each, and a:b for two; `omnibus_term` = each, and each with ':' and
    the category. The paper's study: race, gender, race_gender, race:gender, ... -#}
{% macro rater1001_audit_terms(kind) %}
{%- set slots = var('factor_slots', {}) %}
{%- set audit = [] %}
{%- for s in ['race', 'gender'] if slots.get(s) %}{% do audit.append(slots[s]) %}{% endfor %}
{%- set values = audit[:] %}
{%- if kind == 'slice_type' and audit | length == 2 %}{% do values.append(audit | join('_')) %}{% endif %}
{%- if kind == 'term' and audit | length == 2 %}{% do values.append(audit | join(':')) %}{% endif %}
{%- if kind == 'omnibus_term' %}
{%- for a in audit %}{% do values.append(a ~ ':' ~ slots.get('emotion', 'emotion')) %}{% endfor %}
{%- endif %}
{{ return(values) }}
{% endmacro %}
