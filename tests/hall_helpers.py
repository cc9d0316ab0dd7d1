"""Shared fixtures of the tournament-hall tests: a real PostgreSQL server (started by
.ci/postgres), a fresh database per test, and hands played through the table app's commands.

Each test's database is a copy of one template made once a session (``SessionDatabases``: the
table app's and the hall's tables, no rows), so a test costs a file copy instead of creating
every table again. The server's slow work is done by a worker thread while the tests run: it
copies the next test's database ahead and drops each test's database afterwards
(``DROP DATABASE`` waits for a checkpoint and for the test's leftover connections to end).
Nothing a test asserts depends on it; the session waits for every drop at its end.

In the fast lane (``GINTRAY_LAZY_COMMITS=1``, set by ``make test-fast``) each copy commits
without waiting for its log to reach the disk (``synchronous_commit = off``): what a test
reads back is the same (a commit is seen by every connection at once), only a crash of the
server could lose the last commits, and no test crashes it. Half the PostgreSQL lane's time
was those waits. ``make test`` keeps them, as the lane's SQLite files on disk keep theirs."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import socket
import subprocess
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from scorer import parse_card
from webui.common.proposal_form import parse_proposal
from webui.store import Actor, Store, commands

ROOT = Path(__file__).resolve().parent.parent
#: commits that do not wait for the disk (fast lane only: see the module docstring)
LAZY_COMMITS = os.environ.get("GINTRAY_LAZY_COMMITS") == "1"
PLAYER_A, PLAYER_B = Actor("device:a", 1), Actor("device:b", 2)

# A knocks with 2 (2D) against B's 16 (2H 3D 5C 6S): A wins 14 under the knock card TC.
KNOCKER_CARDS = ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "7D", "7S", "2D"]
DEFENDER_CARDS = ["KC", "QC", "JC", "9H", "9D", "9S", "2H", "3D", "5C", "6S"]
# A gin (AS-4S, 4H-6H, 7s) against 72 loose points: 97 with the gin bonus.
GIN_CARDS = ["AS", "2S", "3S", "4S", "4H", "5H", "6H", "7C", "7D", "7S"]
LOOSE_CARDS = ["KC", "QD", "JH", "9C", "9D", "2C", "3D", "5C", "6D", "8H"]


def start_postgres() -> str:
    """The URL of the test cluster (.ci/postgres installs and starts it when needed); skips
    only when PostgreSQL cannot be installed here, with the reason."""
    proc = subprocess.run(["bash", str(ROOT / ".ci" / "postgres")], capture_output=True,
                          text=True, timeout=600)
    if proc.returncode == 3:
        pytest.skip(f"PostgreSQL cannot be installed here: {proc.stderr.strip()}")
    if proc.returncode != 0:
        raise RuntimeError(f".ci/postgres failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    url = start_postgres()
    yield url
    session_databases(url).close()  # at the session's end: every test is done


PASSWORD = "director-pass-1"
PNG_DATA_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVQI"
                "HWMAAQAABQABim28IAAAAABJRU5ErkJggg==")


def csrf_of(page: str) -> str:
    """The security token of a hall page."""
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found, "no security token on the page"
    return found.group(1)


def director_client(app: Any) -> Any:
    """A test client of the hall app with the director password set and logged in (its
    security token as ``client.csrf``)."""
    client = app.test_client()
    csrf = csrf_of(client.get("/setup", follow_redirects=True).get_data(as_text=True))
    r = client.post("/setup", data={"password": PASSWORD, "again": PASSWORD,
                                    "csrf_token": csrf})
    assert r.status_code == 302, r.status_code
    client.csrf = csrf
    return client


def director_client_again(app: Any) -> Any:
    """A logged-in director's test client of a hall whose password is set already."""
    client = app.test_client()
    csrf = csrf_of(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"password": PASSWORD, "csrf_token": csrf})
    assert r.status_code == 302, r.status_code
    client.csrf = csrf
    return client


def _admin(server_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql)


def _database_url(server_url: str, name: str) -> str:
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


class SessionDatabases:
    """This session's databases on the test server: one template (made when first needed) and
    copies of it. One worker thread does the server's slow work off the tests' path, in order:
    it copies the next test's databases while a test runs (``SPARES`` of them ready: a test
    may take two) and drops each database handed back. ``close`` drops the rest and waits
    until every database is gone."""

    SPARES = 2

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.template: str | None = None
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-databases")
        self.spares: collections.deque[Future[str]] = collections.deque()
        self.drops: list[Future[None]] = []
        self.closed = False

    def template_name(self) -> str:
        """The template: the table app's and the hall's tables as they create them on an empty
        database, no rows. Nothing connects to it once made (a database is copied only while
        no one else is connected to it)."""
        if self.template is None:
            from webui.hall.schema import ensure_schema
            from webui.store.db import make_engine

            name = f"hall_template_{uuid.uuid4().hex[:12]}"
            _admin(self.server_url, f'CREATE DATABASE "{name}"')
            engine = make_engine(_database_url(self.server_url, name))  # the table app's tables
            try:
                ensure_schema(engine)  # the hall's
            finally:
                engine.dispose()
            # no connection to it from now on (autovacuum's neither), so a copy never waits
            _admin(self.server_url, f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
            self.template = name
        return self.template

    def _copy(self, template: str) -> str:
        name = f"test_{uuid.uuid4().hex[:12]}"
        _admin(self.server_url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        if LAZY_COMMITS:
            _admin(self.server_url, f'ALTER DATABASE "{name}" SET synchronous_commit = off')
        return name

    def _drop(self, name: str) -> None:
        _admin(self.server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def fresh(self, template: str | None = None) -> Iterator[str]:
        """A new database (its URL) copied from ``template`` (default: this session's
        template, then a spare the worker made ready), dropped by the worker afterwards."""
        if template is None:
            source = self.template_name()
            while len(self.spares) < self.SPARES + 1:
                self.spares.append(self.worker.submit(self._copy, source))
            name = self.spares.popleft().result()
        else:
            name = self._copy(template)
        try:
            yield _database_url(self.server_url, name)
        finally:
            self.drops.append(self.worker.submit(self._drop, name))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for spare in self.spares:
            self.drops.append(self.worker.submit(self._drop, spare.result()))
        if self.template is not None:
            self.drops.append(self.worker.submit(self._drop, self.template))
        self.worker.shutdown(wait=True)
        failed = [str(f.exception()) for f in self.drops if f.exception() is not None]
        assert not failed, f"test databases not dropped: {failed}"


_SESSIONS: dict[str, SessionDatabases] = {}


def session_databases(server_url: str) -> SessionDatabases:
    """The one ``SessionDatabases`` of ``server_url`` (each test module that imports the
    ``pg_server`` fixture has its own copy of it; they share this)."""
    if server_url not in _SESSIONS:
        _SESSIONS[server_url] = SessionDatabases(server_url)
    return _SESSIONS[server_url]


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh event database on the test server: the apps' tables, no rows (dropped
    afterwards)."""
    yield from session_databases(pg_server).fresh()


@pytest.fixture
def empty_pg_url(pg_server: str) -> Iterator[str]:
    """A fresh database with no tables at all (dropped afterwards)."""
    yield from session_databases(pg_server).fresh(template="template1")


@pytest.fixture
def earlier_event(pg_server: str) -> Iterator[str]:
    """The event database of an earlier event (another fresh database on the test server)."""
    yield from session_databases(pg_server).fresh()


@pytest.fixture
def hall(pg_url: str, tmp_path: Path) -> tuple[Any, Any, Store]:
    """A hall app on a fresh event database: (app, a logged-in director's client, its store)."""
    from webui.hall import create_hall_app

    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    return app, director_client(app), app.extensions["gintray"].store


def new_partnership(client: Any, store: Store, board_1: tuple[str, str] = ("Ann", "Cy"),
                    board_2: tuple[str, str] = ("Bob", "Di")) -> tuple[int, int]:
    """Two partnership boards (players A, B of each) made into one match through the hall's
    form: the Aces (both boards' A players) against the Kings (the B players). The boards."""
    b1 = new_table(store, "Board 1", *board_1, rules="partnership")
    b2 = new_table(store, "Board 2", *board_2, rules="partnership")
    client.post("/partnerships", data={
        "team_A": "Aces", "members_A": f"{board_1[0]}, {board_2[0]}",
        "team_B": "Kings", "members_B": f"{board_1[1]}, {board_2[1]}",
        "board_1": b1, "board_2": b2, "csrf_token": client.csrf})
    return b1, b2


def new_table(store: Store, name: str, a: str = "Ann", b: str = "Bob",
              rules: Any = "tournament") -> int:
    return store.create_table(name, {"name": name, "players": {"A": a, "B": b},
                                     "rules": rules, "camera": None}, Actor("director"))


def hand_cards(winner: str, gin: bool = False) -> dict[str, Any]:
    """A proposal body where ``winner`` knocks (or gins) and wins."""
    win, lose = (GIN_CARDS, LOOSE_CARDS) if gin else (KNOCKER_CARDS, DEFENDER_CARDS)
    other = "B" if winner == "A" else "A"
    return {"kind": "score", "knocker": winner, "cards": {winner: win, other: lose}}


def play_hand(store: Store, table_id: int, winner: str = "A", gin: bool = False,
              up_card: str = "TC") -> tuple[int, int]:
    """Play one hand to both confirmations through the table app's commands (starting the
    next game, both players signing the last one, when it is over); returns (game, hand)."""
    state = store.state(table_id)
    hand = state.current_hand()
    if hand is None:
        from webui_helpers import PNG_DATA_URL

        over = state.game
        for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):  # the next game needs both
            if over is not None and player not in over.signatures:
                store.execute(table_id, commands.sign(over.number, player, PNG_DATA_URL), actor)
        store.execute(table_id, commands.next_game(), Actor("director"))
        hand = store.state(table_id).current_hand()
    game, number = hand.game, hand.number
    store.execute(table_id, commands.set_knock_card(game, number, parse_card(up_card)), PLAYER_A)
    proposal = parse_proposal(hand_cards(winner, gin))
    store.execute(table_id, commands.propose(game, number, proposal), PLAYER_A)
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        revision = store.state(table_id).hand(game, number).revision
        store.execute(table_id, commands.confirm(game, number, player, revision), actor,
                      request_id=f"c-{uuid.uuid4().hex}")
    return game, number


def fetch_bundle(app: Any, client: Any) -> Any:
    """``/bundle.zip`` as the director gets it: a build starts in the background (202 with
    its progress), this waits for it (no fixed sleep), then the zip."""
    r = client.get("/bundle.zip")
    if r.status_code == 202:
        status = app.extensions["gintray"].bundler.wait(600)
        assert status.state.value == "done", status
        r = client.get("/bundle.zip")
    assert r.status_code == 200, r.status_code
    return r


def win_match(store: Store, table_id: int, winner: str) -> None:
    """``winner`` gins nine hands (three games of three); both players sign every game."""
    from webui_helpers import PNG_DATA_URL

    for _ in range(9):
        play_hand(store, table_id, winner, gin=True)
    last = store.state(table_id).game
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        store.execute(table_id, commands.sign(last.number, player, PNG_DATA_URL), actor)


def confirmed_hands(store: Store, table_id: int) -> list[tuple[int, int, str, int]]:
    """(game, hand, winner, points) of every confirmed hand of a table."""
    state = store.state(table_id)
    out = []
    for g in state.games:
        for h in g.confirmed_hands:
            entry = h.sheet_entry()
            out.append((g.number, h.number, entry.get("winner"), entry.get("points", 0)))
    return out


def stream(store: Store, table_id: int) -> list[tuple[int, str, Any, str]]:
    """A table's events as comparable tuples (seq, kind, payload, actor)."""
    return [(e.seq, e.kind, e.payload, e.actor) for e in store.events(table_id)]


class TcpCut:
    """A TCP relay to the database that the test can cut (every connection dropped, new ones
    refused) and reconnect: a table's network going away and coming back, for real."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = _free_port()
        self._conns: list[socket.socket] = []
        self._listener: socket.socket | None = None
        self._lock = threading.Lock()
        self.connect()

    def url(self, pg_url: str) -> str:
        head, tail = pg_url.split("@", 1)
        return f"{head}@127.0.0.1:{self.port}/{tail.split('/', 1)[1]}"

    def connect(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            if self._listener is not None:
                with contextlib.suppress(OSError):
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for c in self._conns:
                with contextlib.suppress(OSError):
                    c.shutdown(socket.SHUT_RDWR)
                c.close()
            self._conns.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                if self._listener is not listener:  # cut while this one was being accepted
                    client.close()
                    upstream.close()
                    return
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
