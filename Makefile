# Two commands do all set-up: `make demo` and `make test`. Both create .venv from the lock file.
# The interpreter .venv is built on: Debian's python3.11 where it is installed with its venv module,
# else the PATH's python3. Debian builds CPython with profile-guided and link-time optimisation and
# links libpython into the executable; pyenv's default build (the PATH's python3 on the CI machine)
# does neither, and costs ~12 % more CPU in the test suite, where dbt's per-node Python dominates
# (docs/testing.md, "The interpreter"). `make PYTHON=/path/to/python3 venv` chooses another one.
PYTHON ?= $(or $(shell for p in /usr/bin/python3.11 python3; do \
	$$p -c 'import ensurepip, venv, sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done),python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint venv lock clean

# The last step byte-compiles everything once: without .pyc files each command recompiles pandas
# & co. from source (about half a second of CPU per `rater1001 ingest`), and an environment with
# PYTHONDONTWRITEBYTECODE never caches them. (A file that does not compile is not our concern.)
$(STAMP): requirements.lock requirements-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -r requirements-nodeps.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib python > /dev/null || true
	touch $(STAMP)

venv: $(STAMP)

# Simulate the embedded demo study, run the quality gate, build the warehouse.
demo: $(STAMP)
	$(BIN)/rater1001 demo

# One pytest worker per core. A test file's tests run on one worker (a file's module fixtures are
# built once), except xdist groups (each shape of the shape matrix, each acceptance study, the
# demo's readers, files with a build of their own), which are handed out first so both workers
# stay busy; each shared warehouse is still built once per run (docs/testing.md).
# Lint runs beside pytest, niced: the workers leave a core idle while they collect and in the
# tail (one worker finishing its last unit), and the linters fill those gaps instead of adding
# their ~8 s in front. A lint failure still fails `make test`, its report printed after pytest's.
# pytest keeps the test modules it rewrites for assertion messages (and the plugin modules it
# rewrites in .venv) as __pycache__/*-pytest-*.pyc, ignored by git, also where the environment sets
# PYTHONDONTWRITEBYTECODE: otherwise every worker re-parses and recompiles them at each run, about
# 3 s of CPU each (docs/testing.md).
test: $(STAMP)
	@lintlog=$$(mktemp); \
	nice -n 19 $(MAKE) --no-print-directory lint > $$lintlog 2>&1 & lintpid=$$!; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadgroup; testrc=$$?; \
	wait $$lintpid; lintrc=$$?; \
	if [ $$lintrc -ne 0 ]; then cat $$lintlog; echo "make lint failed (above)"; fi; rm -f $$lintlog; \
	test $$testrc -eq 0 -a $$lintrc -eq 0

# Style (docs/sql_style.md), which `make test` runs beside pytest: sqlfluff over models/ (and the
# macros they render) on both cores in the background while ruff (well under a second) checks the
# Python; its report is printed only when it fails. sqlfluff's dbt templater compiles the project in
# target/sqlfluff (its own parse state and an empty scratch database, never the warehouse or the
# build's target/). sqlfluff (~30 s of CPU, beside a CPU-bound pytest) is skipped when nothing it
# reads has changed since it last passed here: the models, the macros, its configuration, the dbt
# project and profile and the pinned versions (the digest of all of them is kept in target/, which
# `make clean` removes).
SQLFLUFF_PASSED := target/.sqlfluff-passed
SQLFLUFF_DBT := target/sqlfluff
lint: $(STAMP)
	@sqllog=$$(mktemp); \
	sqlkey=$$(find models macros .sqlfluff .sqlfluffignore dbt_project.yml profiles.yml requirements.lock \
		-type f ! -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum); \
	if [ "$$(cat $(SQLFLUFF_PASSED) 2>/dev/null)" = "$$sqlkey" ]; then true & sqlpid=$$!; else \
	mkdir -p $(SQLFLUFF_DBT); \
	{ RATER1001_WAREHOUSE=$(SQLFLUFF_DBT)/lint.duckdb DBT_TARGET_PATH=$(SQLFLUFF_DBT) DBT_LOG_PATH=$(SQLFLUFF_DBT) \
	$(BIN)/sqlfluff lint models --processes 2 --disable-progress-bar --nocolor > $$sqllog 2>&1 && \
	echo "$$sqlkey" > $(SQLFLUFF_PASSED); } & sqlpid=$$!; fi; \
	$(BIN)/ruff check --quiet --output-format concise; ruffrc=$$?; \
	$(BIN)/ruff format --check --quiet --output-format concise; formatrc=$$?; \
	wait $$sqlpid; sqlrc=$$?; \
	if [ $$sqlrc -ne 0 ]; then cat $$sqllog; fi; rm -f $$sqllog; \
	if [ $$formatrc -ne 0 ]; then echo "ruff format --check failed: 'ruff format' rewrites the files above"; fi; \
	test $$ruffrc -eq 0 -a $$formatrc -eq 0 -a $$sqlrc -eq 0

# Re-resolve the lock file after editing requirements.in.
lock: $(STAMP)
	$(BIN)/uv pip compile --quiet requirements.in -o requirements.lock --python-version 3.11

clean:
	rm -rf $(VENV) data warehouse target logs report
