"""Speed of the table web app's write path (SQLite, WAL, full sync), in one run side by side.

    .venv/bin/python benchmarks/bench_webui.py [--hands 60]

Plays hands through Flask's test client (knock card, proposal scored by the engine, two
confirmations) and prints the median time of each request early in a game and late in a long
one (the table's state is folded from its events), plus the cost of folding the whole history.
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

from webui import state as state_mod
from webui.store import Actor


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
    for player in ("A", "B"):
        started = time.perf_counter()
        r = tablet.post("confirm", {"game": game, "hand": number, "player": player,
                                    "revision": revision})
        assert r.status_code == 200
        timings["confirm"].append(time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=60)
    args = parser.parse_args()
    app = make_app(Path(tempfile.mkdtemp(prefix="gintray-bench-")))
    table = app.extensions["gintray.store"].create_table(
        "Long game", {"name": "Long game", "players": {"A": "Ann", "B": "Ben"},
                      "rules": {"preset": "tournament", "game_target": 100_000}, "camera": None},
        Actor("bench"))
    tablet = Tablet(app, table_id=table)
    early: dict[str, list[float]] = {"knock card": [], "proposal (engine scores it)": [],
                                     "confirm": []}
    late = {k: [] for k in early}
    for i in range(args.hands):
        play(tablet, early if i < 10 else late)
    store = app.extensions["gintray.store"]
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
