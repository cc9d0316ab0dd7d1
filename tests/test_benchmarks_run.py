"""The benchmarks run, so they cannot rot (issue 27 item 8): every script in benchmarks/ answers
``--help``; the two hall benchmarks run end to end on a real PostgreSQL with a tiny setting
(seconds, not minutes), and the load benchmark's table plays across a game's end (both players
sign, then the next game starts: it used to call ``next_game`` before signing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hall_helpers
import pytest
from script_helpers import load_module

from webui.store import Store

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted((ROOT / "benchmarks").glob("bench_*.py"))
pg_server = hall_helpers.pg_server


def run(script: Path, *args: str, timeout: float = 120) -> str:
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, f"{script.name} {' '.join(args)}:\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_there_are_benchmarks():
    names = {p.name for p in BENCHMARKS}
    assert {"bench_hall.py", "bench_hall_bundle.py"} <= names


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_every_benchmark_answers_help(script):
    out = run(script, "--help", timeout=60)
    assert "usage:" in out


def test_the_load_benchmark_runs_tiny(pg_server):
    out = run(ROOT / "benchmarks" / "bench_hall.py", "--tables", "2", "--seconds", "1",
              "--baseline-seconds", "1", "--procs", "1")
    assert "SQLite, 1 table (baseline)" in out
    assert "PostgreSQL, 2 tables" in out
    assert "sync of the baseline table to PostgreSQL" in out


def test_the_director_page_benchmark_runs_tiny(pg_server):
    out = run(ROOT / "benchmarks" / "bench_hall.py", "--director-page", "3")
    assert "setup: 3 tables x 6 hands in 1 round(s)" in out
    for page in ("/ ", "/live", "/board"):
        assert f"\n{page}" in out


def test_the_bundle_benchmark_runs_tiny(pg_server):
    out = run(ROOT / "benchmarks" / "bench_hall_bundle.py", "--tables", "2", "--games", "1")
    assert "bundle: 2 signed games" in out


def test_the_load_benchmarks_table_signs_each_game_before_the_next(tmp_path):
    """Played by hand count, not by the clock: hands until the third game is under way, so
    two games ended, were signed by both players and the next one started."""
    bench = load_module(ROOT / "benchmarks" / "bench_hall.py", "bench_hall")
    store = Store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    table = bench.new_table(store, "Table 1")
    lat: dict[str, list[float]] = {"confirm": [], "other": []}
    hands = 0
    while store.state(table).game.number < 3:
        bench.play_hand(store, table, lat, hands)
        hands += 1
        assert hands < 500, "the games never end"
    state = store.state(table)
    for number in (1, 2):
        assert set(state.game_by_number(number).signatures) == {"A", "B"}
    assert len(lat["confirm"]) == 2 * hands
    store.engine.dispose()
