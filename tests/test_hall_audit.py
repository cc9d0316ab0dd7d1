"""Named director accounts and the audit on a real PostgreSQL: accounts made by
``gintray hall --add-director``, each director logs in with own name and password (the login
back-off still holds), and every correction, reopening, adjustment and penalty is logged with
the director's name on the audit page."""

from __future__ import annotations

import io
import sys

import hall_helpers
import pytest
from hall_helpers import (
    PASSWORD,
    PLAYER_A,
    PNG_DATA_URL,
    csrf_of,
    director_client,
    new_table,
    play_hand,
)

from webui.common import attempts
from webui.hall import audit, create_hall_app
from webui.hall.cli import hall_main
from webui.hall.schema import DirectorRequest
from webui.hall.sync import open_store, sync_once
from webui.store import commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures


def add_director(monkeypatch, pg_url: str, name: str, password: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(password + "\n"))
    return hall_main(["--database-url", pg_url, "--add-director", name])


def named_login(app, name: str, password: str, address: str = "127.0.0.1"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    csrf = csrf_of(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"name": name, "password": password, "csrf_token": csrf})
    client.csrf = csrf
    return client, r


@pytest.fixture
def hall(pg_url, tmp_path, monkeypatch, capsys):
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    shared = director_client(app)  # the event's shared password, set before any account
    assert add_director(monkeypatch, pg_url, "Alice  Smith", "alice-pass-1") == 0
    assert "director 'Alice Smith' made" in capsys.readouterr().out
    assert add_director(monkeypatch, pg_url, "Bob", "bob-pass-12") == 0
    return app, shared, app.extensions["gintray"].store


def test_accounts_are_made_by_the_cli_and_each_director_logs_in_by_name(
        hall, pg_url, monkeypatch, capsys):
    app, shared, _store = hall
    assert shared.get("/").status_code == 403  # a nameless session ends once accounts exist
    assert add_director(monkeypatch, pg_url, "Cy", "short") == 2
    assert "at least 8 characters" in capsys.readouterr().err
    page = app.test_client().get("/login").get_data(as_text=True)
    assert 'name="name"' in page and "required" in page
    alice, r = named_login(app, "alice smith", "alice-pass-1")  # any case or spacing
    assert r.status_code == 302
    assert "Alice Smith" in alice.get("/").get_data(as_text=True)
    _, r = named_login(app, "Alice Smith", "bob-pass-12")
    assert r.status_code == 403 and "Wrong name or password" in r.get_data(as_text=True)
    _, r = named_login(app, "Nobody", "alice-pass-1")
    assert r.status_code == 403
    _, r = named_login(app, "", PASSWORD)  # the shared password is not enough any more
    assert r.status_code == 403 and "log in with your own name" in r.get_data(as_text=True)
    assert app.test_client().get("/setup").status_code == 302
    # a new password (the CLI again) ends the old sessions
    assert add_director(monkeypatch, pg_url, "alice smith", "alice-pass-2") == 0
    assert "has a new password" in capsys.readouterr().out
    assert alice.get("/").status_code == 403
    _, r = named_login(app, "Alice Smith", "alice-pass-2")
    assert r.status_code == 302


def test_the_login_back_off_holds_for_named_accounts(hall):
    app, _shared, _store = hall
    bad = "10.0.0.7"
    for _ in range(attempts.FREE_ATTEMPTS):
        assert named_login(app, "Bob", "wrong-password", bad)[1].status_code == 403
    _, r = named_login(app, "Bob", "bob-pass-12", bad)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert named_login(app, "Bob", "bob-pass-12", "10.0.0.8")[1].status_code == 302


def test_every_correction_adjustment_and_penalty_is_audited_by_name(hall, tmp_path):
    app, _shared, store = hall
    alice, _ = named_login(app, "Alice Smith", "alice-pass-1")
    bob, _ = named_login(app, "Bob", "bob-pass-12")
    direct = new_table(store, "Direct", "Ann", "Dan")
    play_hand(store, direct, "A")
    rev = store.state(direct).hand(1, 1).revision
    r = alice.post(f"/tables/{direct}/correct", json={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 20, "revision": rev,
        "note": "miscounted"}, headers={"X-CSRFToken": alice.csrf})
    assert r.get_json()["status"] == "applied"
    local = open_store(f"sqlite:///{tmp_path / 't.sqlite3'}")
    t = new_table(local, "Synced", "Eve", "Fay")
    play_hand(local, t, "A")
    sync_once(local, store)
    mirror = next(x.id for x in store.tables() if x.name == "Synced")
    rev = store.state(mirror).hand(1, 1).revision
    r = bob.post(f"/tables/{mirror}/correct", json={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 9, "revision": rev},
        headers={"X-CSRFToken": bob.csrf})
    assert r.get_json()["status"] == "sent"
    with store.Session() as s:
        assert s.query(DirectorRequest).one().actor == "Bob"
    signed = new_table(store, "Signed", "Gus", "Hal")
    for _ in range(3):
        play_hand(store, signed, "A", gin=True)
    for p in "AB":
        store.execute(signed, commands.sign(1, p, PNG_DATA_URL), PLAYER_A)
    r = alice.post(f"/tables/{signed}/reopen", data={"game": 1, "reason": "wrong card",
                                                      "csrf_token": alice.csrf})
    assert r.status_code == 303
    ids = {r["name"]: r["player_id"] for r in alice.get("/api/event").get_json()["standings"]}
    before = {r["name"]: r["difference"] for r in alice.get("/api/event").get_json()["standings"]}
    r = bob.post("/adjustments", data={"kind": "penalty", "player_id": ids["Gus"],
                                       "points": "10", "reason": "slow play",
                                       "csrf_token": bob.csrf}, follow_redirects=True)
    assert "Penalty for Gus: -10 points" in r.get_data(as_text=True)
    r = alice.post("/adjustments", data={"kind": "adjustment", "player_id": ids["Hal"],
                                         "points": "5", "reason": "scoring slip",
                                         "csrf_token": alice.csrf}, follow_redirects=True)
    assert "Adjustment for Hal: +5 points" in r.get_data(as_text=True)
    for bad in ({"kind": "penalty", "player_id": ids["Gus"], "points": "0", "reason": "x"},
                {"kind": "penalty", "player_id": ids["Gus"], "points": "5", "reason": " "},
                {"kind": "bonus", "player_id": ids["Gus"], "points": "5", "reason": "x"},
                {"kind": "penalty", "player_id": "99999", "points": "5", "reason": "x"},
                {"kind": "penalty", "player_id": ids["Gus"], "points": "1e400", "reason": "x"}):
        r = bob.post("/adjustments", data={**bad, "csrf_token": bob.csrf})
        assert r.status_code == 303, bad
    rows = {r["name"]: r for r in alice.get("/api/event").get_json()["standings"]}
    assert rows["Gus"]["difference"] == before["Gus"] - 10 and rows["Gus"]["adjustment"] == -10
    assert rows["Hal"]["difference"] == before["Hal"] + 5

    page = bob.get("/audit")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    lines = [(e.director, e.action.value, e.table_id) for e in audit.entries(store)]
    assert lines == [("Alice Smith", "adjustment", None), ("Bob", "penalty", None),
                     ("Alice Smith", "reopen", signed), ("Bob", "correct", mirror),
                     ("Alice Smith", "correct", direct)]
    for words in ("game 1, hand 1 corrected to B 20 (miscounted); applied",
                  "sent to the table", "game 1 reopened: wrong card",
                  f"Gus (player {ids['Gus']}) -10 points: slow play",
                  "Hal (player", "+5 points: scoring slip"):
        assert words in text, words
    assert app.test_client().get("/audit").status_code == 403
