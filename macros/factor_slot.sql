{#- The landing column that fills a warehouse role slot (`category` = the category factor, `audit_1` and
    `audit_2` = the first two audit factors; docs/study_shape.md, "Factor names"), read from the
    study setting factor_slots; a slot the study leaves empty is `empty` (NULL unless told).
    `relation` prefixes the column. -#}
{% macro factor_slot(slot, relation=none, empty='cast(null as varchar)') -%}
{%- set name = study_setting('factor_slots', {}).get(slot) -%}
{%- if name -%}{{ (relation ~ '.') if relation else '' }}{{ name }}{%- else -%}{{ empty }}{%- endif -%}
{%- endmacro %}

{#- The declared name of the factor in a slot, or the slot's own name when the study leaves it
    empty: what a user-facing output calls the slot's column. -#}
{% macro factor_name(slot) -%}
{{ study_setting('factor_slots', {}).get(slot) or slot }}
{%- endmacro %}

{#- Whether the study declares a category factor. Without one every stimulus is in the one stratum
    'all' (stg_stimuli), so a mart has no per-category rows, only its pooled ones
    (docs/study_shape.md, "The grain"). -#}
{% macro has_category() -%}
{{ return(study_setting('factor_slots', {}).get('category') is not none) }}
{%- endmacro %}
