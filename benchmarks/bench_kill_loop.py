"""Kill loop: `kill -9` the table app again and again while hands are confirmed over HTTP.

    .venv/bin/python benchmarks/bench_kill_loop.py [--cycles 200] [--seed 1]

Not a test and not in CI (it takes minutes). It reuses the kill test's machinery
(``tests/test_webui_kill.py``: the real ``gintray serve`` in a subprocess, and a tablet client
that retries a dropped request with the same ``request_id``): each player's own tablet joins,
then hands are played (knock card, a result entered by hand, both confirmations) while a second
thread SIGKILLs the server at a random moment and starts it again, ``--cycles`` times. At the
end every hand whose both confirmations were answered 200 must be on the sheet exactly once,
with its points, and nothing else may be; it prints the counts and exits 1 if any was lost or
doubled.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_webui_kill import Client, Server, free_port
from webui_helpers import make_app, pin_of

from webui.store import Actor
from webui.store.engine import PLAYERS

TARGET = 10**6  # the game never ends during the loop


@dataclass
class Tally:
    """What the loop did and what the table holds afterwards."""

    cycles: int
    hands_confirmed: int
    hands_on_sheet: int
    lost: int
    doubled: int
    wrong_points: int
    seconds: float


def points_of(hand: int) -> int:
    return hand % 9 + 1


def make_table(data_dir: Path) -> tuple[int, str]:
    """A table (Ann v Ben, a game that does not end) in a fresh data dir: its id and PIN."""
    app = make_app(data_dir)
    store = app.extensions["gintray"].store
    table_id = store.create_table("Kill loop", {
        "name": "Kill loop", "players": {"A": "Ann", "B": "Ben"},
        "rules": {"preset": "tournament", "game_target": TARGET}, "camera": None},
        Actor("bench"))
    pin = pin_of(app, table_id)
    store.engine.dispose()
    return table_id, pin


def run(cycles: int, seed: int, data_dir: Path) -> Tally:
    table_id, pin = make_table(data_dir)
    port = free_port()
    server = Server(data_dir, port)
    server.start()
    base = f"http://127.0.0.1:{port}"
    tablets: dict[str, Client] = {}
    for seat in PLAYERS:
        tablets[seat] = tablet = Client(base)
        tablet.csrf_from(f"/t/{table_id}/join")
        status, _ = tablet.call("POST", f"/t/{table_id}/join", form={
            "csrf_token": tablet.token, "pin": pin, "seat": seat, "label": f"kill-loop {seat}"})
        assert status in (200, 302), status
        tablet.csrf_from(f"/t/{table_id}")
    rng = random.Random(seed)
    stop = threading.Event()

    def killer() -> None:
        while not stop.is_set() and server.kills < cycles:
            server.wait_ready()
            time.sleep(rng.uniform(0.0, 0.25))  # a random moment of the tablets' requests
            if stop.is_set():
                break
            server.kill()
            server.start()

    def state() -> dict:
        status, text = tablets["A"].call("GET", f"/api/t/{table_id}/state")
        assert status == 200, (status, text)
        return json.loads(text)

    api = f"/api/t/{table_id}"
    started = time.monotonic()
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    confirmed = 0
    try:
        while server.kills < cycles:
            i = confirmed + 1
            ann = tablets["A"]
            ann.post(f"{api}/knock-card", {"game": 1, "hand": i, "card": "9H",
                                           "request_id": f"knock-{i}"})
            ann.post(f"{api}/proposal", {"game": 1, "hand": i, "kind": "manual",
                                         "winner": "A" if i % 2 else "B",
                                         "points": points_of(i), "request_id": f"result-{i}"})
            revision = state()["current_hand"]["revision"]
            for seat in PLAYERS:
                tablets[seat].post(f"{api}/confirm", {
                    "game": 1, "hand": i, "player": seat, "revision": revision,
                    "request_id": f"confirm-{i}-{seat}"})
            confirmed = i
    finally:
        stop.set()
        thread.join()
    try:
        final = state()
    finally:
        server.stop()
    seconds = time.monotonic() - started
    on_sheet = [h for h in final["games"][0]["hands"] if h["confirmed"]]
    numbers = [h["number"] for h in on_sheet]
    lost = len(set(range(1, confirmed + 1)) - set(numbers))
    doubled = len(numbers) - len(set(numbers)) + len(set(numbers) - set(range(1, confirmed + 1)))
    wrong = sum(1 for h in on_sheet
                if h["proposal"]["result"]["points"] != points_of(h["number"]))
    return Tally(cycles=server.kills, hands_confirmed=confirmed, hands_on_sheet=len(on_sheet),
                 lost=lost, doubled=doubled, wrong_points=wrong, seconds=seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=200, help="kill -9 cycles (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gintray-kill-loop-") as tmp:
        tally = run(args.cycles, args.seed, Path(tmp))
    print(f"kill -9 cycles: {tally.cycles}")
    print(f"hands confirmed (both confirmations answered 200): {tally.hands_confirmed}")
    print(f"hands on the sheet: {tally.hands_on_sheet}")
    print(f"lost: {tally.lost}  doubled: {tally.doubled}  wrong points: {tally.wrong_points}")
    print(f"time: {tally.seconds:.0f} s")
    return 0 if tally.lost == tally.doubled == tally.wrong_points == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
