{#- The accepted-values declarations model_checks checks. A column declares its check where it is
    documented, in the yml's column `config: {meta: ...}`:
      accepted_values: [a, b]         its values are among these;
      accepted_factor_label: <slot>   its values are labels (factor_labels seed) of the factor the
                                      study put in that role slot (study setting factor_slots); a
                                      slot the study leaves empty has none to check;
      accepted_audit_terms: <kind>    its values name the study's audit factors as the audit marts
                                      spell them (rater1001_audit_terms).
    NULLs pass (dbt's accepted_values does the same; a not-null check is declared on its own).
    The checks of a model's graph `node` (rater1001_declared_node; none at parse time: no checks):
    {column, name, values | factor}. -#}
{% macro rater1001_accepted_values_checks(node) %}
{%- set checks = [] %}
{%- set slots = study_setting('factor_slots', {}) %}
{%- for column in (node.columns.values() if node else []) %}
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


{#- The names of the study's audit factors as the audit marts spell them (setting factor_slots;
    docs/study_shape.md, "Factor names"): kind `factor` = each audit factor; `slice_type` = each,
    and a_b for two; `term` = each, and a:b for two; `omnibus_term` = each, and each with ':' and
    the category. The paper's study: race, gender, race_gender, race:gender, ... -#}
{% macro rater1001_audit_terms(kind) %}
{%- set slots = study_setting('factor_slots', {}) %}
{%- set audit = [] %}
{%- for s in ['audit_1', 'audit_2'] if slots.get(s) %}{% do audit.append(slots[s]) %}{% endfor %}
{%- set values = audit[:] %}
{%- if kind == 'slice_type' and audit | length == 2 %}{% do values.append(audit | join('_')) %}{% endif %}
{%- if kind == 'term' and audit | length == 2 %}{% do values.append(audit | join(':')) %}{% endif %}
{%- if kind == 'omnibus_term' %}
{%- for a in audit %}{% do values.append(a ~ ':' ~ slots.get('category', 'category')) %}{% endfor %}
{%- endif %}
{{ return(values) }}
{% endmacro %}
