# gintray: `make run` sets up and starts the table web app on the demo feed;
# `make test` sets up (with test extras) and runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test test-pi install install-test system-test-deps lint clean

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

# The Pi kit end to end: hardware/pi/setup.sh in an emulated ARM64 Debian root, twice, to the
# table page (tests/test_pi_install_emulated.py; needs root; not in `make test`: it takes
# tens of minutes on 2 cores, figures in hardware/README.md). The bare root is cached in
# .cache/emulation/pi-root.tar by .ci/pi-root.
test-pi: install-test
	GINTRAY_TEST_PI=1 $(BIN)/python -m pytest -s -p no:cacheprovider tests/test_pi_install_emulated.py

lint: install-test
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
