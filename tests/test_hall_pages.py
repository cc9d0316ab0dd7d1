"""Every page of the hall with real tables on a real PostgreSQL (confirmed, corrected, signed,
partnership and synced tables), bad input that must be a clear 4xx, the hall's own session
cookie, and a clear 503 when the event database is away."""

from __future__ import annotations

import io
import json
import zipfile

import hall_helpers
import pytest
from hall_helpers import (
    PLAYER_A,
    PNG_DATA_URL,
    TcpCut,
    director_client,
    fetch_bundle,
    new_partnership,
    new_table,
    play_hand,
)

from webui.hall import create_hall_app
from webui.hall.sync import SyncConflict, open_store, sync_once
from webui.store import commands

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def test_every_director_page_loads_with_confirmed_corrected_signed_and_partnership_tables(
        hall, tmp_path):
    _app, client, store = hall
    confirmed = new_table(store, "Confirmed", "Ann", "Bob")
    play_hand(store, confirmed, "A")
    corrected = new_table(store, "Corrected", "Cy", "Di")
    play_hand(store, corrected, "A")
    rev = store.state(corrected).hand(1, 1).revision
    r = client.post(f"/tables/{corrected}/correct", json={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 20,
        "revision": rev}, headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 200, r.get_data(as_text=True)
    signed = new_table(store, "Signed", "Ed", "Flo")
    for _ in range(3):
        play_hand(store, signed, "A", gin=True)
    for p in "AB":
        store.execute(signed, commands.sign(1, p, PNG_DATA_URL), PLAYER_A)
    b1, b2 = new_partnership(client, store, ("Gus", "Hal"), ("Ida", "Jo"))
    play_hand(store, b1, "A")
    play_hand(store, b2, "B", gin=True)
    (tmp_path / "t").mkdir()
    local = open_store(f"sqlite:///{tmp_path / 't' / 'table.sqlite3'}")
    play_hand(local, new_table(local, "Synced", "Kim", "Lou"), "B")
    sync_once(local, store)
    import shutil

    local.engine.dispose()
    shutil.copytree(tmp_path / "t", tmp_path / "copy")
    with pytest.raises(SyncConflict):
        sync_once(open_store(f"sqlite:///{tmp_path / 'copy' / 'table.sqlite3'}"), store)
    synced = next(t.id for t in store.tables() if t.name == "Synced")
    client.post("/draw", data={"entrants": "Ann\nBob\nCy", "csrf_token": client.csrf})

    index = client.get("/")
    assert index.status_code == 200
    page = index.get_data(as_text=True)
    for text in ("Confirmed", "Corrected", "Signed", "Board 1", "Synced", "Aces v Kings",
                 "Standings", "Blind draw", "Syncs refused", "is a copy of table database"):
        assert text in page, text
    live = client.get("/live")
    assert live.status_code == 200 and "Synced" in live.get_data(as_text=True)
    assert client.get("/api/event").status_code == 200

    pages = {t: client.get(f"/tables/{t}") for t in (confirmed, corrected, signed, b1, b2,
                                                      synced)}
    for t, r in pages.items():
        assert r.status_code == 200, (t, r.get_data(as_text=True)[:500])
    text = {t: r.get_data(as_text=True) for t, r in pages.items()}
    assert "Ann v Bob" in text[confirmed] and "Ann, Bob" in text[confirmed]  # confirmed by
    assert "director" in text[corrected] and "Di 20" in text[corrected]
    assert "(signed)" in text[signed] and "Reopen game 1" in text[signed]
    assert "won by Ed" in text[signed]
    # how each hand ended, in the words the table app uses (never the engine's "big_gin")
    assert "Ann 14 (knock)" in text[confirmed] and "(gin)" in text[signed]
    assert "(entered by hand)" in text[corrected]
    assert "Gus v Hal" in text[b1] and "Ida v Jo" in text[b2]
    assert "Synced from the table" in text[synced] and "Kim, Lou" in text[synced]
    assert 'name="revision"' in text[confirmed]  # the correction names what the director saw

    bundle = fetch_bundle(_app, client)
    assert any(n.endswith(".pdf") for n in zipfile.ZipFile(io.BytesIO(bundle.data)).namelist())
    assert client.get("/tables/999").status_code == 404


def test_bad_table_ids_and_bodies_are_clear_4xx_never_500(hall):
    _app, client, store = hall
    t = new_table(store, "Direct", "Ann", "Bob")
    play_hand(store, t, "A")
    huge = "99999999999999999999"
    assert client.get(f"/tables/{huge}").status_code == 404
    headers = {"X-CSRFToken": client.csrf, "Content-Type": "application/json"}
    for kind in ("correct", "reopen"):
        r = client.post(f"/tables/{huge}/{kind}", data="{}", headers=headers)
        assert r.status_code == 404
        for body in ('[1, 2]', '"game 1"', '17', 'null', '{"game": '):
            r = client.post(f"/tables/{t}/{kind}", data=body, headers=headers)
            assert r.status_code == 400, (kind, body, r.status_code)
            assert r.get_json()["error"]["message"]
    rev = store.state(t).hand(1, 1).revision
    for field in ("game", "hand", "points", "revision"):
        body = {"game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 20,
                "revision": rev}
        raw = (json.dumps(body).replace(f'"{field}": {body[field]}', f'"{field}": 1e400'))
        assert "1e400" in raw
        r = client.post(f"/tables/{t}/correct", data=raw, headers=headers)
        assert r.status_code == 400, (field, r.status_code, r.get_data(as_text=True)[:300])
        assert field in r.get_json()["error"]["message"]
    for value in (1.5, 10**30, True, "x", -1):
        r = client.post(f"/tables/{t}/correct", json={"game": value, "hand": 1,
                                                      "kind": "manual", "winner": "B",
                                                      "points": 2, "revision": rev},
                        headers={"X-CSRFToken": client.csrf})
        assert r.status_code in (400, 404), (value, r.status_code)
    r = client.post(f"/tables/{t}/reopen", data='{"game": 1e400, "reason": "x"}',
                    headers=headers)
    assert r.status_code == 400
    r = client.post(f"/tables/{t}/correct", data={"game": "1e400", "hand": "1", "kind": "manual",
                                                  "winner": "B", "points": "1e400",
                                                  "revision": str(rev),
                                                  "csrf_token": client.csrf},
                    follow_redirects=True)
    assert r.status_code == 200 and "whole number" in r.get_data(as_text=True)


def test_a_director_not_logged_in_gets_a_403_page_with_a_link_to_log_in(hall):
    app, _client, _store = hall
    stranger = app.test_client()
    for path in ("/", "/tables/1", "/bundle.zip"):
        r = stranger.get(path)
        assert r.status_code == 403
        page = r.get_data(as_text=True)
        assert 'href="/login"' in page and "Log in" in page
    assert stranger.get("/api/event").get_json()["error"]["code"] == "forbidden"


def test_the_hall_and_a_table_app_on_one_host_keep_their_own_sessions(hall, tmp_path):
    from werkzeug.middleware.dispatcher import DispatcherMiddleware
    from werkzeug.test import Client

    from webui import create_app

    hall_app, _client, _store = hall
    table_app = create_app({"DATA_DIR": str(tmp_path / "table"), "START_CAMERAS": False,
                            "TESTING": True})
    browser = Client(DispatcherMiddleware(hall_app, {"/table": table_app}))
    csrf = hall_helpers.csrf_of(browser.get("/login").get_data(as_text=True))
    r = browser.post("/login", data={"password": hall_helpers.PASSWORD, "csrf_token": csrf})
    assert r.status_code == 302 and browser.get("/").status_code == 200
    table_csrf = hall_helpers.csrf_of(browser.get(
        "/table/director/setup", environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_data(as_text=True))
    r = browser.post("/table/director/setup", data={
        "csrf_token": table_csrf, "password": "table-pass-1", "again": "table-pass-1"},
        environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert r.status_code == 302
    assert browser.get("/").status_code == 200  # the hall kept its director
    assert browser.get("/table/director/login").status_code in (200, 302)
    names = {c.key for c in browser._cookies.values()}
    assert "session" in names and hall_app.config["SESSION_COOKIE_NAME"] in names
    assert hall_app.config["SESSION_COOKIE_NAME"] != "session"


def test_event_database_away_is_a_clear_503_page_and_back_when_it_returns(pg_url, tmp_path):
    host, port = pg_url.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = TcpCut(host, int(port))
    app = create_hall_app({"DATABASE_URL": relay.url(pg_url),
                           "DATA_DIR": str(tmp_path / "hall")})
    client = director_client(app)
    new_table(app.extensions["gintray"].store, "Table 1")
    assert client.get("/").status_code == 200
    relay.cut()
    for path in ("/", "/live", "/tables/1", "/login"):
        r = client.get(path)
        assert r.status_code == 503, (path, r.status_code)
        page = r.get_data(as_text=True)
        assert "event database" in page and "cannot be reached" in page
        assert "Traceback" not in page and "psycopg" not in page
    r = client.get("/api/event")
    assert r.status_code == 503 and r.get_json()["error"]["code"] == "database_unavailable"
    relay.connect()
    assert client.get("/").status_code == 200
