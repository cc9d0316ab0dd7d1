"""Two directors (or one with a slow network) on one event, on a real PostgreSQL: login attempts
limited per address (and per account: test_hall_login_limits.py) and kept across a restart,
seating a draw once, no silent redraw, and a correction of a hand someone else just corrected
refused with a clear message."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import hall_helpers
from hall_helpers import PASSWORD, confirmed_hands, csrf_of, new_table, play_hand

from webui.common import attempts
from webui.hall import create_hall_app
from webui.hall.schema import DirectorRequest
from webui.hall.sync import open_store, sync_once

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


class Clock:
    """The login limiter's clock, moved by the test."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at


def attempt(app, password: str, address: str) -> int:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    csrf = csrf_of(client.get("/login").get_data(as_text=True))
    return client.post("/login", data={"password": password, "csrf_token": csrf}).status_code


def test_wrong_passwords_back_off_per_address_across_a_restart_never_for_good(
        hall, pg_url, tmp_path, monkeypatch):
    app, _client, _store = hall
    clock = Clock()
    monkeypatch.setattr(attempts, "now", clock)
    bad = "10.0.0.5"
    for _ in range(attempts.FREE_ATTEMPTS):
        assert attempt(app, "wrong-password", bad) == 403
    assert attempt(app, PASSWORD, bad) == 429  # even the right one waits now
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = bad
    client.get("/login")
    csrf = csrf_of(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"password": PASSWORD, "csrf_token": csrf})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "Too many wrong passwords" in r.get_data(as_text=True)
    assert attempt(app, PASSWORD, "10.0.0.6") == 302  # another address is not held back
    restarted = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    assert attempt(restarted, PASSWORD, bad) == 429  # kept in the event database
    clock.at += timedelta(seconds=attempts.FIRST_WAIT_S + 1)
    assert attempt(restarted, "wrong-password", bad) == 403
    assert attempt(restarted, PASSWORD, bad) == 429  # a longer wait after each wrong one
    for _ in range(40):  # a long attack: the wait grows but stays bounded
        clock.at += timedelta(seconds=attempts.MAX_WAIT_S + 1)
        assert attempt(restarted, "wrong-password", bad) == 403
    clock.at += timedelta(seconds=attempts.MAX_WAIT_S + 1)
    known = restarted.test_client()  # this browser logs in now: it is known from then on
    known.environ_base["REMOTE_ADDR"] = bad
    csrf = csrf_of(known.get("/login").get_data(as_text=True))
    r = known.post("/login", data={"password": PASSWORD, "csrf_token": csrf})
    assert r.status_code == 302  # never a permanent lockout
    known.post("/logout", data={"csrf_token": csrf})
    assert attempt(restarted, "wrong-password", bad) == 403  # success forgot the address's
    # ... but not the account's 46 wrong passwords (issue 27 item 11): a browser that never
    # logged in waits, the known one does not
    assert attempt(restarted, PASSWORD, bad) == 429
    csrf = csrf_of(known.get("/login").get_data(as_text=True))
    assert known.post("/login", data={"password": PASSWORD,
                                      "csrf_token": csrf}).status_code == 302


def test_seating_a_draw_twice_opens_its_tables_once(hall):
    app, client, store = hall
    client.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi\nEd\nFlo", "kind": "singles",
                               "csrf_token": client.csrf})
    other = director_client_again(app)
    statuses: list[int] = []
    barrier = threading.Barrier(2)

    def seat(c) -> None:
        barrier.wait()
        statuses.append(c.post("/draw/seat", data={"csrf_token": c.csrf}).status_code)

    threads = [threading.Thread(target=seat, args=(c,)) for c in (client, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(t.name for t in store.tables()) == ["Round 1 Table 1", "Round 1 Table 2",
                                                     "Round 1 Table 3"]
    r = client.post("/draw/seat", data={"csrf_token": client.csrf}, follow_redirects=True)
    assert "already open" in r.get_data(as_text=True)
    assert len(store.tables()) == 3


def director_client_again(app):
    """A second director's browser (the password is set already)."""
    c = app.test_client()
    csrf = csrf_of(c.get("/login").get_data(as_text=True))
    assert c.post("/login", data={"password": PASSWORD, "csrf_token": csrf}).status_code == 302
    c.csrf = csrf
    return c


def test_a_draw_is_not_redone_without_saying_so(hall):
    app, client, _store = hall
    client.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi", "csrf_token": client.csrf})
    first = client.get("/api/event").get_json()["draw"]
    other = director_client_again(app)
    r = other.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi", "csrf_token": other.csrf},
                   follow_redirects=True)
    assert "already made" in r.get_data(as_text=True)
    assert client.get("/api/event").get_json()["draw"]["seed"] == first["seed"]
    page = client.get("/").get_data(as_text=True)
    assert f'name="replace" value="{first["id"]}"' in page
    r = other.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi", "replace": "999",
                                  "csrf_token": other.csrf}, follow_redirects=True)
    assert "already made" in r.get_data(as_text=True)  # a stale page cannot replace it
    r = other.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi\nEd", "replace": first["id"],
                                  "csrf_token": other.csrf}, follow_redirects=True)
    assert "replaces the draw" in r.get_data(as_text=True)
    second = client.get("/api/event").get_json()["draw"]
    assert second["seed"] != first["seed"] and len(second["entrants"]) == 5
    client.post("/draw/seat", data={"csrf_token": client.csrf})
    r = client.post("/draw", data={"entrants": "Ann\nBob", "replace": second["id"],
                                   "csrf_token": client.csrf}, follow_redirects=True)
    assert "tables are open" in r.get_data(as_text=True)
    assert client.get("/api/event").get_json()["draw"]["seed"] == second["seed"]


def correct(client, table: int, revision, points: int, **extra):
    body = {"game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": points, **extra}
    if revision is not None:
        body["revision"] = revision
    return client.post(f"/tables/{table}/correct", json=body,
                       headers={"X-CSRFToken": client.csrf})


def test_a_second_correction_on_a_stale_revision_is_refused(hall):
    app, client, store = hall
    t = new_table(store, "Direct", "Ann", "Bob")
    play_hand(store, t, "A")
    seen = store.state(t).hand(1, 1).revision
    other = director_client_again(app)
    r = correct(client, t, seen, 20)
    assert r.status_code == 200 and r.get_json()["status"] == "applied"
    r = correct(other, t, seen, 30)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "changed"
    assert "corrected since you looked" in r.get_json()["error"]["message"]
    assert confirmed_hands(store, t) == [(1, 1, "B", 20)]
    r = correct(other, t, None, 30)
    assert r.status_code == 400 and "revision" in r.get_json()["error"]["message"]
    r = other.post(f"/tables/{t}/correct", data={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 30, "revision": seen,
        "csrf_token": other.csrf}, follow_redirects=True)
    assert "corrected since you looked" in r.get_data(as_text=True)
    now = store.state(t).hand(1, 1).revision
    assert correct(other, t, now, 30).status_code == 200
    assert confirmed_hands(store, t) == [(1, 1, "B", 30)]


def test_a_second_correction_of_a_synced_table_is_refused_here_or_at_the_table(hall, tmp_path):
    app, client, central = hall
    local = open_store(f"sqlite:///{tmp_path / 't.sqlite3'}")
    t = new_table(local, "Synced", "Cy", "Di")
    play_hand(local, t, "A")
    sync_once(local, central)
    mirror = central.tables()[0].id
    seen = central.state(mirror).hand(1, 1).revision
    other = director_client_again(app)
    assert correct(client, mirror, seen, 7).get_json()["status"] == "sent"
    r = correct(other, mirror, seen, 9)
    assert r.status_code == 409 and "waiting for the table" in r.get_json()["error"]["message"]
    with central.Session() as s:  # two directors at the same instant: both requests stored
        s.add(DirectorRequest(request_id="hall-second", table_id=mirror, kind="correct",
                              payload={"game": 1, "hand": 1, "revision": seen, "proposal": {
                                  "kind": "manual", "winner": "B", "points": 9}},
                              actor="director"))
        s.commit()
    report = sync_once(local, central)
    assert len(report.applied) == 1 and report.refused == ["hall-second"]
    assert confirmed_hands(local, t) == [(1, 1, "B", 7)]
    statuses = {r["request_id"]: r for r in client.get("/api/event").get_json()["requests"]}
    assert statuses["hall-second"]["status"] == "refused"
    assert "corrected since" in statuses["hall-second"]["message"]
