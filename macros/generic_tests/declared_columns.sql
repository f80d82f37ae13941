{#- The graph node (a model or a seed) of `model`, where model_checks reads the yml's declarations;
    none at parse time, when the graph is not yet built. model_checks looks it up once and hands it
    to each reader of declarations (rater1001_not_null_checks, rater1001_accepted_values_checks,
    rater1001_grain). -#}
{% macro rater1001_declared_node(model) %}
{%- if execute %}
{%- for node in graph.nodes.values()
      if node.resource_type in ['model', 'seed'] and node.alias == model.identifier and node.schema == model.schema %}
{{ return(node) }}
{%- endfor %}
{%- endif %}
{{ return(none) }}
{% endmacro %}
