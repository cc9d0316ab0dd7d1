"""Tournament-hall bundle benchmark: time and size of ``/bundle.zip`` (every signed game of
the event: signed PDF + JSON per game) with many signed games on a PostgreSQL event database.

Run:  .venv/bin/python benchmarks/bench_hall_bundle.py                 (18 tables x 12 games)
      .venv/bin/python benchmarks/bench_hall_bundle.py --tables 18 --games 12

PostgreSQL comes from .ci/postgres (a throwaway local cluster; a fresh database per run,
dropped afterwards). One table plays ``--games`` signed games through the table app's
commands (rules: tournament with a long match, so one table signs many games; A wins every
hand by 14, 18 hands a game, both players sign each game); its rows are then copied in SQL to
``--tables`` tables in all, so the event holds tables x games signed games, each table with
the same long history. The bundle is built as the hall's ``/bundle.zip`` builds it (in the
hall app's context) and timed; reported: seconds, the zip's size, its unzipped size, and the
largest game JSON.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hall_helpers import PLAYER_A, PNG_DATA_URL, new_table, play_hand  # noqa: E402

from webui.store import Store, commands  # noqa: E402

LONG_MATCH = {"preset": "tournament", "match_games": 99}


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def play_signed_games(store: Store, games: int) -> int:
    """A table with ``games`` finished games, each signed by both players."""
    table = new_table(store, "Bench 1", "Ann", "Bob", rules=LONG_MATCH)
    signed = 0
    while signed < games:
        game, _hand = play_hand(store, table, "A")
        if store.state(table).game_by_number(game).ended:
            for p in "AB":
                store.execute(table, commands.sign(game, p, PNG_DATA_URL), PLAYER_A)
            signed += 1
    return table


def clone_tables(url: str, table: int, copies: int) -> None:
    """``copies`` more tables with the same events as ``table`` (copied in SQL)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for i in range(copies):
            (new_id,) = conn.execute(
                "INSERT INTO tables (name, pin, created_at) SELECT %s, pin, created_at "
                "FROM tables WHERE id = %s RETURNING id", (f"Bench {i + 2}", table)).fetchone()
            conn.execute(
                "INSERT INTO events (table_id, seq, kind, payload, actor, device_id, "
                "request_id, created_at) SELECT %s, seq, kind, payload, actor, device_id, "
                "request_id || '-' || %s, created_at FROM events WHERE table_id = %s",
                (new_id, str(new_id), table))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=18)
    parser.add_argument("--games", type=int, default=12, help="signed games per table")
    args = parser.parse_args()
    proc = subprocess.run(["bash", str(ROOT / ".ci" / "postgres")], capture_output=True,
                          text=True, check=True)
    server = proc.stdout.strip().splitlines()[-1]
    name = f"bench_bundle_{uuid.uuid4().hex[:8]}"
    admin(server, f'CREATE DATABASE "{name}"')
    url = f"{server.rsplit('/', 1)[0]}/{name}"
    data_dir = tempfile.mkdtemp(prefix="bench-bundle-")
    try:
        from webui.hall import create_hall_app
        from webui.hall.bundle import build_bundle

        app = create_hall_app({"DATABASE_URL": url, "DATA_DIR": data_dir})
        store = app.extensions["gintray"].store
        t0 = time.perf_counter()
        table = play_signed_games(store, args.games)
        clone_tables(url, table, args.tables - 1)
        events = store.last_seq(table)
        print(f"setup: {args.tables} tables x {args.games} signed games, {events} events a "
              f"table, in {time.perf_counter() - t0:.1f} s", flush=True)
        with app.app_context():
            t0 = time.perf_counter()
            data = build_bundle(store, app.extensions["gintray"].identity, {})
            seconds = time.perf_counter() - t0
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
        unzipped = sum(i.file_size for i in infos)
        largest = max(i.file_size for i in infos if i.filename.endswith(".json")
                      and i.filename != "manifest.json")
        games = sum(1 for i in infos if i.filename.endswith(".pdf"))
        print(f"bundle: {games} signed games in {seconds:.1f} s ({seconds / games * 1000:.0f} "
              f"ms a game); zip {len(data) / 1e6:.1f} MB, unzipped {unzipped / 1e6:.1f} MB, "
              f"largest game JSON {largest / 1e3:.0f} kB", flush=True)
    finally:
        admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
