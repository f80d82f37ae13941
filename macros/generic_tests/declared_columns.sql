{#- The graph node (a model or a seed) of `model`, where model_checks reads the yml's declarations;
    none at parse time, when the graph is not yet built. -#}
{% macro rater1001_declared_node(model) %}
{%- if execute %}
{%- for node in graph.nodes.values()
      if node.resource_type in ['model', 'seed'] and node.alias == model.identifier and node.schema == model.schema %}
{{ return(node) }}
{%- endfor %}
{%- endif %}
{{ return(none) }}
{% endmacro %}


{#- The yml columns of `model`'s node: where model_checks reads each column's declarations. Empty
    at parse time. -#}
{% macro rater1001_declared_columns(model) %}
{%- set node = rater1001_declared_node(model) %}
{{ return(node.columns.values() | list if node else []) }}
{% endmacro %}
