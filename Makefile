# gintray: `make run` sets up and starts the table web app on the demo feed;
# `make test` sets up (with test extras) and runs the whole suite; `make test-fast` is the quick
# lane: all but the slow, browser and emulation tests, with fewer generated examples.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test test-fast test-pi install install-test system-test-deps lint clean

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
	GINTRAY_HYPOTHESIS=full $(BIN)/python -m pytest

# Under 3 minutes on 2 cores: no test marked slow (long fuzz and inference runs), browser
# (Chromium) or emulation (qemu); Hypothesis's quick profile (a tenth of the examples,
# tests/conftest.py).
FAST_MARKERS := not slow and not browser and not emulation
test-fast: $(VENV)/.installed-test
	$(BIN)/ruff check .
	GINTRAY_HYPOTHESIS=quick $(BIN)/python -m pytest -q -m "$(FAST_MARKERS)"

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
