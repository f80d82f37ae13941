"""The examples in the docstrings of rater1001.stats run and print what they say (pytest's
--doctest-modules, as a test so that `make test` runs it), and the documented modules keep the
numpydoc sections docs/stats.md promises for every public function."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re

import pytest
import rater1001.stats
from rater1001.paths import REPO_ROOT

MODULES = sorted(m.name for m in pkgutil.iter_modules(rater1001.stats.__path__))
# Every module: each public function is documented like pingouin (docs/stats.md, "Docstrings").
DOCUMENTED = MODULES
SECTIONS = ("Parameters", "Notes", "References", "Examples")


def public_functions(module):
    return [
        (name, f)
        for name, f in vars(module).items()
        if inspect.isfunction(f) and not name.startswith("_") and f.__module__ == module.__name__
    ]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_print_what_they_say(name):
    module = importlib.import_module(f"rater1001.stats.{name}")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(module, module.__name__):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail (output above)"


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_public_function_has_the_numpydoc_sections_and_an_example(name):
    module = importlib.import_module(f"rater1001.stats.{name}")
    functions = public_functions(module)
    assert functions
    for fname, f in functions:
        doc = inspect.getdoc(f) or ""
        wanted = [s for s in SECTIONS if s != "Parameters" or inspect.signature(f).parameters]
        missing = [s for s in wanted if f"\n{s}\n" not in doc]
        if "\nReturns\n" not in doc and "\nYields\n" not in doc:
            missing.append("Returns")
        assert not missing, f"{name}.{fname} lacks {missing}"
        assert ">>> " in doc, f"{name}.{fname} has no example"


def test_docs_stats_table_names_the_home_of_every_stats_module():
    """docs/stats.md's "home / paper / checked against" table has a row whose home is each module."""
    rows = [
        line
        for line in (REPO_ROOT / "docs" / "stats.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `stats/")
    ]
    homes = {name for line in rows for name in re.findall(r"^\| `stats/(\w+)\.py`", line)}
    assert set(MODULES) - homes == set()
