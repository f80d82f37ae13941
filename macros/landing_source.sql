{#- The landing zone this run reads, quoted for a SQL string: RATER1001_RAW (`rater1001 build` sets
    it to the project folder's data/raw) or the repository's own data/raw for a plain `dbt build`.
    Read only when a node is compiled for a run, never while dbt parses: a parse that reads an env
    var records its value, and every new project folder (each has its own landing) would parse the
    files that read it, and their dependents, again (docs/performance.md, "Fixed cost per build"). -#}
{% macro landing_path() -%}
{{- return((env_var('RATER1001_RAW', 'data/raw') if execute else 'data/raw') | replace("'", "''")) -}}
{%- endmacro %}


{#- Every source is a Parquet file of the landing zone; models/staging/_sources.yml names it under
    'data/raw', and when a node is compiled this override puts the run's landing in its place, so
    the compiled SQL reads the absolute path as before (the staging views work from any working
    directory). builtins.source records the dependency while dbt parses. -#}
{% macro source(source_name, table_name) -%}
{%- set relation = builtins.source(source_name, table_name) -%}
{%- if execute and relation.external -%}
{{- return(relation.external | replace("read_parquet('data/raw/", "read_parquet('" ~ landing_path() ~ "/")) -}}
{%- endif -%}
{{- return(relation) -}}
{%- endmacro %}
