"""Tournament-hall load benchmark: hands confirmed per second and p95 latency with many tables
on one PostgreSQL event database, the single-table SQLite baseline beside it, in one run.

Run:  .venv/bin/python benchmarks/bench_hall.py                 (50 tables, 20 s, 2 processes)
      .venv/bin/python benchmarks/bench_hall.py --tables 50 --seconds 20 --procs 2
      .venv/bin/python benchmarks/bench_hall.py --director-page 384   (the director's page)

PostgreSQL comes from .ci/postgres (a throwaway local cluster; a fresh database per run).
Each simulated table is a table app of its own (its own ``Store``, engine and connections),
run as a thread; tables are spread over ``--procs`` worker processes. Every table plays hands
back to back through the table app's commands (knock card, proposal scored by the engine,
player A confirms, player B confirms; each command commits before it returns) until the time
is up: a closed loop with no think time, i.e. far more load than real players make. A hand
counts when B's confirmation has committed. Latency is per command (one tablet tap: check
against the state, append, commit), reported for all commands and for confirmations alone.

``--director-page N`` times the director's page instead: N tables of 6 hands each on the
event database (one played, the rest copied in SQL), seated as rounds of
128 tables ("Round r Table k", the last round on the clock), then the median of 10 requests
of the page (``/``), its 3-second refresh (``/live``) and the board, each after one request
that folds the tables (the first, cold one is printed beside).

The baseline is one table on the table app's default SQLite (WAL, synchronous=FULL) on this
disk, played the same way, measured first in the same run. Then it times ``gintray sync``'s
upload of every SQLite-recorded hand of a table to PostgreSQL (events per second).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer import parse_card  # noqa: E402
from webui.common.proposal_form import parse_proposal  # noqa: E402
from webui.store import Actor, Store, commands  # noqa: E402

A, B = Actor("device:a", 1), Actor("device:b", 2)
# A signature as a tablet sends it (a 1x1 PNG): a finished game must be signed by both players
# before the next one starts.
SIGNATURE = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVQI"
             "HWMAAQAABQABim28IAAAAABJRU5ErkJggg==")
KNOCK = {"A": ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "7D", "7S", "2D"],
         "B": ["KC", "QC", "JC", "9H", "9D", "9S", "2H", "3D", "5C", "6S"]}


def timed(store: Store, table: int, command: Any, actor: Actor, out: list[float],
          request_id: str | None = None) -> None:
    t0 = time.perf_counter()
    store.execute(table, command, actor, request_id=request_id)
    out.append(time.perf_counter() - t0)


def play_hand(store: Store, table: int, lat: dict[str, list[float]], n: int) -> None:
    """One hand from the knock card to both confirmations; winners alternate."""
    state = store.state(table)
    hand = state.current_hand()
    if hand is None:
        if state.match_json()["decided"]:  # the match is over: a new match (new table row)
            raise StopIteration
        over = state.game
        for player, actor in (("A", A), ("B", B)):  # both sign the game, then the next one
            if player not in over.signatures:
                timed(store, table, commands.sign(over.number, player, SIGNATURE), actor,
                      lat["other"])
        timed(store, table, commands.next_game(), Actor("director"), lat["other"])
        hand = store.state(table).current_hand()
    g, h = hand.game, hand.number
    winner = "AB"[n % 2]
    cards = {winner: KNOCK["A"], ("B" if winner == "A" else "A"): KNOCK["B"]}
    timed(store, table, commands.set_knock_card(g, h, parse_card("TC")), A, lat["other"])
    proposal = parse_proposal({"kind": "score", "knocker": winner, "cards": cards})
    timed(store, table, commands.propose(g, h, proposal), A, lat["other"])
    for player, actor in (("A", A), ("B", B)):
        rev = store.state(table).hand(g, h).revision
        timed(store, table, commands.confirm(g, h, player, rev), actor, lat["confirm"],
              request_id=uuid.uuid4().hex)


def new_table(store: Store, name: str) -> int:
    return store.create_table(name, {"name": name, "players": {"A": "Ann", "B": "Bob"},
                                     "rules": "tournament", "camera": None}, Actor("director"))


def run_table(url: str, name: str, deadline: float, result: dict[str, Any]) -> None:
    store = Store(url)
    table = new_table(store, name)
    lat: dict[str, list[float]] = {"confirm": [], "other": []}
    hands = 0
    while time.perf_counter() < deadline:
        try:
            play_hand(store, table, lat, hands)
        except StopIteration:
            table = new_table(store, name)
            continue
        hands += 1
    store.engine.dispose()
    result.update(hands=hands, lat=lat)


def worker(url: str, names: list[str], go: Any, seconds: float, queue: Any) -> None:
    """One process: its tables as threads, all starting when ``go`` is set."""
    results: list[dict[str, Any]] = [{} for _ in names]
    queue.put("ready")
    go.wait()
    deadline = time.perf_counter() + seconds
    threads = [threading.Thread(target=run_table, args=(url, n, deadline, r))
               for n, r in zip(names, results, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(results)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) >= 20 else max(values)


def summary(label: str, results: list[dict[str, Any]], wall: float) -> dict[str, Any]:
    hands = sum(r["hands"] for r in results)
    confirm = [x for r in results for x in r["lat"]["confirm"]]
    every = confirm + [x for r in results for x in r["lat"]["other"]]
    return {"setup": label, "tables": len(results), "hands": hands, "seconds": wall,
            "hands_per_s": hands / wall, "p50_ms": statistics.median(every) * 1e3,
            "p95_ms": p95(every) * 1e3, "confirm_p95_ms": p95(confirm) * 1e3}


def baseline(seconds: float, folder: Path) -> tuple[dict[str, Any], str]:
    url = f"sqlite:///{folder / 'table.sqlite3'}"
    result: dict[str, Any] = {}
    t0 = time.perf_counter()
    run_table(url, "SQLite table", t0 + seconds, result)
    return summary("SQLite, 1 table (baseline)", [result], time.perf_counter() - t0), url


def pg_server() -> str:
    return subprocess.run(["bash", str(ROOT / ".ci" / "postgres")], check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]


def pg_admin(server: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql)


ROUND_TABLES = 128


def director_page(tables: int, requests: int = 10) -> int:
    """Time the director's page, its refresh and the board with ``tables`` tables."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_hall_bundle import clone_tables
    from hall_helpers import director_client, new_table, play_hand

    from webui.hall import clock, create_hall_app, roster
    from webui.hall.schema import HallTableSeating

    server = pg_server()
    db_name = f"bench_page_{uuid.uuid4().hex[:8]}"
    pg_admin(server, f'CREATE DATABASE "{db_name}"')
    url = f"{server.rsplit('/', 1)[0]}/{db_name}"
    data_dir = tempfile.mkdtemp(prefix="bench-page-")
    try:
        app = create_hall_app({"DATABASE_URL": url, "DATA_DIR": data_dir})
        store = app.extensions["gintray"].store
        t0 = time.perf_counter()
        first = new_table(store, "Round 1 Table 1", "Player 1", "Player 2")
        for winner in "ABABAB":
            play_hand(store, first, winner)
        clone_tables(url, first, tables - 1)
        rounds = (tables + ROUND_TABLES - 1) // ROUND_TABLES
        with store.Session() as s:
            for i, table in enumerate(sorted(t.id for t in store.tables())):
                number, k = i // ROUND_TABLES + 1, i % ROUND_TABLES + 1
                a, b = (roster.player_id(store, f"Player {2 * k + n}") for n in (0, 1))
                s.add(HallTableSeating(
                    token=uuid.uuid4().hex, round=number, table=k, station=None,
                    rules="tournament", table_id=table, status="seated",
                    players={"A": {"id": a, "name": f"Player {2 * k}"},
                             "B": {"id": b, "name": f"Player {2 * k + 1}"}}))
            s.commit()
        clock.start_round(store, rounds, 60, "bench")
        client = director_client(app)
        print(f"setup: {tables} tables x 6 hands in {rounds} round(s) in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        print(f"{'page':10} {'tables':>6} {'median s':>9} {'cold s':>7}")
        for path in ("/", "/live", "/board"):
            times = []
            for _ in range(requests + 1):
                t0 = time.perf_counter()
                assert client.get(path).status_code == 200, path
                times.append(time.perf_counter() - t0)
            print(f"{path:10} {tables:6d} {statistics.median(times[1:]):9.3f} "
                  f"{times[0]:7.3f}", flush=True)
        store.engine.dispose()
    finally:
        pg_admin(server, f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--baseline-seconds", type=float, default=10.0)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--director-page", type=int, metavar="TABLES",
                        help="time the director's page with TABLES tables instead")
    args = parser.parse_args(argv)
    if args.director_page:
        return director_page(args.director_page)

    from webui.hall.sync import open_store, sync_once

    folder = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    base, sqlite_url = baseline(args.baseline_seconds, folder)

    server = pg_server()
    db_name = f"bench_{uuid.uuid4().hex[:10]}"
    pg_admin(server, f'CREATE DATABASE "{db_name}"')
    url = open_store(f"{server.rsplit('/', 1)[0]}/{db_name}").engine.url.render_as_string(
        hide_password=False)
    names = [f"Table {i + 1}" for i in range(args.tables)]
    chunks = [names[i::args.procs] for i in range(args.procs)]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    go = ctx.Event()
    procs = [ctx.Process(target=worker, args=(url, c, go, args.seconds, queue))
             for c in chunks if c]
    for p in procs:
        p.start()
    for _ in procs:
        assert queue.get() == "ready"
    go.set()  # every process has imported everything: start all tables at once
    results = [r for _ in procs for r in queue.get()]
    for p in procs:
        p.join()
    pg = summary(f"PostgreSQL, {args.tables} tables", results, args.seconds)

    local = Store(sqlite_url)
    central = open_store(url)
    events = local.last_seq(local.tables()[0].id)
    t0 = time.perf_counter()
    report = sync_once(local, central)
    sync_s = time.perf_counter() - t0
    central.engine.dispose()
    local.engine.dispose()
    pg_admin(server, f'DROP DATABASE "{db_name}" WITH (FORCE)')
    shutil.rmtree(folder, ignore_errors=True)

    print(f"{'setup':32} {'tables':>6} {'hands':>6} {'hands/s':>8} {'p50 ms':>7} "
          f"{'p95 ms':>7} {'confirm p95 ms':>15}")
    for row in (base, pg):
        print(f"{row['setup']:32} {row['tables']:6d} {row['hands']:6d} {row['hands_per_s']:8.1f} "
              f"{row['p50_ms']:7.1f} {row['p95_ms']:7.1f} {row['confirm_p95_ms']:15.1f}")
    print(f"ratio PostgreSQL/SQLite hands per second: {pg['hands_per_s'] / base['hands_per_s']:.2f}"
          f"; per-table rate: {pg['hands_per_s'] / args.tables:.2f} vs "
          f"{base['hands_per_s']:.2f} hands/s")
    print(f"sync of the baseline table to PostgreSQL: {report.uploaded} of {events} events in "
          f"{sync_s:.2f} s ({report.uploaded / sync_s:.0f} events/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
