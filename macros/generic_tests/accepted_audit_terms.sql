{#- Fails on values that do not name the study's audit factors as the audit marts spell them
    (var factor_slots; docs/study_shape.md, "Factor names"): kind `factor` = each audit factor;
    `slice_type` = each, and a_b for two; `term` = each, and a:b for two; `omnibus_term` = each, and
    each with ':' and the category. The paper's study: race, gender, race_gender, race:gender, ... -#}
{% test accepted_audit_terms(model, column_name, kind) %}
{%- set slots = var('factor_slots', {}) %}
{%- set audit = [] %}
{%- for s in ['race', 'gender'] if slots.get(s) %}{% do audit.append(slots[s]) %}{% endfor %}
{%- set values = audit[:] %}
{%- if kind == 'slice_type' and audit | length == 2 %}{% do values.append(audit | join('_')) %}{% endif %}
{%- if kind == 'term' and audit | length == 2 %}{% do values.append(audit | join(':')) %}{% endif %}
{%- if kind == 'omnibus_term' %}
{%- for a in audit %}{% do values.append(a ~ ':' ~ slots.get('emotion', 'emotion')) %}{% endfor %}
{%- endif %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} is not null
{%- if values %}
  and {{ column_name }} not in ({% for v in values %}'{{ v }}'{% if not loop.last %}, {% endif %}{% endfor %})
{%- endif %}
{% endtest %}
