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


{#- The names of the study's audit factors as the audit marts spell them (setting study_factors,
    declared order; docs/study_shape.md, "Factor names"): kind `factor` = each audit factor;
    `slice_type` = each, and a_b for each pair; `term` = each, and a:b for each pair;
    `omnibus_term` = each, and each with ':' and the category. The paper's study: race, gender,
    race_gender, race:gender, ... -#}
{% macro rater1001_audit_terms(kind) %}
{%- set audit = [] %}
{%- set category = [] %}
{%- for f in study_setting('study_factors', []) %}
{%- if f.role == 'audit' %}{% do audit.append(f.name) %}{% elif f.role == 'category' %}{% do category.append(f.name) %}{% endif %}
{%- endfor %}
{%- set values = audit[:] %}
{%- for a in audit %}
{%- set outer = loop.index0 %}
{%- for b in audit[outer + 1:] %}
{%- if kind == 'slice_type' %}{% do values.append(a ~ '_' ~ b) %}{% endif %}
{%- if kind == 'term' %}{% do values.append(a ~ ':' ~ b) %}{% endif %}
{%- endfor %}
{%- if kind == 'omnibus_term' %}{% do values.append(a ~ ':' ~ (category[0] if category else 'category')) %}{% endif %}
{%- endfor %}
{{ return(values) }}
{% endmacro %}
