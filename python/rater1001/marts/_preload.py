"""Every table builder imported ahead of a build, with the libraries the statistics import only
when first called: `rater1001 run` does it while the quality gate still runs in its child process,
so that the build's Python models, which share one interpreter lock, do not pay ~1.5 s of imports
(docs/performance.md, "Stages beside each other")."""

from __future__ import annotations

import importlib
import pkgutil

# What rater1001.stats imports inside its functions (tests/python/test_marts_preload.py keeps the
# list whole): light to import for a command that fits nothing, heavy for a build that fits all.
LAZY_LIBRARIES = (
    "mixedlm",
    "ppi_py",
    "scipy.optimize._linesearch",
    "scipy.sparse.csgraph",
    "statsmodels.discrete.discrete_model",
    "statsmodels.stats.proportion",
    "statsmodels.tools.numdiff",
    "statsmodels.tools.sm_exceptions",
)


def import_builders() -> None:
    from .. import marts

    for module in pkgutil.iter_modules(marts.__path__):
        importlib.import_module(f"{marts.__name__}.{module.name}")
    for name in LAZY_LIBRARIES:
        importlib.import_module(name)
