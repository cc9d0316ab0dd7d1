"""Game end: signatures, the lock, director reopen, and the signed PDF / CSV / JSON exports."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from webui_helpers import PNG_DATA_URL, Tablet, csrf_token, director_client

from webui.common.pdf import read_record
from webui.common.signing import verify_pdf


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
    last = app.extensions["gintray"].store.last_seq(1)
    for name, body in [("knock-card", {"game": 1, "hand": 4, "card": "7D"}),
                       ("proposal", {"game": 1, "hand": 3, "kind": "dead", "director": True}),
                       ("undo", {"target_seq": last - 2})]:
        r = finished.post(name, body)
        assert r.status_code in (409, 423), (name, r.get_json())
    assert app.extensions["gintray"].store.last_seq(1) == last
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
    events = app.extensions["gintray"].store.events(1)
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
    identity = app.extensions["gintray"].identity
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
    sign_both(finished)
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
    store = app.extensions["gintray"].store
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
    events = app.extensions["gintray"].store.events(1)
    assert events[-1].actor == "director" and events[-1].payload["director"] is True
    # players cannot do that: a tablet's correction of a closed hand is refused
    r = finished.post("proposal", {"game": 1, "hand": 2, "kind": "manual", "winner": "A",
                                   "points": 1, "director": True})
    assert r.status_code == 409


def test_next_game_dealer_is_who_won_the_cut(app, finished):
    sign_both(finished)
    assert finished.post("next-game", {"dealer": "B"}).status_code == 200
    assert finished.state()["current_hand"]["dealer"] == "B"


# Issue 15 item 1: a signature covers the exact sheet it was given on -------------------------

def _signature_page_hash(tablet, player="A"):
    page = tablet.tablets[player].client.get("/t/1/games/1/sign").get_data(as_text=True)
    return re.search(r'name="sheet" value="([0-9a-f]{64})"', page).group(1)


def test_a_signature_is_void_once_the_game_changes_after_it(app):
    """The issue's attack: hand 1 "Ann 250", both confirm, Ann signs; Ben's tablet undoes
    the hand and enters "Ben 250", both confirm, Ben signs. The game locked with Ann's
    signature under "Ben wins", and webui.verify said OK."""
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 250)
    seen = _signature_page_hash(tablet)
    r = tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL, "sheet": seen})
    assert r.status_code == 200
    assert r.get_json()["events"][0]["payload"]["sheet_hash"] == seen
    state = tablet.state()["games"][0]
    assert state["signatures"]["A"]["sheet_hash"] == seen and not state["void_signatures"]
    store = app.extensions["gintray"].store
    # each player undoes their own confirmation, then the result goes
    for player in ("B", "A"):
        seq = max(e.seq for e in store.events(1) if e.kind == "confirmed"
                  and e.payload["player"] == player)
        assert tablet.post("undo", {"target_seq": seq}).status_code == 200
    proposal = max(e.seq for e in store.events(1) if e.kind == "proposal_set")
    assert tablet.post("undo", {"target_seq": proposal}).status_code == 200
    game = tablet.state()["games"][0]
    assert game["signed_by"] == [] and [v["player"] for v in game["void_signatures"]] == ["A"]
    assert tablet.propose(kind="manual", winner="B", points=250).status_code == 200
    for p in ("A", "B"):
        assert tablet.confirm(p).status_code == 200
    assert tablet.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL}).status_code == 200
    game = tablet.state()["games"][0]
    assert game["winner"] == "B" and not game["locked"] and game["signed_by"] == ["B"]
    # the table page says so, on both tablets, and asks Ann again
    for player in ("A", "B"):
        panel = tablet.tablets[player].client.get("/t/1/panel").get_data(as_text=True)
        assert "Ann's signature is void" in panel and "must sign again" in panel
        assert "a tablet undid a confirmation" in panel
        assert "Ann has not signed" in panel and "✓ Ben signed sheet" in panel
    assert "Ann must sign again" in tablet.client.get("/t/1/games/1/sign").get_data(as_text=True)
    # moves refused until Ann signs what is now on the sheet
    assert tablet.post("next-game", {}).status_code == 409
    assert tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL,
                                "sheet": seen}).status_code == 409  # the old sheet
    assert tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL,
                                "sheet": _signature_page_hash(tablet)}).status_code == 200
    game = tablet.state()["games"][0]
    assert game["locked"]
    final = game["signatures"]["A"]["sheet_hash"]
    assert final != seen and game["signatures"]["B"]["sheet_hash"] == final
    # the PDF prints the sheet hash under each signature and carries the record
    pdf = tablet.client.get("/t/1/games/1/export.pdf").data
    assert final[:32].encode() in pdf and pdf.count(final[:32].encode()) >= 3
    record = read_record(pdf)
    assert record["sheet_hash"] == final
    assert {p: s["sheet_hash"] for p, s in record["signatures"].items()} == {"A": final,
                                                                           "B": final}
    assert record["sheet"]["hands"][0]["proposal"]["result"]["winner"] == "B"


def test_a_directors_correction_after_one_signature_voids_it(app, finished):
    assert finished.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL}
                         ).status_code == 200
    director = director_client(app)
    token = csrf_token(director, "/t/1/sheet")
    r = director.post("/api/t/1/proposal", json={
        "game": 1, "hand": 2, "kind": "manual", "winner": "B", "points": 40,
        "note": "misread", "director": True}, headers={"X-CSRFToken": token})
    assert r.status_code == 200
    game = finished.state()["games"][0]
    assert game["signed_by"] == [] and game["void_signatures"][0]["player"] == "B"
    assert "changed the result of hand 2" in game["void_signatures"][0]["reason"]
    sign_both(finished)
    assert finished.state()["games"][0]["locked"]


def test_a_signature_on_a_sheet_that_changed_before_it_landed_is_void():
    """The sign event carries the hash of the sheet it was given on; folded later against a
    different sheet (say an undo raced it), it is void, not counted."""
    from webui.store.state import fold

    class Ev:
        def __init__(self, seq, kind, payload, actor="test"):
            self.seq, self.kind, self.payload, self.actor = seq, kind, payload, actor

    events = [Ev(1, "table_created", {"name": "T", "players": {"A": "Ann", "B": "Ben"},
                                      "rules": "tournament"}),
              Ev(2, "game_started", {"game": 1, "dealer": "A"}),
              Ev(3, "proposal_set", {"game": 1, "hand": 1, "proposal": {
                  "kind": "manual", "result": {"winner": "A", "points": 300}}}),
              Ev(4, "confirmed", {"game": 1, "hand": 1, "player": "A", "revision": 3}),
              Ev(5, "confirmed", {"game": 1, "hand": 1, "player": "B", "revision": 3})]
    state = fold(1, events)
    from webui.store.state import sheet_hash

    good = sheet_hash(state, state.games[0])
    signed = [Ev(6, "signed", {"game": 1, "player": "A", "png": "", "sheet_hash": good}),
              Ev(7, "signed", {"game": 1, "player": "B", "png": "", "sheet_hash": "0" * 64})]
    game = fold(1, events + signed).games[0]
    assert list(game.signatures) == ["A"] and not game.locked
    assert game.void_signatures[0]["player"] == "B"


def test_next_game_waits_for_both_signatures_and_the_page_says_who_signed(app, finished):
    """Issue 15 item 13: "Start game 2" was offered before anyone signed."""
    r = finished.post("next-game", {})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "not_signed"
    panel = finished.client.get("/t/1/panel").get_data(as_text=True)
    assert "Start game 2" not in panel and "starts once both players have signed" in panel
    assert "Ann has not signed" in panel and "Ben has not signed" in panel
    assert finished.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL}
                         ).status_code == 200
    assert finished.post("next-game", {}).status_code == 409
    panel = finished.client.get("/t/1/panel").get_data(as_text=True)
    assert "✓ Ann signed sheet" in panel and "Ben has not signed" in panel
    assert finished.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL}
                         ).status_code == 200
    assert "Start game 2" in finished.client.get("/t/1/panel").get_data(as_text=True)
    assert finished.post("next-game", {}).status_code == 200


def test_after_both_confirm_the_page_says_what_was_recorded(app):
    """Issue 15 item 13: after both confirmed, only a passing flash said so."""
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 22)
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "Hand 1 recorded: Ann +22, 22-0" in panel
    tablet.play_manual_hand("B", 5)
    panel = tablet.tablets["B"].client.get("/t/1/panel").get_data(as_text=True)
    assert "Hand 2 recorded: Ben +5, 22-5" in panel


def test_verify_fails_when_a_signature_does_not_cover_the_final_sheet(app, finished, tmp_path):
    from webui.common import sheetview
    from webui.common.pdf import render_sheet_pdf
    from webui.common.signing import sign_pdf
    from webui.verify import main as verify_main

    sign_both(finished)
    good = tmp_path / "good.pdf"
    good.write_bytes(finished.client.get("/t/1/games/1/export.pdf").data)
    assert verify_main([str(good), "--data-dir", str(tmp_path), "--both-signed"]) == 0
    # a sheet whose record shows Ann's signature given on another sheet (what the old app
    # exported after an undo), signed by this installation all the same
    store = app.extensions["gintray"].store
    state = store.state(1)
    view = sheetview.game_view(state, state.games[0])
    view["signed_over"]["A"]["sheet_hash"] = "ab" * 32
    identity = app.extensions["gintray"].identity
    forged = tmp_path / "forged.pdf"
    forged.write_bytes(sign_pdf(render_sheet_pdf(state, view, {}, 1), identity, "test"))
    assert verify_pdf(forged.read_bytes(), identity).ok  # the file itself is intact
    assert verify_main([str(forged), "--data-dir", str(tmp_path)]) == 1
    # and a sheet without a record cannot vouch for its signatures
    del view["record"]
    bare = tmp_path / "bare.pdf"
    bare.write_bytes(sign_pdf(render_sheet_pdf(state, view, {}, 1), identity, "test"))
    assert verify_main([str(bare), "--data-dir", str(tmp_path)]) == 1


def test_the_directors_fix_of_a_dead_hand_chooses_no_winner_and_no_points(app, tablet):
    """Issue 16: the sheet's fix form showed a dead hand as 'Ann 0' (a missing winner and
    points filled in); now it asks who won and how much."""
    tablet.post("proposal", {"game": 1, "hand": 1, "kind": "dead"})
    for p in ("A", "B"):
        assert tablet.confirm(p).status_code == 200
    page = director_client(app).get("/t/1/sheet").get_data(as_text=True)
    fix = re.search(r'director: hand 1 is</small>(.*?)</form>', page, re.S).group(1)
    assert '<option value="" selected disabled>who won?</option>' in fix
    assert re.search(r'<option value="A"\s*>', fix) and 'value="" required class' in fix

