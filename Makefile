# gintray: `make run` sets up and starts the table web app on the demo feed;
# `make test` sets up (with test extras) and runs the whole suite; `make test-fast` is the quick
# lane: all but the slow, browser and emulation tests, with fewer generated examples.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test test-fast test-fast-postgres test-fast-others test-pi install install-test system-test-deps lint clean

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
# tests/conftest.py). The tests on PostgreSQL (the hall's, the benchmarks') mostly wait on the
# database, so they run in a second pytest beside the others and both cores work; each lane's
# report is printed whole when it ends.
# Its temporary folders (each test's data folder, its SQLite files) are in memory when /dev/shm
# has a GiB free and runs programs (tests run stubs there): the lane's thousands of SQLite
# commits then wait on no disk flush (a quarter of the web tests' time on disk). `make test`
# keeps them on disk, where the flushes are real. Likewise the PostgreSQL lane's test databases
# commit without waiting for the server's disk (GINTRAY_LAZY_COMMITS, tests/hall_helpers.py).
FAST_MARKERS := not slow and not browser and not emulation
FAST_TMP := $(shell awk '$$2 == "/dev/shm" && $$4 !~ /noexec/ {ok = 1} END {exit !ok}' /proc/mounts \
	2>/dev/null && df -Pk /dev/shm | awk 'NR == 2 && $$4 > 1048576 {print "/dev/shm"}')
FAST_PYTEST := $(if $(FAST_TMP),TMPDIR=$(FAST_TMP) )GINTRAY_HYPOTHESIS=quick GINTRAY_LAZY_COMMITS=1 \
	$(BIN)/python -m pytest -q \
	-m "$(FAST_MARKERS)"
POSTGRES_TESTS := tests/test_hall_*.py tests/test_benchmarks_run.py
test-fast: $(VENV)/.installed-test
	$(BIN)/ruff check .
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-fast-postgres test-fast-others

test-fast-postgres:
	$(FAST_PYTEST) $(POSTGRES_TESTS)

test-fast-others:
	$(FAST_PYTEST) $(addprefix --ignore-glob=,$(POSTGRES_TESTS))

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
