"""Kill test: the server is SIGKILLed at random moments while hands are confirmed.

A client plays hands through the real server (waitress, SQLite WAL) and retries each request
with the same request id whenever the connection drops. Afterwards every confirmed hand is
there exactly once, in order, with its points.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from webui_helpers import make_app, pin_of

ROOT = Path(__file__).resolve().parents[1]
HANDS = 12
MIN_KILLS = 3
# Requests are quick and the server lives at most 0.2 s between kills, so a fast client can
# finish a fixed number of hands between two kills: it plays on until the server was killed
# MIN_KILLS times. Each hand is worth 1-7 points, so even MAX_HANDS hands stay far below the
# 250-point game and every hand lands in game 1.
MAX_HANDS = 60
MAX_KILLS = 6  # each restart costs a second or two: enough kills to hit every kind of request


def points_of(hand: int) -> int:
    """The points the test scores for hand `hand` (small, so the game never ends)."""
    return 1 + hand % 7


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The real `gintray serve` in a subprocess, killable and restartable."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.cmd = [sys.executable, "-m", "gintray_cli", "serve", "--no-camera",
                    "--port", str(port), "--data-dir", str(data_dir)]
        self.port = port
        self.proc: subprocess.Popen | None = None
        self.kills = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.kills += 1

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class Client:
    """A tablet over HTTP that retries a request (same id) until the server answers."""

    def __init__(self, base: str) -> None:
        self.base = base
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.token = ""

    def call(self, method: str, path: str, body: dict | None = None,
             form: dict | None = None) -> tuple[int, str]:
        deadline = time.monotonic() + 60
        while True:
            data, headers = None, {"X-CSRFToken": self.token, "Accept": "application/json"}
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            elif form is not None:
                data = urllib.parse.urlencode(form).encode()
            request = urllib.request.Request(self.base + path, data=data, method=method,
                                             headers=headers)
            try:
                with self.opener.open(request, timeout=10) as resp:
                    return resp.status, resp.read().decode()
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read().decode()
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                    TimeoutError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)  # server down: retry the very same request

    def csrf_from(self, path: str) -> None:
        _status, html = self.call("GET", path)
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)

    def state(self) -> dict:
        status, text = self.call("GET", "/api/t/1/state")
        assert status == 200
        return json.loads(text)

    def post(self, path: str, body: dict) -> dict:
        status, text = self.call("POST", path, body=body)
        assert status == 200, (path, body, status, text)
        return json.loads(text)


@pytest.mark.slow
def test_no_confirmed_hand_is_lost_or_doubled_when_the_server_is_killed(tmp_path):
    app = make_app(tmp_path)  # creates the table (and signing key) in the data dir
    pin = pin_of(app)
    app.extensions["gintray"].store.engine.dispose()
    port = free_port()
    server = Server(tmp_path, port)
    server.start()
    tablets = {}
    for seat in ("A", "B"):  # each player's own tablet (a tablet confirms for its player)
        tablets[seat] = Client(f"http://127.0.0.1:{port}")
        tablets[seat].csrf_from("/t/1/join")
        status, _ = tablets[seat].call("POST", "/t/1/join", form={
            "csrf_token": tablets[seat].token, "pin": pin, "seat": seat,
            "label": f"kill-test {seat}"})
        assert status in (200, 302)
        tablets[seat].csrf_from("/t/1")
    client = tablets["A"]

    stop = threading.Event()
    rng = random.Random(20261122)

    def killer() -> None:
        while not stop.is_set() and server.kills < MAX_KILLS:
            server.wait_ready()
            time.sleep(rng.uniform(0.0, 0.2))  # a random moment of the client's requests
            if stop.is_set():
                break
            server.kill()
            server.start()

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        played = 0
        while played < HANDS or (server.kills < MIN_KILLS and played < MAX_HANDS):
            played += 1
            i = played
            winner = "A" if i % 2 else "B"
            client.post("/api/t/1/knock-card", {"game": 1, "hand": i, "card": "9H",
                                                "request_id": f"knock-{i}"})
            client.post("/api/t/1/proposal", {"game": 1, "hand": i, "kind": "manual",
                                              "winner": winner, "points": points_of(i),
                                              "request_id": f"result-{i}"})
            revision = client.state()["current_hand"]["revision"]
            for player in ("A", "B"):
                tablets[player].post("/api/t/1/confirm", {"game": 1, "hand": i, "player": player,
                                                 "revision": revision,
                                                 "request_id": f"confirm-{i}-{player}"})
    finally:
        stop.set()
        thread.join()
    try:
        state = client.state()
    finally:
        server.stop()
    assert server.kills >= MIN_KILLS, f"the server was killed only {server.kills} times"
    print(f"server killed {server.kills} times during {played} hands")
    hands = state["games"][0]["hands"]
    confirmed = [h for h in hands if h["confirmed"]]
    assert [h["number"] for h in confirmed] == list(range(1, played + 1))
    expected_points = [points_of(i) for i in range(1, played + 1)]
    assert [h["proposal"]["result"]["points"] for h in confirmed] == expected_points
    sheet = state["games"][0]["sheet"]["hands"]
    assert [row["points"] for row in sheet] == expected_points
    assert state["current_hand"]["number"] == played + 1
