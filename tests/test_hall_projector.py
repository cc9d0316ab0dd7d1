"""The public projector view on a real PostgreSQL: read-only, no login, no PINs and no
director controls; the standings, the round clock and the current round's tables; refreshed
by the static script under the hall's CSP."""

from __future__ import annotations

import re
from datetime import timedelta

import hall_helpers
from hall_helpers import new_table, play_hand

from webui.hall import clock

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def test_the_projector_needs_no_login_and_shows_no_secrets(hall):
    app, director, store = hall
    t1 = new_table(store, "Table 1", "Ann", "<b>Bob</b>")
    for _ in range(3):
        play_hand(store, t1, "A", gin=True)  # Ann wins game 1
    t2 = new_table(store, "Table 2", "Cy", "Di")
    play_hand(store, t2, "B")
    new_table(store, "Table 3", "Ed", "Flo")
    room = app.test_client()  # nobody logged in
    page = room.get("/projector")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Standings" in html and "Ann" in html and "&lt;b&gt;Bob&lt;/b&gt;" in html
    assert "<b>Bob" not in html
    assert "No round started" not in html and "Tables" in html  # before round 1: every table
    for table_id in (t1, t2):
        assert store.table(table_id).pin not in html
    assert "<form" not in html and "csrf" not in html and "/tables/" not in html
    assert "Log out" not in html and "/audit" not in html
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["X-Frame-Options"] == "DENY"
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # no inline script
    assert 'style="' not in html and "<style" not in html
    assert 'data-live="/projector/live"' in html and 'data-every="10"' in html
    assert room.get("/hall-static/projector.css").status_code == 200
    live = room.get("/projector/live")
    assert live.status_code == 200 and "<html" not in live.get_data(as_text=True)
    assert room.get("/").status_code == 403  # the director's pages still need the login
    assert room.get("/api/event").status_code == 403

    # round 2 paired from the standings and on the clock: its tables, clock and stage
    director.post("/round", data={"number": 1, "minutes": 30, "csrf_token": director.csrf})
    director.post("/pairing", data={"system": "swiss", "csrf_token": director.csrf})
    pr = director.get("/api/event").get_json()["pairing"]
    director.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": director.csrf})
    director.post("/round", data={"number": 2, "minutes": 45, "csrf_token": director.csrf})
    html = room.get("/projector").get_data(as_text=True)
    assert "Round 2" in html and "Round 2 Table 1" in html and "Round 2 Table 3" in html
    assert "<td>Table 2</td>" not in html  # round 1's tables are not this round's
    assert re.search(r'class="clock" data-ends-at="[^"]+">(44|45):\d\d left<', html)
    assert "3 of 3 table(s) still playing" in html
    assert "Ranked by matches won, then games won" in html


def test_the_projector_shows_time_up_and_a_knockout_stage(hall, monkeypatch):
    app, director, store = hall
    for name, a, b in (("T1", "Ann", "Bob"), ("T2", "Cy", "Di")):
        play_hand(store, new_table(store, name, a, b), "A")
    director.post("/pairing", data={"system": "knockout", "csrf_token": director.csrf})
    pr = director.get("/api/event").get_json()["pairing"]
    director.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": director.csrf})
    director.post("/round", data={"number": 2, "minutes": 5, "csrf_token": director.csrf})
    later = clock.now() + timedelta(minutes=7)
    monkeypatch.setattr(clock, "now", lambda: later)
    html = app.test_client().get("/projector").get_data(as_text=True)
    assert "Round 2: semi-finals" in html
    assert re.search(r'class="clock over" data-ends-at="[^"]+">time up 2:\d\d ago<', html)
