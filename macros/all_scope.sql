{#- Every row of `relation` twice: once under its own `scope` value (a category) and once under
    'all', the pooled scope the marts report beside each level (docs/sql_style.md). One scan of
    the input: the union all this replaces read it twice. A study without a category has every
    row in the stratum 'all' already (stg_stimuli), so its rows are taken once when `scope` is the
    category (`of_category`; by default when it is named `category`). -#}
{%- macro with_all_scope(relation, scope='category', of_category=none) -%}
{%- set of_category = (scope == 'category') if of_category is none else of_category -%}
{%- if of_category and not has_category() -%}
select * from {{ relation }}
{%- else -%}
select
    * exclude (is_pooled) replace (
        case when scopes.is_pooled then 'all' else {{ scope }} end as {{ scope }}
    )
from {{ relation }}
cross join (values (false), (true)) as scopes (is_pooled)
{%- endif -%}
{%- endmacro %}

{#- The strata a verdict is given in: each category level, or 'all' in a study without a category
    (its one stratum; docs/study_shape.md, "The grain"). A condition on `column`. -#}
{%- macro verdict_scope(column) -%}
{%- if has_category() -%}{{ column }} <> 'all'{%- else -%}{{ column }} = 'all'{%- endif -%}
{%- endmacro %}
