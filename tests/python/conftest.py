"""Shared fixtures: a throwaway project folder, and small simulated studies built by the real
simulator (so every test exercises the same code path as `make demo`).

A full `dbt build` is the most expensive thing the suite does, so the built warehouses are session
fixtures shared by every test that only reads them: the paper-scale demo study (`demo_warehouse`),
the small study (`small_warehouse`) and the small study before any model has run
(`small_warehouse_without_predictions`), each built once per run also when `make test` spreads the
tests over pytest-xdist workers (`build_once`). A test that changes a landing table builds its own
project, selecting only the models it checks where it asserts only on those. `make test` hands the
builds out to the workers so that neither waits for the other (pytest_xdist_make_scheduler)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rater1001.paths import REPO_ROOT, ProjectPaths, project

# Published reference fixtures (worked examples, the paper's tables); sources in its README.
REFERENCE = REPO_ROOT / "tests" / "reference"

# A small design that keeps the paper's structure (3 races x 2 genders x 6 emotions) but only
# 2 identities per cell: 72 images, 5 ratings per image, 12 images per rater -> 30 raters.
SMALL_DESIGN = dict(n_identities=2, ratings_per_image=5, images_per_rater=12)


# --- spreading the tests over pytest-xdist workers (`make test`: -n auto --dist loadgroup) ---------


def _xdist_groups_file(config) -> Path:
    """Where the workers leave each test's xdist group for the scheduler: the run's base folder
    (a worker's base folder is a subfolder of the controller's)."""
    base = config._tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "xdist_groups.json"


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect: the whole modules count
def pytest_configure(config):
    # A shell that starts `make test` as a background job hands every process SIGINT ignored, and
    # Python then installs no KeyboardInterrupt handler, so the Ctrl-C tests would wait forever.
    # They need the interactive disposition: here, and in their children (a handler is reset to
    # the default at exec, where an ignored signal would stay ignored).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # A worker has one core to itself, so its builds' DuckDB gets one thread rather than one per
    # core (docs/performance.md, "DuckDB's threads"). The CLI children inherit it.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("RATER1001_DUCKDB_THREADS", "1")
        # Nor do its tests' small matrices gain from OpenBLAS's thread per core: the extra thread
        # spins while it waits for work, CPU taken from the other worker (test_stats_lmm.py alone:
        # ~40 % of its CPU). Set before numpy is first imported, so it reaches numpy's and scipy's
        # OpenBLAS; dbt's Python models already run with one (warehouse._one_blas_thread).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def pytest_collection_modifyitems(session, config, items):
    """Every test that reads the paper-scale demo warehouse joins one xdist group, which the
    scheduler below hands out first: the worker that takes it builds the demo (the longest single
    build) while the other runs everything else, instead of both waiting for it mid-run. The other
    tests of those modules (they build small damaged or empty studies of their own; no module
    fixture is shared with the demo's tests) form a group per module, so that their builds run on
    the other worker instead of lengthening the demo's chain; a test marked with a group of its
    own (the damaged study's readers, in two modules) stays in that group. Under xdist each test's group is
    written down for the scheduler: pytest 9 test ids no longer take the `@group` suffix that
    xdist's own loadgroup relies on."""
    reads_demo = {item.nodeid for item in items if "demo_warehouse" in getattr(item, "fixturenames", ())}
    demo_modules = {item.module for item in items if item.nodeid in reads_demo and hasattr(item, "module")}
    groups = {}
    for item in items:
        if item.nodeid in reads_demo:
            item.add_marker(pytest.mark.xdist_group("demo_warehouse"))
        elif getattr(item, "module", None) in demo_modules and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(f"{item.module.__name__}-without-demo"))
        marks = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        )
        if marks:
            groups[item.nodeid] = "_".join(marks)
    if os.environ.get("PYTEST_XDIST_WORKER") and config.getvalue("loadgroup"):
        target = _xdist_groups_file(config)
        part = target.with_name(f"{target.name}.{os.environ['PYTEST_XDIST_WORKER']}")
        part.write_text(json.dumps(groups))
        os.replace(part, target)  # every worker collects the same tests: any one file will do


def pytest_xdist_make_scheduler(config, log):
    """--dist loadgroup as `make test` runs it: a test file is one unit of work (its module fixtures
    are built once), except that tests marked `xdist_group(name)` form their own unit: a shape of
    the shape matrix, an acceptance study, the demo's tests, a file that builds a warehouse of its
    own. Units are handed out groups first (each holds a build), the demo's first of all, then the
    files in collection order, so that the short files fill the end and both workers finish
    together (docs/testing.md)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupOrFileScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # called once every worker has collected
                groups = _xdist_groups_file(config)
                self.groups = json.loads(groups.read_text()) if groups.exists() else {}
            if nodeid in self.groups:
                return "@" + self.groups[nodeid]
            return nodeid.split("::", 1)[0]

        ordered = False

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # xdist queues the units by their number of tests, which says nothing of their cost
                self.ordered = True
                at = {nodeid: i for i, nodeid in enumerate(self.collection)}
                units = sorted(
                    self.workqueue.items(),
                    key=lambda u: (u[0] != "@demo_warehouse", not u[0].startswith("@"), min(at[n] for n in u[1])),
                )
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return GroupOrFileScheduling(config, log)


@pytest.fixture
def tmp_project(tmp_path) -> ProjectPaths:
    return project(tmp_path)


@pytest.fixture
def small_study(tmp_project) -> ProjectPaths:
    from rater1001.simulate import simulate_study

    simulate_study(tmp_project, seed=7, **SMALL_DESIGN)
    return tmp_project


@pytest.fixture(scope="session")
def demo_study(tmp_path_factory) -> ProjectPaths:
    """The full paper-scale demo study (1,440 images x 50 ratings), built once per test session."""
    from rater1001.simulate import simulate_study

    paths = project(tmp_path_factory.mktemp("demo"))
    simulate_study(paths)
    return paths


def build_once(tmp_path_factory, name: str, build: Callable[[ProjectPaths], bool]) -> tuple[ProjectPaths, bool]:
    """Run build(paths) -> ok once per test run and return (paths, ok). `make test` runs pytest-xdist
    workers; each would build its own copy of a session fixture, so under xdist the first worker
    that needs it builds it under a file lock in a folder all workers of the run share, and the
    others wait for it and read it (readers open DuckDB read-only, which processes can share)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        paths = project(tmp_path_factory.mktemp(name))
        return paths, bool(build(paths))
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / name
    done = shared.with_name(f"{name}.built.json")
    with FileLock(str(shared.with_name(f"{name}.lock"))):
        if not done.exists():
            done.write_text(json.dumps(bool(build(project(shared)))))  # dbt_build returns a BuildSummary
        return project(shared), json.loads(done.read_text())


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory, request) -> ProjectPaths:
    """The paper-scale demo study with its warehouse built by `dbt build` (once per test run)."""
    from rater1001.simulate import simulate_study
    from rater1001.warehouse import dbt_build

    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: build on demo_study itself
        paths = request.getfixturevalue("demo_study")
        assert dbt_build(paths), "dbt build of the demo study failed"
        return paths

    def build(paths):
        simulate_study(paths)
        return dbt_build(paths)

    paths, ok = build_once(tmp_path_factory, "demo_warehouse", build)
    assert ok, "dbt build of the demo study failed"
    return paths


@pytest.fixture(scope="session")
def small_warehouse(tmp_path_factory) -> ProjectPaths:
    """The small study (seed 5, SMALL_DESIGN) and the judge demo study (seed 4, whose planted judge
    biases and candidate order test_judge_warehouse.py recovers), checked by the quality gate and
    built by a full `dbt build`, with the static dbt docs (target/static_index.html, catalog.json),
    once per session. The docs are written here, before any test reads the
    warehouse, because `dbt docs generate` opens it for writing. Read it; do not change it (copy
    what you need into tmp_project)."""
    from rater1001.quality import run_quality_gate
    from rater1001.runs.judge.simulate import simulate_judge_study
    from rater1001.simulate import simulate_study
    from rater1001.warehouse import dbt_build, dbt_docs

    def build(paths):
        simulate_study(paths, seed=5, **SMALL_DESIGN)
        simulate_judge_study(paths, seed=4)
        ok = run_quality_gate(paths).passed and bool(dbt_build(paths))
        return ok and dbt_docs(paths) is not None

    paths, ok = build_once(tmp_path_factory, "small_wh", build)
    assert ok, "the quality gate, dbt build or dbt docs of the small study failed"
    return paths


@dataclass(frozen=True)
class BuiltStudy:
    paths: ProjectPaths
    build_ok: bool  # what dbt_build returned; tests that need every model to pass assert it


# The marts the tests of the study before `infer` read (agreement, ablation, judge and warehouse
# tests), by folder where they read every mart of it: everything else is left out of its build.
WITHOUT_PREDICTIONS_READ = (
    *(
        f"path:models/marts/{area}"
        for area in (
            "ablations agreement alt_test calibration classification diversity intervals judge "
            "replaceability small_pools zscores"
        ).split()
    ),
    "alpha_delta",
)


@pytest.fixture(scope="session")
def small_warehouse_without_predictions(tmp_path_factory) -> BuiltStudy:
    """The small study before any model has run: its model_predictions file is removed, so the
    build lands an empty one (the route of a real study before `infer`). Built once per session:
    the marts its readers check (WITHOUT_PREDICTIONS_READ) and what they are built from, with the
    data tests of those (157 nodes of a whole build's 227). The seeds, staging and intermediate
    models no reader's mart is built from are left out: their data tests do not depend on the
    predictions (the repository's seeds; the human labels) or run on a study without predictions
    in the whole build of the shape matrix's study before `infer` (test_study_shapes.py), which
    also shows that every mart and the report pass without predictions."""
    from rater1001.simulate import simulate_study

    def build(paths):
        simulate_study(paths, seed=7, **SMALL_DESIGN)
        paths.raw_table("model_predictions").unlink()
        return dbt_build_selected(paths, " ".join(f"+{m}" for m in WITHOUT_PREDICTIONS_READ))

    return BuiltStudy(*build_once(tmp_path_factory, "small_wh_no_predictions", build))


@pytest.fixture(scope="session")
def damaged_warehouse(tmp_path_factory) -> BuiltStudy:
    """The small study with the agreement and the demographic areas' bad inputs planted
    (damaged_study.py), built once per run: those areas' marts, everything upstream and the shared
    layers, with their data tests. Its readers are one xdist group (test_marts_agreement.py,
    test_marts_demographics.py), so the other worker never waits for this build."""
    from damaged_study import AGREEMENT_MARTS, DEMOGRAPHIC_MARTS, write_damaged_study

    def build(paths):
        write_damaged_study(paths)
        return dbt_build_marts(paths, *AGREEMENT_MARTS, DEMOGRAPHIC_MARTS)

    return BuiltStudy(*build_once(tmp_path_factory, "damaged_study", build))


@dataclass(frozen=True)
class GateFailedStudy:
    paths: ProjectPaths
    gate: object  # the quality gate's QualityResult, as run before the build


@pytest.fixture(scope="session")
def failed_gate_warehouse(tmp_path_factory) -> GateFailedStudy:
    """The small study with hostile values and blank answers planted (failed_gate_study.py): the
    quality gate fails it, and a plain `dbt build` of every model still passes (asserted here),
    once per run. Its readers are one xdist group (test_quality_report.py, which writes the main
    report into it, and test_verdict_marts_warehouse.py, which edits a copy)."""
    from failed_gate_study import write_failed_gate_study
    from rater1001.quality import run_quality_gate
    from rater1001.warehouse import dbt_build

    def build(paths):
        write_failed_gate_study(paths)
        run_quality_gate(paths)  # its verdict is data/raw/_quality.json, read below
        return dbt_build(paths)

    paths, ok = build_once(tmp_path_factory, "failed_gate_study", build)
    assert ok, "a plain build of a landing that failed the gate still builds"
    from rater1001.quality.gate import QualityResult

    verdict = json.loads((paths.raw / "_quality.json").read_text(encoding="utf-8"))
    return GateFailedStudy(paths, QualityResult.from_json(verdict))


# Every seed, staging and intermediate model: relationship tests on the shared layers refer to
# each other, so a build selecting a few marts builds all of these too (they are cheap views and
# small tables); what is left out is the other areas' marts, where the time goes.
SHARED_LAYERS = "path:seeds path:models/staging path:models/intermediate"


def dbt_build_marts(paths: ProjectPaths, *marts: str) -> bool:
    """`dbt build` of the named marts (or dbt selectors such as path:models/marts/demographics),
    everything upstream of them and the shared layers, with their data tests (dbt_build_selected)."""
    return dbt_build_selected(paths, " ".join([SHARED_LAYERS, *(f"+{m}" for m in marts)]))


def dbt_build_selected(paths: ProjectPaths, select: str) -> bool:
    """`dbt build --select SELECT` with only the data tests whose parents are all selected (dbt's
    cautious indirect selection): a test that also reads a model left out (the report's, the query
    views', another area's label checks) runs in the full builds, not against a missing table."""
    from rater1001.warehouse import dbt_build

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        return bool(dbt_build(paths, select=select))


def build_only(monkeypatch, only: str) -> None:
    """Every build this process starts (`rater1001 run` called in-process among them) selects
    `only` (a dbt selection). On a copy of a built study of the same landing, dbt_build starts its
    staged warehouse from a copy of the published one (warehouse._stage), so a run gets a complete
    staged build for the cost of the selected nodes: for a test whose assertions are on what the
    run does after its build (the report, a failed mart), where a whole build costs ~12 s of CPU
    and asserts nothing."""
    from rater1001 import warehouse

    whole = warehouse.dbt_build
    monkeypatch.setattr(warehouse, "dbt_build", lambda paths, select=None, **kw: whole(paths, only, **kw))


def query_warehouse(paths: ProjectPaths, sql: str):
    """Run one read-only query against a built warehouse and return a pandas frame."""
    import duckdb

    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()
