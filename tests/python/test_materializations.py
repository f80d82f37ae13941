"""The project's own table and view materializations (macros/materializations/lean.sql), which
replace dbt-duckdb's and dbt's for speed: what they must keep of the libraries' behaviour.

A throwaway dbt project of a few models, with the repository's materializations copied in, is
built twice into one DuckDB file: a first build, into an empty file; a second in which a SQL
table, a Python table and a view fail (each must leave its previous relation and rows in place)
while the others replace theirs, two of them changing kind (view to table, table to view). Every
model but the failing ones builds range(n) for the build's n, so a relation's row count says
which build wrote it. SQL models configured with
what the lean versions do not handle (persist_docs, a contract) must be built by the libraries'
materializations; a Python model's comment is written by the lean one. A last test shows that the project's own builds use the lean versions."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest
from rater1001.paths import REPO_ROOT

LEAN = REPO_ROOT / "macros" / "materializations" / "lean.sql"

PROJECT = {
    "dbt_project.yml": """
name: lean_check
version: "1.0"
config-version: 2
profile: lean_check
on-run-start: ["create table if not exists hook_log (event varchar)"]
models:
  lean_check:
    +materialized: table
""",
    "profiles.yml": """
lean_check:
  target: dev
  outputs:
    dev: {type: duckdb, path: warehouse.duckdb, threads: 1}
""",
    # Model hooks run inside the model's transaction, around its statement: the post-hook sees
    # the new table.
    "models/rows.sql": """
{{ config(pre_hook="insert into hook_log values ('pre')",
          post_hook="insert into hook_log select 'post ' || count(*) from {{ this }}") }}
select range as n from range({{ var('n') }})
{% if var('fail', 0) %} union all select cast(error('planted failure') as bigint) {% endif %}
""",
    "models/frame.py": """
import pandas as pd

def model(dbt, session):
    if int(dbt.config.get('fail')):
        raise ValueError('planted failure')
    return pd.DataFrame({'n': range(int(dbt.config.get('n')))})
""",
    "models/listing.sql": """
{{ config(materialized='view') }}
select range as n from range({{ var('n') }}) {% if var('fail', 0) %} where no_such_column {% endif %}
""",
    # A Python model that succeeds over its old table (the rename after the model).
    "models/counted.py": """
import pandas as pd

def model(dbt, session):
    return pd.DataFrame({'n': range(int(dbt.config.get('n')))})
""",
    "models/to_table.sql": "{{ config(materialized=var('to_table', 'view')) }} select * from range({{ var('n') }})",
    "models/to_view.sql": "{{ config(materialized=var('to_view', 'table')) }} select * from range({{ var('n') }})",
    "models/documented.sql": "select range as n from range({{ var('n') }})",
    "models/documented_view.sql": "{{ config(materialized='view') }} select * from range({{ var('n') }})",
    "models/contracted.sql": "select cast(range as integer) as n from range({{ var('n') }})",
    "models/models.yml": """
version: 2
models:
  - name: frame
    config: {n: "{{ var('n') }}", fail: "{{ var('fail', 0) }}"}
  - name: counted
    description: a Python model's table, whose comment the lean materialization writes
    config: {n: "{{ var('n') }}", persist_docs: {relation: true}}
  - name: documented
    description: a table whose comments dbt-duckdb writes
    config: {persist_docs: {relation: true, columns: true}}
    columns: [{name: n, description: the column comment}]
  - name: documented_view
    description: a view whose comment dbt writes
    config: {persist_docs: {relation: true}}
  - name: contracted
    config: {contract: {enforced: true}}
    columns: [{name: n, data_type: integer, constraints: [{type: not_null}]}]
""",
}

RELATIONS = "rows frame listing counted to_table to_view documented documented_view contracted".split()
FAILING = ("rows", "frame", "listing")


def _state(db) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        kinds = dict(con.execute("select table_name, table_type from information_schema.tables").fetchall())
        return {
            "kinds": kinds,
            "rows": {
                name: con.execute(f"select count(*) from {name}").fetchone()[0] for name in RELATIONS if name in kinds
            },
            "hooks": [r[0] for r in con.execute("select event from hook_log").fetchall()],
            "not_null": con.execute(
                "select table_name || '.' || column_name from duckdb_columns() where not is_nullable"
            ).fetchall(),
            "comments": {
                **dict(
                    con.execute("select table_name, comment from duckdb_tables() where comment is not null").fetchall()
                ),
                **dict(
                    con.execute("select view_name, comment from duckdb_views() where comment is not null").fetchall()
                ),
                **{
                    f"{t}.{c}": comment
                    for t, c, comment in con.execute(
                        "select table_name, column_name, comment from duckdb_columns() where comment is not null"
                    ).fetchall()
                },
            },
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """(statuses by model, warehouse state) after each of the two builds."""
    from dbt.cli.main import dbtRunner
    from rater1001.warehouse import _release_warehouse

    root = tmp_path_factory.mktemp("lean_check")
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "macros").mkdir()
    shutil.copy(LEAN, root / "macros" / LEAN.name)
    runs = [{"n": 1}, {"n": 2, "fail": 1, "to_table": "table", "to_view": "view"}]
    out = []
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        for run_vars in runs:
            args = ["build", "--project-dir", str(root), "--profiles-dir", str(root), "--log-level", "none"]
            try:
                result = dbtRunner().invoke([*args, "--vars", json.dumps(run_vars)])
            finally:
                _release_warehouse()
            assert result.exception is None, result.exception
            statuses = {r.node.name: str(r.status) for r in result.result.results}
            out.append((statuses, _state(root / "warehouse.duckdb")))
    return out


def test_a_first_build_creates_every_relation_and_runs_the_hooks_around_the_model(builds):
    statuses, state = builds[0]
    assert set(statuses.values()) == {"success"}, statuses
    assert state["rows"] == dict.fromkeys(RELATIONS, 1)
    assert state["kinds"]["to_table"] == "VIEW" and state["kinds"]["to_view"] == "BASE TABLE"
    assert state["hooks"] == ["pre", "post 1"]


def test_a_failing_model_leaves_its_previous_relation_and_rows(builds):
    statuses, state = builds[1]
    assert [statuses[m] for m in FAILING] == ["error"] * 3, statuses
    assert [state["rows"][m] for m in FAILING] == [1, 1, 1]
    assert [state["kinds"][m] for m in FAILING] == ["BASE TABLE", "BASE TABLE", "VIEW"]
    assert state["hooks"] == ["pre", "post 1"]  # the failed model's pre-hook is rolled back with it


def test_the_other_models_replace_their_relations_also_of_the_other_kind_and_leave_nothing_beside(builds):
    statuses, state = builds[1]
    assert {m: s for m, s in statuses.items() if m not in FAILING} == dict.fromkeys(
        set(statuses) - set(FAILING), "success"
    )
    assert {m: state["rows"][m] for m in RELATIONS if m not in FAILING} == dict.fromkeys(
        set(RELATIONS) - set(FAILING), 2
    )
    assert state["kinds"]["to_table"] == "BASE TABLE" and state["kinds"]["to_view"] == "VIEW"
    assert set(state["kinds"]) == {*RELATIONS, "hook_log"}  # no __dbt_tmp or __dbt_backup left


def test_what_the_lean_versions_do_not_handle_is_done_as_the_libraries_do(builds):
    for _, state in builds:
        assert state["comments"] == {
            "documented": "a table whose comments dbt-duckdb writes",
            "documented.n": "the column comment",
            "documented_view": "a view whose comment dbt writes",
            "counted": "a Python model's table, whose comment the lean materialization writes",
        }
        assert state["not_null"] == [("contracted.n",)]  # the contract's constraint, in the DDL


def test_the_projects_builds_use_the_lean_materializations(small_warehouse):
    """dbt keeps each model's last statement in target/run/: the libraries' would build beside the
    old relation (`create table "..."."<model>__dbt_tmp"`)."""
    run = small_warehouse.root / "target" / "run" / "rater1001" / "models"
    assert "create or replace view" in (run / "staging" / "stg_raters.sql").read_text()
    assert "create or replace table" in (run / "intermediate" / "int_human_ratings_long.sql").read_text()
