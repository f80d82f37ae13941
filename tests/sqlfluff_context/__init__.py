"""dbt's Jinja context for `sqlfluff lint` with the jinja templater (.sqlfluff, docs/sql_style.md).

sqlfluff's own dbt builtins make `var()` return a placeholder string, so a model that loops over
`var('dimensions')` renders as SQL that never runs. Here `var()` answers with the defaults that
dbt_project.yml declares, as a plain `dbt build` would, and the compile-time-only objects
(`execute`, `graph`, `adapter`) take their parse-time values: what dbt itself renders before it
touches the database.
"""

import os
from pathlib import Path

import yaml

_PROJECT = yaml.safe_load((Path(__file__).resolve().parents[2] / "dbt_project.yml").read_text())
_VARS = _PROJECT.get("vars") or {}

project_name = _PROJECT["name"]
execute = False
graph = {"nodes": {}}


def var(name, default=None):
    return _VARS.get(name, default)


def env_var(name, default=""):
    return os.environ.get(name, default)


class _Adapter:
    @staticmethod
    def get_columns_in_relation(relation):
        return []


class _Exceptions:
    @staticmethod
    def raise_compiler_error(message):
        raise RuntimeError(message)


adapter = _Adapter()
exceptions = _Exceptions()


class _Builtins:
    """dbt's own `source()`, which the project's override (macros/landing_source.sql) calls; a
    source renders as a table name, as sqlfluff's dbt builtins render it."""

    @staticmethod
    def source(source_name, table_name):
        return f"{source_name}_{table_name}"


builtins = _Builtins()
