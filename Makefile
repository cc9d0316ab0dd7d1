# gintray: `make run` sets up and starts the table web app on the demo feed;
# `make test` sets up (with test extras) and runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test install install-test system-test-deps lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test system-test-deps

# Debian packages the browser and database tests use (skipped when already present).
system-test-deps:
	@bash .ci/system-deps

run: install
	$(BIN)/gintray serve --demo --create --host $(HOST) --port $(PORT)

test: install-test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: install-test
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
