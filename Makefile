# Two commands do all set-up: `make demo` and `make test`. Both create .venv from the lock file.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv lock clean

$(STAMP): requirements.lock requirements-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -r requirements-nodeps.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

# Simulate the embedded demo study, run the quality gate, build the warehouse.
demo: $(STAMP)
	$(BIN)/rater1001 demo

# One worker per core; tests sharing a built warehouse stay together (tests/python/conftest.py).
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadgroup

# Re-resolve the lock file after editing requirements.in.
lock: $(STAMP)
	$(BIN)/uv pip compile --quiet requirements.in -o requirements.lock --python-version 3.11

clean:
	rm -rf $(VENV) data warehouse target logs report
