{#- The project's table and view materializations, leaner than the libraries' (dbt-duckdb's table,
    dbt's view), because dbt's per-node cost is most of a small build: a small study builds with
    ~10-20 % less CPU (docs/performance.md, "Table and view materializations"). The libraries'
    versions build beside the old relation, rename it away, rename the new one in, drop the old
    one, and query the catalog for indexes and foreign keys and run the grants and comments macros
    for every model, none of which the project declares. Here:
    - a SQL table or view replaces the old relation in one transaction (`create or replace`, after
      dropping an old relation of the other kind): DuckDB's DDL is transactional, so a model whose
      query fails leaves the previous relation and its rows as they were;
    - a Python model writes its table on a cursor of its own (dbt-duckdb's py_write_table), which a
      drop inside the model's transaction would conflict with, so where an old table exists it
      writes a new one beside it, and the old one is dropped and the new one renamed only once the
      model has succeeded.
    A SQL model configured with anything these do not handle (grants, persist_docs, indexes, an
    enforced contract or constraints, DuckLake's partitioning or sorting, a DuckLake database) is
    built by the library's materialization, as before. dbt runs a Python model's code only from a
    statement the materialization itself calls, so a Python model cannot be handed on: its grants,
    comments and indexes are applied here by the library's macros, and DuckLake is refused. tests/python/test_materializations.py pins
    all of this. -#}

{% macro lean_materialization_applies(relation) -%}
  {%- set contract = config.get('contract') -%}
  {{- return(not (
      config.get('grants') or config.get('persist_docs') or config.get('indexes')
      or (contract is not none and contract.enforced) or model.get('constraints')
      or config.get('partitioned_by') or config.get('sorted_by') or adapter.is_ducklake(relation)
  )) -}}
{%- endmacro %}


{#- The model's pre-hooks; returns the relation the model replaces, if any. -#}
{% macro lean_start() -%}
  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}
  {{- return(load_cached_relation(this)) -}}
{%- endmacro %}


{#- Runs the statement that puts the new relation in place of the old one (if any is needed), then
    the post-hooks, in the model's transaction. `library_config`: a Python model configured with
    what lean_materialization_applies names, whose indexes, grants and comments are applied here. -#}
{% macro lean_finish(existing_relation, target_relation, name, replace_sql, library_config=false) -%}
  {%- if replace_sql | trim -%}
    {%- call statement(name) -%}{{ replace_sql }}{%- endcall -%}
  {%- endif -%}
  {%- if library_config -%}
    {%- do create_indexes(target_relation) -%}
    {%- do apply_grants(target_relation, config.get('grants'), should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) -%}
    {%- do persist_docs(target_relation, model) -%}
  {%- endif -%}
  {%- if existing_relation is not none -%}{%- do adapter.cache_dropped(existing_relation) -%}{%- endif -%}
  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmacro %}


{#- A SQL model's `create or replace`, which replaces only its own kind: an old view where the
    table goes (or the reverse) is dropped first. -#}
{% macro lean_replace_sql(existing_relation, target_relation) -%}
  {%- if existing_relation is not none and existing_relation.type != target_relation.type -%}
    drop {{ existing_relation.type }} {{ existing_relation }} cascade;
  {%- endif %}
  create or replace {{ target_relation.type }} {{ target_relation }} as (
    {{ compiled_code }}
  );
{%- endmacro %}


{% materialization table, adapter="duckdb", supported_languages=['sql', 'python'] %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- if model['language'] == 'python' -%}
    {%- if config.get('partitioned_by') or config.get('sorted_by') or adapter.is_ducklake(target_relation) -%}
      {%- do exceptions.raise_compiler_error('macros/materializations/lean.sql builds no Python model into DuckLake') -%}
    {%- endif -%}
  {%- elif not lean_materialization_applies(target_relation) -%}
    {{ return(dbt.materialization_table_duckdb()) }}
  {%- endif -%}
  {%- set existing_relation = lean_start() -%}
  {%- if model['language'] == 'python' -%}
    {#- Where there is no old table, the model writes its own name at once. -#}
    {%- set new_relation = target_relation if existing_relation is none else make_intermediate_relation(target_relation) -%}
    {{ drop_relation_if_exists(load_cached_relation(new_relation)) }}
    {%- call statement('main', language='python') -%}
      {{- create_table_as(False, new_relation, compiled_code, 'python') }}
    {%- endcall -%}
    {%- set swap -%}
      {%- if existing_relation is not none -%}
        drop {{ existing_relation.type }} {{ existing_relation }} cascade;
        alter table {{ new_relation }} rename to {{ adapter.quote_as_configured(target_relation.identifier, 'identifier') }};
      {%- endif -%}
    {%- endset -%}
    {%- set library_config = not lean_materialization_applies(target_relation) -%}
    {{ return(lean_finish(existing_relation, target_relation, 'swap', swap, library_config)) }}
  {%- endif -%}
  {{ return(lean_finish(existing_relation, target_relation, 'main', lean_replace_sql(existing_relation, target_relation))) }}
{% endmaterialization %}


{% materialization view, adapter="duckdb" %}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- if not lean_materialization_applies(target_relation) -%}
    {{ return(dbt.materialization_view_default()) }}
  {%- endif -%}
  {%- set existing_relation = lean_start() -%}
  {{ return(lean_finish(existing_relation, target_relation, 'main', lean_replace_sql(existing_relation, target_relation))) }}
{% endmaterialization %}
