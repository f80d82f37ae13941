"""Shared fixtures: a throwaway project folder, and small simulated studies built by the real
simulator (so every test exercises the same code path as `make demo`)."""
from __future__ import annotations

import pytest

from rater1001.paths import REPO_ROOT, ProjectPaths, project

# Published reference fixtures (worked examples, the paper's tables); sources in its README.
REFERENCE = REPO_ROOT / "tests" / "reference"

# A small design that keeps the paper's structure (3 races x 2 genders x 6 emotions) but only
# 2 identities per cell: 72 images, 5 ratings per image, 12 images per rater -> 30 raters.
SMALL_DESIGN = dict(n_identities=2, ratings_per_image=5, images_per_rater=12)


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


@pytest.fixture(scope="session")
def demo_warehouse(demo_study) -> ProjectPaths:
    """The paper-scale demo study with its warehouse built by `dbt build` (once per session)."""
    from rater1001.warehouse import dbt_build

    assert dbt_build(demo_study), "dbt build of the demo study failed"
    return demo_study


def query_warehouse(paths: ProjectPaths, sql: str):
    """Run one read-only query against a built warehouse and return a pandas frame."""
    import duckdb

    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()
