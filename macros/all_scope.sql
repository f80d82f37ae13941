{#- Every row of `relation` twice: once under its own `scope` value (an emotion) and once under
    'all', the pooled scope the marts report beside each level (docs/sql_style.md). One scan of
    the input: the union all this replaces read it twice. -#}
{%- macro with_all_scope(relation, scope='emotion') -%}
select
    * exclude (is_pooled) replace (
        case when scopes.is_pooled then 'all' else {{ scope }} end as {{ scope }}
    )
from {{ relation }}
cross join (values (false), (true)) as scopes (is_pooled)
{%- endmacro %}
