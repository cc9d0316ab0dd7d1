"""Speed of the table web app's write path (SQLite, WAL, full sync), in one run side by side.

    .venv/bin/python benchmarks/bench_webui.py [--hands 60]
    .venv/bin/python benchmarks/bench_webui.py --start 995   # start time of a long table

Plays hands through Flask's test client (knock card, proposal scored by the engine, two
confirmations) and prints the median time of each request early in a game and late in a long
one (the table's state is folded from its events), plus the cost of folding the whole history.
With ``--start N`` it records N confirmed hands of one long game directly in the store, then
times what a restarted server does first: folding the table's state from all its events
(figures in webui/README.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from webui_helpers import KNOCK_B, KNOCK_MELDS_A, Tablet, make_app

from scorer import parse_card
from webui.store import Actor
from webui.store import state as state_mod
from webui.store.engine import PLAYERS


def play(tablet: Tablet, timings: dict[str, list[float]]) -> None:
    hand = tablet.hand()
    game, number = hand["game"], hand["number"]
    steps = [
        ("knock card", "knock-card", {"game": game, "hand": number, "card": "9H"}),
        ("proposal (engine scores it)", "proposal", {
            "game": game, "hand": number, "kind": "score", "knocker": "A",
            "cards": {"A": "5S", "B": " ".join(KNOCK_B)}, "melds": {"A": KNOCK_MELDS_A}}),
    ]
    for name, path, body in steps:
        started = time.perf_counter()
        assert tablet.post(path, body).status_code == 200
        timings[name].append(time.perf_counter() - started)
    revision = tablet.hand()["revision"]
    for player in PLAYERS:
        started = time.perf_counter()
        r = tablet.post("confirm", {"game": game, "hand": number, "player": player,
                                    "revision": revision})
        assert r.status_code == 200
        timings["confirm"].append(time.perf_counter() - started)


def start_time(hands: int) -> None:
    """Record ``hands`` confirmed hands of one long game, then time a cold fold (restart)."""
    from webui.store import Store, commands

    app = make_app(Path(tempfile.mkdtemp(prefix="gintray-bench-")))
    store = app.extensions["gintray"].store
    table = store.create_table(
        "Long table", {"name": "Long table", "players": {"A": "Ann", "B": "Ben"},
                       "rules": {"preset": "tournament", "game_target": 100_000},
                       "camera": None}, Actor("bench"))
    actor = Actor("bench")
    for i in range(hands):
        hand = store.state(table).current_hand()
        assert hand is not None
        game, number = hand.game, hand.number
        store.execute(table, commands.set_knock_card(game, number, parse_card("9H")), actor)
        store.execute(table, commands.propose(game, number, {
            "kind": "manual", "result": {"winner": "AB"[i % 2], "points": 10 + i % 7,
                                         "outcome": "manual", "note": ""}}), actor)
        revision = store.state(table).current_hand().revision
        for player in PLAYERS:
            store.execute(table, commands.confirm(game, number, player, revision), actor)
    events = store.events(table)
    timings = []
    for _ in range(3):
        fresh = Store(app.config["DATABASE_URL"])  # what a restarted server does first
        started = time.perf_counter()
        folded = fresh.state(table)
        timings.append(time.perf_counter() - started)
        fresh.engine.dispose()
    assert len(folded.games[0].confirmed_hands) == hands
    print(f"start (cold fold) of a table with {hands} confirmed hands, {len(events)} events: "
          f"median of 3 {statistics.median(timings) * 1e3:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--start", type=int, default=0, metavar="N",
                        help="time a restart's fold of a table with N confirmed hands")
    args = parser.parse_args()
    if args.start:
        start_time(args.start)
        return 0
    app = make_app(Path(tempfile.mkdtemp(prefix="gintray-bench-")))
    table = app.extensions["gintray"].store.create_table(
        "Long game", {"name": "Long game", "players": {"A": "Ann", "B": "Ben"},
                      "rules": {"preset": "tournament", "game_target": 100_000}, "camera": None},
        Actor("bench"))
    tablet = Tablet(app, table_id=table)
    early: dict[str, list[float]] = {"knock card": [], "proposal (engine scores it)": [],
                                     "confirm": []}
    late = {k: [] for k in early}
    for i in range(args.hands):
        play(tablet, early if i < 10 else late)
    store = app.extensions["gintray"].store
    events = store.events(table)
    fold = []
    for _ in range(5):
        started = time.perf_counter()
        state_mod.fold(table, events)
        fold.append(time.perf_counter() - started)
    print(f"{'request':32} {'hands 1-10 (ms)':>16} {f'hands 11-{args.hands} (ms)':>18}")
    for name in early:
        print(f"{name:32} {statistics.median(early[name]) * 1e3:16.1f} "
              f"{statistics.median(late[name]) * 1e3:18.1f}")
    print(f"fold of all {len(events)} events: {statistics.median(fold) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
