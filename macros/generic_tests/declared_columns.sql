{#- The yml columns of `model`'s node (a model or a seed) in dbt's graph: where the per-model checks
    (not_null_columns, accepted_values_columns) read each column's declarations. Empty at parse
    time, when the graph is not yet built. -#}
{% macro rater1001_declared_columns(model) %}
{%- set columns = [] %}
{%- if execute %}
{%- for node in graph.nodes.values()
      if node.resource_type in ['model', 'seed'] and node.alias == model.identifier and node.schema == model.schema %}
{%- do columns.extend(node.columns.values()) %}
{%- endfor %}
{%- endif %}
{{ return(columns) }}
{% endmacro %}
