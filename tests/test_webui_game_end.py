"""Game end: signatures, the lock, director reopen, and the signed PDF / CSV / JSON exports."""

from __future__ import annotations

import csv
import io
import json

import pytest
from webui_helpers import PNG_DATA_URL, Tablet, csrf_token, director_client, make_app

from webui.signing import verify_pdf


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def finished(app):
    """A tablet at a table whose game 1 Ann won 260 to 20 (three confirmed hands)."""
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 130)
    tablet.play_manual_hand("B", 20)
    tablet.play_manual_hand("A", 130)
    return tablet


def sign_both(tablet):
    for p in ("A", "B"):
        r = tablet.post("sign", {"game": 1, "player": p, "png": PNG_DATA_URL})
        assert r.status_code == 200, r.get_json()


def test_game_ends_with_bonuses_from_the_engine(app, finished):
    state = finished.state()
    game = state["games"][0]
    assert game["ended"] and game["winner"] == "A"
    assert state["current_hand"] is None
    final = game["sheet"]["games"][0]
    # tournament: 100 game bonus, 25 per box (Ann 2, Ben 1)
    assert final["finals"] == {"A": 260 + 100 + 50, "B": 20 + 25}
    panel = finished.client.get("/t/1/panel").get_data(as_text=True)
    assert "Game 1 is over: Ann wins" in panel and "Sign the score sheet" in panel
    r = finished.post("knock-card", {"game": 1, "hand": 4, "card": "7D"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "game_over"


def test_signing_needs_a_finished_game_and_a_real_png(app):
    tablet = Tablet(app)
    r = tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "not_over"
    tablet.play_manual_hand("A", 300)
    r = tablet.post("sign", {"game": 1, "player": "A", "png": "data:image/png;base64,AAAA"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad_signature"
    r = tablet.post("sign", {"game": 1, "player": "A", "png": "<svg/>"})
    assert r.status_code == 400


def test_signed_game_is_locked_and_edits_are_refused(app, finished):
    sign_both(finished)
    state = finished.state()
    assert state["games"][0]["locked"]
    r = finished.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "already_signed"
    last = app.extensions["gintray.store"].last_seq(1)
    for name, body in [("knock-card", {"game": 1, "hand": 4, "card": "7D"}),
                       ("proposal", {"game": 1, "hand": 3, "kind": "dead", "director": True}),
                       ("undo", {"target_seq": last - 2})]:
        r = finished.post(name, body)
        assert r.status_code in (409, 423), (name, r.get_json())
    assert app.extensions["gintray.store"].last_seq(1) == last
    sign_page = finished.client.get("/t/1/games/1/sign").get_data(as_text=True)
    assert "locked" in sign_page and "Download the signed PDF" in sign_page


def test_only_the_director_reopens_and_the_reopening_is_recorded(app, finished):
    sign_both(finished)
    r = finished.post("reopen", {"game": 1, "reason": "wrong points in hand 2"})
    assert r.status_code == 403
    director = director_client(app)
    token = csrf_token(director, "/t/1/sheet")
    r = director.post("/api/t/1/reopen", json={"game": 1, "reason": ""},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 400  # a reason is required
    r = director.post("/api/t/1/reopen", json={"game": 1, "reason": "wrong points in hand 2"},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200
    events = app.extensions["gintray.store"].events(1)
    reopened = [e for e in events if e.kind == "reopened"]
    assert reopened[0].actor == "director" and "hand 2" in reopened[0].payload["reason"]
    assert sum(1 for e in events if e.kind == "signed") == 2  # the old signatures stay in history
    # the director corrects hand 2; the sheet follows; players must sign again
    r = director.post("/api/t/1/proposal", json={"game": 1, "hand": 2, "kind": "manual",
                                                 "winner": "B", "points": 25, "director": True},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200, r.get_json()
    game = finished.state()["games"][0]
    assert not game["locked"] and game["signed_by"] == []
    assert game["sheet"]["hands"][1]["totals"] == {"A": 130, "B": 25}


def test_signed_pdf_validates_and_any_change_breaks_it(app, finished):
    sign_both(finished)
    r = finished.client.get("/t/1/games/1/export.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    pdf = r.data
    identity = app.extensions["gintray.identity"]
    assert verify_pdf(pdf, identity).ok
    # the sheet is readable in the file: Ann's final score 410, then flip one digit of it
    at = pdf.index(b"(410)")
    tampered = bytearray(pdf)
    tampered[at + 1] = ord("9")
    check = verify_pdf(bytes(tampered), identity)
    assert not check.ok and not check.intact


def test_csv_and_json_exports_carry_the_sheet_and_history(app, finished):
    rows = list(csv.reader(io.StringIO(
        finished.client.get("/t/1/games/1/export.csv").get_data(as_text=True))))
    assert rows[0][:4] == ["game", "hand", "dealer", "knock_card"]
    assert [r[6] for r in rows[1:4]] == ["130", "20", "130"]
    assert rows[-1][7:] == ["410", "45"]
    sign_both(finished)
    data = json.loads(finished.client.get("/t/1/games/1/export.json").data)
    assert data["players"] == {"A": "Ann", "B": "Ben"}
    assert data["game"]["locked"] and set(data["signatures"]) == {"A", "B"}
    assert [e["kind"] for e in data["history"]].count("confirmed") == 6


def test_next_game_starts_after_the_end(app, finished):
    assert finished.post("next-game", {}).status_code == 200
    state = finished.state()
    assert len(state["games"]) == 2 and state["current_hand"]["game"] == 2
    assert state["match"]["games_won"] == {"A": 1, "B": 0}
    assert finished.post("next-game", {}).status_code == 409  # game 2 is not over


def test_director_setup_only_on_this_machine_and_login(app):
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    assert remote.get("/director/setup").status_code == 403
    local = app.test_client()
    token = csrf_token(local, "/director/setup")
    r = local.post("/director/setup", data={"csrf_token": token, "password": "short",
                                            "again": "short"})
    assert r.status_code == 400
    director_client(app)  # sets it
    r = local.get("/director/setup")
    assert r.status_code == 302  # set once only
    other = app.test_client()
    token = csrf_token(other, "/director/login")
    r = other.post("/director/login", data={"csrf_token": token, "password": "nope"})
    assert r.status_code == 403
    assert other.get("/director/").status_code == 403


def test_director_creates_a_table_and_changes_settings(app):
    director = director_client(app)
    token = csrf_token(director, "/director/")
    r = director.post("/director/tables", data={
        "csrf_token": token, "name": "Table 2", "player_A": "Cy", "player_B": "Di",
        "rules": "oklahoma", "camera": ""})
    assert r.status_code == 302
    store = app.extensions["gintray.store"]
    assert [t.name for t in store.tables()] == ["Table 1", "Table 2"]
    assert store.state(2).players == {"A": "Cy", "B": "Di"} and store.state(2).rules == "oklahoma"
    r = director.post("/director/tables/2/settings", data={
        "csrf_token": token, "name": "Table 2", "player_A": "Cy", "player_B": "Dee",
        "rules": "straight", "hollywood": "1", "camera": ""})
    assert r.status_code == 302
    assert store.state(2).players["B"] == "Dee"
    assert store.state(2).rules == {"preset": "straight", "hollywood": True}
    old_pin = store.table(2).pin
    director.post("/director/tables/2/pin", data={"csrf_token": token})
    assert store.table(2).pin != old_pin or len(old_pin) == 6
    r = director.post("/director/tables", data={"csrf_token": token, "rules": "no-such-rules"})
    assert r.status_code == 400


def test_director_corrects_an_earlier_hand_from_the_sheet(app, finished):
    director = director_client(app)
    page = director.get("/t/1/sheet").get_data(as_text=True)
    assert "director: hand 2 is" in page
    token = csrf_token(director, "/t/1/sheet")
    r = director.post("/api/t/1/proposal", data={
        "csrf_token": token, "game": "1", "hand": "2", "kind": "manual", "director": "1",
        "winner": "B", "points": "40", "note": "miscounted", "next": "/t/1/sheet"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/t/1/sheet")
    sheet = finished.state()["games"][0]["sheet"]["hands"]
    assert [h["points"] for h in sheet] == [130, 40, 130]
    events = app.extensions["gintray.store"].events(1)
    assert events[-1].actor == "director" and events[-1].payload["director"] is True
    # players cannot do that: a tablet's correction of a closed hand is refused
    r = finished.post("proposal", {"game": 1, "hand": 2, "kind": "manual", "winner": "A",
                                   "points": 1, "director": True})
    assert r.status_code == 409


def test_next_game_dealer_is_who_won_the_cut(app, finished):
    assert finished.post("next-game", {"dealer": "B"}).status_code == 200
    assert finished.state()["current_hand"]["dealer"] == "B"
