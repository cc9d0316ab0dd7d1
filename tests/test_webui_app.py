"""The table web app through Flask's test client: joining, the confirm flow, bad requests."""

from __future__ import annotations

import re
import threading

import pytest
from webui_helpers import (
    GIN_A,
    GIN_B,
    KNOCK_B,
    Tablet,
    csrf_token,
    director_client,
    join,
    make_app,
    pin_of,
)


def events_of(app, table_id=1):
    return app.extensions["gintray"].store.events(table_id)


# --- joining and trust --------------------------------------------------------------------------

def test_unjoined_tablet_is_sent_to_the_join_page(app):
    client = app.test_client()
    r = client.get("/t/1")
    assert r.status_code == 302 and r.headers["Location"].endswith("/t/1/join")


def test_join_with_the_right_pin_opens_the_table(app):
    client = app.test_client()
    r = join(client, app)
    assert r.status_code == 302 and r.headers["Location"].endswith("/t/1")
    page = client.get("/t/1").get_data(as_text=True)
    assert "Hand 1" in page and "Ann" in page and "Ben" in page


def test_wrong_pin_is_refused_and_the_device_stays_out(app):
    client = app.test_client()
    wrong = "000000" if pin_of(app) != "000000" else "111111"
    r = join(client, app, pin=wrong)
    assert r.status_code == 403
    assert "Wrong PIN" in r.get_data(as_text=True)
    assert client.get("/t/1").status_code == 302  # still not joined


def test_repeated_wrong_pins_lock_joining_for_a_while(app):
    client = app.test_client()
    wrong = "000000" if pin_of(app) != "000000" else "111111"
    codes = [join(client, app, pin=wrong).status_code for _ in range(6)]
    assert codes[:5] == [403] * 5 and codes[5] == 429
    assert join(client, app).status_code == 429  # even the right PIN waits


def test_pin_back_off_is_per_address_survives_a_restart_and_grows(tmp_path, monkeypatch):
    """Issue 15 item 7: 5 wrong PINs locked the real players out of the table for 5 minutes,
    and a restart reset the count."""
    from datetime import timedelta

    from webui.common import attempts

    app = make_app(tmp_path)
    stranger = app.test_client()
    stranger.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    wrong = "000000" if pin_of(app) != "000000" else "111111"
    assert [join(stranger, app, pin=wrong).status_code for _ in range(6)][-1] == 429
    # the players' own tablets (other addresses) still join
    player = app.test_client()
    player.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    assert join(player, app, seat="A").status_code == 302
    # a restart (a new app on the same database) still makes the stranger wait
    again = make_app(tmp_path)
    stranger2 = again.test_client()
    stranger2.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    r = join(stranger2, again, pin=wrong)
    assert r.status_code == 429 and "Wait 30 seconds" in r.get_data(as_text=True)
    # back-off: after the wait one more try, then a doubled wait
    start = attempts.now()
    monkeypatch.setattr(attempts, "now", lambda: start + timedelta(seconds=31))
    assert join(stranger2, again, pin=wrong).status_code == 403
    r = join(stranger2, again, pin=wrong)
    assert r.status_code == 429 and "Wait 60 seconds" in r.get_data(as_text=True)
    monkeypatch.setattr(attempts, "now", lambda: start + timedelta(seconds=200))
    assert join(stranger2, again, seat="B").status_code == 302  # never locked for good


def test_director_login_backs_off_per_address(app):
    """Issue 15 item 7: 30 wrong director passwords in 6 s, then the right one worked."""
    director_client(app)  # sets the password
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    token = csrf_token(guesser, "/director/login")
    codes = [guesser.post("/director/login", data={"csrf_token": token, "password": "guess"}
                          ).status_code for _ in range(6)]
    assert codes[:5] == [403] * 5 and codes[5] == 429
    r = guesser.post("/director/login", data={"csrf_token": token, "password": "director-pass"})
    assert r.status_code == 429
    director_client(app)  # the director's own machine is not locked out


def test_missing_csrf_token_is_refused_on_forms_and_api(app, tablet):
    client = app.test_client()
    r = client.post("/t/1/join", data={"pin": pin_of(app), "seat": "both"})
    assert r.status_code == 400
    before = len(events_of(app))
    r = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "7D"}, token=False)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "csrf"
    assert len(events_of(app)) == before


def test_device_that_did_not_join_cannot_change_anything(app, tablet):
    stranger = app.test_client()
    token = csrf_token(stranger, "/")
    r = stranger.post("/api/t/1/knock-card", json={"game": 1, "hand": 1, "card": "7D"},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 403
    assert tablet.hand()["up_card"] is None


def test_tablet_joined_for_one_player_cannot_confirm_for_the_other(app):
    ann = Tablet(app, seat="A")
    assert ann.knock_card("9H").status_code == 200
    assert ann.propose_knock().status_code == 200
    assert ann.confirm("B").status_code == 403
    assert ann.confirm("A").status_code == 200


def test_table_screen_with_pin_only_on_this_machine(app):
    local = app.test_client()
    page = local.get("/t/1/screen").get_data(as_text=True)
    assert pin_of(app) in page
    svg = local.get("/t/1/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "192.168.1.50"
    assert remote.get("/t/1/screen").status_code == 403
    assert remote.get("/t/1/qr.svg").status_code == 403


# --- a hand from the deal to both confirmations ---------------------------------------------------

def test_a_hand_from_knock_card_to_both_confirmations(app, tablet):
    r = tablet.knock_card("9h")
    assert r.status_code == 200
    state = r.get_json()["state"]
    assert state["knock"]["code"] == "9H" and state["knock"]["limit"] == 9
    r = tablet.propose_knock()
    assert r.status_code == 200
    hand = r.get_json()["state"]["current_hand"]
    result = hand["proposal"]["result"]
    assert (result["outcome"], result["winner"], result["points"]) == ("knock", "A", 7)
    assert {lay["card"] for lay in result["layoffs"]} == {"8D", "QD"}
    page = tablet.client.get("/t/1/panel").get_data(as_text=True)  # Ann's tablet
    assert "Ann: confirm" in page and "Ben: confirm" not in page and "scores" in page
    assert "waiting for Ben to confirm" in page
    page = tablet.tablets["B"].client.get("/t/1/panel").get_data(as_text=True)
    assert "Ben: confirm" in page and "Ann: confirm" not in page
    assert tablet.confirm("A").status_code == 200
    assert not tablet.state()["games"][0]["hands"][0]["confirmed"]
    assert tablet.confirm("B").status_code == 200
    state = tablet.state()
    first = state["games"][0]["hands"][0]
    assert first["confirmed"] and first["confirmed_by"] == ["A", "B"]
    assert state["games"][0]["sheet"]["hands"][0]["totals"] == {"A": 7, "B": 0}
    # tournament deals: the winner of a hand deals the next one
    assert state["current_hand"]["number"] == 2 and state["current_hand"]["dealer"] == "A"
    sheet = tablet.client.get("/t/1/sheet").get_data(as_text=True)
    assert "Ann knocks (5 v 12)" in sheet


def test_gin_and_an_ace_knock_card_means_gin_only(app, tablet):
    assert tablet.knock_card("AS").status_code == 200
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "GIN ONLY" in panel
    r = tablet.propose(kind="score", knocker="A", cards={"A": " ".join(GIN_A),
                                                         "B": " ".join(GIN_B)})
    assert r.status_code == 200
    result = r.get_json()["state"]["current_hand"]["proposal"]["result"]
    assert (result["outcome"], result["points"]) == ("gin", 55)


def test_knocking_over_the_limit_is_refused_with_the_reason(app, tablet):
    tablet.knock_card("AS")  # gin only: Ann's knock with 5 is improper
    before = len(events_of(app))
    r = tablet.propose_knock()
    assert r.status_code == 422
    assert r.get_json()["error"]["message"]
    assert len(events_of(app)) == before
    # accepting it needs the defender within the limit too (000 rule 9): the engine says why
    r = tablet.propose(kind="score", knocker="A", cards={"A": "5S", "B": " ".join(KNOCK_B)},
                       melds={"A": "2C 3C 4C | 7H 7S 7D | 9D TD JD"}, improper_accepted=True)
    assert r.status_code == 422 and "cannot accept" in r.get_json()["error"]["message"]
    # players can still enter the outcome they agree on by hand
    r = tablet.propose(kind="manual", winner="B", points=30, note="played open, B scores")
    assert r.status_code == 200
    assert tablet.hand()["proposal"]["result"]["points"] == 30


def test_changing_the_knock_card_rescores_and_voids_confirmations(app, tablet):
    tablet.knock_card("9H")
    tablet.propose_knock()
    assert tablet.confirm("A").status_code == 200
    assert tablet.knock_card("3H").status_code == 200  # limit 3: Ann's 5 is now too much
    hand = tablet.hand()
    assert hand["confirmed_by"] == [] and hand["proposal"]["error"]
    assert tablet.confirm("B").status_code == 409


def test_dead_hand_scores_nothing_and_the_same_dealer_deals(app, tablet):
    tablet.knock_card("9H")
    assert tablet.propose(kind="dead").status_code == 200
    tablet.confirm("A")
    tablet.confirm("B")
    state = tablet.state()
    assert state["games"][0]["sheet"]["hands"][0]["dead"] is True
    assert state["current_hand"]["dealer"] == "A"  # game 1 starts with A dealing


@pytest.mark.parametrize(("cards", "code"), [
    ({"A": "5S ZZ", "B": " ".join(KNOCK_B)}, "bad_card"),
    ({"A": "5S 5S", "B": " ".join(KNOCK_B)}, "duplicate_card"),
    ({"A": "KS", "B": " ".join(KNOCK_B)}, "duplicate_card"),
])
def test_malformed_or_duplicate_cards_are_refused_and_nothing_is_lost(app, tablet, cards, code):
    tablet.knock_card("9H")
    before = len(events_of(app))
    r = tablet.propose(kind="score", knocker="A", cards=cards,
                       melds={"A": "2C 3C 4C | 7H 7S 7D | 9D TD JD"})
    assert r.status_code == 400
    error = r.get_json()["error"]
    assert error["code"] == code and error["message"]
    assert len(events_of(app)) == before
    assert tablet.knock_card("X9").get_json()["error"]["code"] == "bad_card"


def test_form_post_without_javascript_works_and_reports_errors(app, tablet):
    client = tablet.client
    token = csrf_token(client, "/t/1")
    r = client.post("/api/t/1/knock-card", data={"csrf_token": token, "game": "1", "hand": "1",
                                                 "card": "QQ"})
    assert r.status_code == 303
    assert "QQ" in client.get("/t/1").get_data(as_text=True)  # the error is flashed
    client.post("/api/t/1/knock-card", data={"csrf_token": token, "game": "1", "hand": "1",
                                             "card": "9H"})
    r = client.post("/api/t/1/proposal", data={
        "csrf_token": token, "game": "1", "hand": "1", "kind": "score", "knocker": "A",
        "melds_A": "2C 3C 4C | 7H 7S 7D | 9D TD JD", "cards_A": "5S",
        "melds_B": "", "cards_B": " ".join(KNOCK_B)})
    assert r.status_code == 303
    assert tablet.hand()["proposal"]["result"]["winner"] == "A"


# --- confirmations under pressure ---------------------------------------------------------------

def test_double_confirmation_is_refused(app, tablet):
    tablet.knock_card("9H")
    tablet.propose_knock()
    assert tablet.confirm("A").status_code == 200
    r = tablet.confirm("A")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "already_confirmed"
    assert sum(1 for e in events_of(app) if e.kind == "confirmed") == 1


def test_confirming_what_was_corrected_meanwhile_is_refused(app):
    ann, ben = Tablet(app, seat="A"), Tablet(app, seat="B")
    ann.knock_card("9H")
    ann.propose_knock()
    seen = ann.hand()["revision"]  # Ann looks at the proposal...
    r = ben.propose(kind="score", knocker="A", cards={"A": " ".join(GIN_A),
                                                      "B": " ".join(GIN_B)})
    assert r.status_code == 200  # ...Ben corrects it to a gin...
    r = ann.confirm("A", revision=seen)  # ...Ann's tap was for the old result
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "changed"
    assert ann.hand()["confirmed_by"] == []


def test_confirm_racing_a_correction_never_confirms_an_unseen_result(app):
    ann, ben = Tablet(app, seat="A"), Tablet(app, seat="B")
    outcomes = set()
    for _ in range(10):
        hand = ann.hand()
        if hand["up_card"] is None:
            ann.knock_card("9H")
        ann.propose_knock()  # (back to) the 7-point knock both are about to confirm
        assert ben.confirm("B").status_code == 200
        seen = ann.hand()
        results = {}

        def confirm(seen=seen, results=results):
            results["confirm"] = ann.confirm("A", revision=seen["revision"]).status_code

        def correct(results=results):
            results["correct"] = ben.propose(kind="score", knocker="A", cards={
                "A": " ".join(GIN_A), "B": " ".join(GIN_B)}).status_code

        threads = [threading.Thread(target=confirm), threading.Thread(target=correct)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        game = ann.state()["games"][0]
        raced = game["hands"][seen["number"] - 1]
        if raced["confirmed"]:
            # the confirmation won: the hand is closed as both saw it; the late correction
            # found a new hand and was refused or went to the next hand... never to this one
            assert raced["revision"] == seen["revision"]
            assert raced["proposal"]["result"]["points"] == 7
            outcomes.add("confirmed first")
        else:
            # the correction won: Ann's confirmation was refused or voided with it
            assert raced["proposal"]["result"]["points"] == 55
            assert raced["confirmed_by"] == []
            outcomes.add("corrected first")
    assert outcomes  # at least one race ran to a consistent end


def test_retried_request_with_the_same_id_lands_once(app, tablet):
    tablet.knock_card("9H")
    tablet.propose_knock()
    h = tablet.hand()
    body = {"game": 1, "hand": 1, "player": "A", "revision": h["revision"],
            "request_id": "tap-123"}
    first = tablet.post("confirm", body)
    again = tablet.post("confirm", body)
    assert first.status_code == 200 and again.status_code == 200
    assert again.get_json()["duplicate"] is True
    assert sum(1 for e in events_of(app) if e.kind == "confirmed") == 1


def test_undo_is_an_event_and_history_keeps_everything(app, tablet):
    tablet.knock_card("9H")
    tablet.propose_knock()
    tablet.confirm("A")
    confirm_seq = next(e.seq for e in events_of(app) if e.kind == "confirmed")
    r = tablet.post("undo", {"target_seq": confirm_seq})
    assert r.status_code == 200
    assert tablet.hand()["confirmed_by"] == []
    kinds = [e.kind for e in events_of(app)]
    assert kinds.count("confirmed") == 1 and kinds[-1] == "undo"
    history = tablet.client.get("/t/1/history").get_data(as_text=True)
    assert "Ann confirmed hand 1" in history and "undid a confirmation" in history
    assert "Ann&#39;s tablet (tablet A)" in history
    assert tablet.post("undo", {"target_seq": 1}).status_code == 400  # table creation: no


def test_confirmed_hands_survive_a_restart(tmp_path):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.knock_card("9H")
    tablet.propose_knock()
    tablet.confirm("A")
    tablet.confirm("B")
    app.extensions["gintray"].store.engine.dispose()
    again = make_app(tmp_path)
    state = again.extensions["gintray"].store.state(1).to_json()
    assert state["games"][0]["hands"][0]["confirmed"]
    assert state["games"][0]["sheet"]["hands"][0]["totals"] == {"A": 7, "B": 0}


def test_sqlite_runs_in_wal_mode(app):
    with app.extensions["gintray"].store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_history_exports_and_state_need_a_joined_tablet_off_this_machine(app):
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "192.168.1.77"
    for path in ("/t/1/history", "/api/t/1/state", "/t/1/games/1/export.json",
                 "/t/1/games/1/export.csv", "/api/t/1/events"):
        assert remote.get(path).status_code == 403, path
    assert remote.get("/t/1/sheet").status_code == 200  # the score sheet itself is public
    Tablet(app, seat="A", remote="192.168.1.78")
    joined = Tablet(app, seat="B", remote="192.168.1.77")
    assert joined.client.get("/t/1/history").status_code == 200


def test_hollywood_sheet_shows_three_columns(tmp_path):
    from webui.store import Actor

    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table = store.create_table("Hollywood", {"name": "Hollywood",
                                             "players": {"A": "Ann", "B": "Ben"},
                                             "rules": {"preset": "tournament", "hollywood": True},
                                             "camera": None}, Actor("test"))
    tablet = Tablet(app, table_id=table)
    tablet.play_manual_hand("A", 30)
    tablet.play_manual_hand("A", 20)
    tablet.play_manual_hand("B", 10)
    sheet = tablet.state()["games"][0]["sheet"]
    columns = [c["totals"] for c in sheet["hollywood"]]
    assert columns == [{"A": 50, "B": 10}, {"A": 20, "B": 0}, {"A": 0, "B": 0}]
    page = tablet.client.get(f"/t/{table}/sheet").get_data(as_text=True)
    assert "Hollywood" in page and "game 3" in page


def test_a_confirmation_by_mistake_can_be_undone_from_the_next_hand(app, tablet):
    tablet.knock_card("9H")
    tablet.propose_knock()
    tablet.confirm("A")
    tablet.confirm("B")
    assert tablet.hand()["number"] == 2
    # the undo button names what it undoes (it said "the last change to hand 1" on hand 2's
    # page), and each tablet is offered its own player's confirmation only
    ann_panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "Undo Ann&#39;s confirmation of hand 1" in ann_panel
    panel = tablet.tablets["B"].client.get("/t/1/panel").get_data(as_text=True)
    assert "Undo Ben&#39;s confirmation of hand 1" in panel
    target = int(re.search(r'name="target_seq" value="(\d+)"', panel).group(1))
    assert tablet.post("undo", {"target_seq": target}).status_code == 200
    hand = tablet.hand()
    assert hand["number"] == 1 and hand["confirmed_by"] == ["A"]


def test_a_tablet_cannot_undo_the_other_players_confirmation(app):
    """Issue 15 item 2: Ann's tablet undid Ben's confirmation of a completed hand (200)."""
    ann, ben = Tablet(app, seat="A"), Tablet(app, seat="B")
    assert ann.knock_card("9H").status_code == 200
    assert ann.propose(kind="manual", winner="A", points=22).status_code == 200
    assert ann.confirm("A").status_code == 200
    assert ben.confirm("B").status_code == 200
    bens = max(e.seq for e in events_of(app) if e.kind == "confirmed")
    r = ann.post("undo", {"target_seq": bens})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "not_your_confirmation"
    assert ann.state()["games"][0]["hands"][0]["confirmed"]  # the hand stays on the sheet
    assert ben.post("undo", {"target_seq": bens}).status_code == 200  # Ben's own tablet may
    director = director_client(app)
    token = csrf_token(director, "/t/1")
    anns = min(e.seq for e in events_of(app) if e.kind == "confirmed")
    r = director.post("/api/t/1/undo", json={"target_seq": anns},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200  # the director acts for both


def test_join_asks_whose_tablet_and_refuses_both(app):
    """Issue 15 item 2: a device joined "for both players" by default confirmed alone for both."""
    client = app.test_client()
    page = client.get("/t/1/join").get_data(as_text=True)
    assert 'value="both"' not in page and "Whose tablet is this?" in page
    assert 'checked' not in page  # no default player either
    assert join(client, app, seat="both").status_code == 400
    token = csrf_token(client, "/t/1/join")
    r = client.post("/t/1/join", data={"csrf_token": token, "pin": pin_of(app)})
    assert r.status_code == 400 and "Choose whose tablet" in r.get_data(as_text=True)
    # a device joined for both before this change confirms for nobody
    _device, secret = app.extensions["gintray"].store.add_device(1, "old shared", "both")
    with client.session_transaction() as session:
        session["devices"] = {"1": secret}
    token = csrf_token(client, "/t/1")
    client.post("/api/t/1/knock-card", json={"game": 1, "hand": 1, "card": "9H"},
                headers={"X-CSRFToken": token})
    client.post("/api/t/1/proposal", json={"game": 1, "hand": 1, "kind": "dead"},
                headers={"X-CSRFToken": token})
    revision = app.extensions["gintray"].store.state(1).current_hand().revision
    for player in ("A", "B"):
        r = client.post("/api/t/1/confirm", json={"game": 1, "hand": 1, "player": player,
                                                  "revision": revision},
                        headers={"X-CSRFToken": token})
        assert r.status_code == 403


def test_wrong_number_of_cards_is_scored_with_the_penalty_and_shown(app, tablet):
    tablet.knock_card("9H")
    nine = " ".join(c for c in KNOCK_B if c != "2D")  # Ben holds nine cards
    r = tablet.propose(kind="score", knocker="A", cards={"A": "5S", "B": nine},
                       melds={"A": "2C 3C 4C | 7H 7S 7D | 9D TD JD"})
    assert r.status_code == 200, r.get_json()
    result = r.get_json()["state"]["current_hand"]["proposal"]["result"]
    assert result["penalties"].get("B")
    assert result["points"] == 7 - 2 + 10  # 2D gone, 10 points for the missing card
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "Wrong number of cards" in panel


@pytest.mark.parametrize(("path", "body"), [
    ("knock-card", {}),
    ("knock-card", {"game": "x", "hand": [], "card": None}),
    ("proposal", {"game": 1, "hand": 1, "kind": "nope"}),
    ("proposal", {"game": 1, "hand": 1, "kind": "score", "knocker": "C"}),
    ("proposal", {"game": 1, "hand": 1, "kind": "score", "knocker": "A", "cards": "5S"}),
    ("proposal", {"game": 1, "hand": 1, "kind": "score", "knocker": "A",
                  "cards": {"A": [1, 2]}, "melds": {"A": 7}}),
    ("proposal", {"game": 1, "hand": 1, "kind": "manual", "winner": "A", "points": "lots"}),
    ("confirm", {"game": 1, "hand": 1, "player": "A", "revision": "x"}),
    ("confirm", {"game": 1, "hand": 1, "player": None}),
    ("undo", {"target_seq": "last"}),
    ("undo", {"target_seq": 999}),
    ("sign", {"game": "one", "player": "A", "png": 5}),
    ("next-game", {"dealer": 5}),
    ("reopen", {"game": 1}),
])
def test_malformed_requests_get_a_clear_error_not_a_crash(app, tablet, path, body):
    tablet.knock_card("9H")
    r = tablet.post(path, body)
    assert 400 <= r.status_code < 500, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.get_json()["error"]["message"]


def test_non_object_json_body_is_refused(app, tablet):
    r = tablet.client.post("/api/t/1/knock-card", json=[1, 2],
                           headers={"X-CSRFToken": tablet.token})
    assert r.status_code == 400


def test_unknown_tables_games_and_pictures_are_not_found(app, tablet):
    for path in ("/t/99", "/t/99/join", "/t/1/games/9/export.pdf", "/t/1/games/9/sign",
                 "/t/1/snapshots/..%2Fkey.pem", "/t/1/snapshots/nope.jpg", "/api/t/99/state",
                 "/api/t/1/camera.jpg"):
        assert tablet.client.get(path).status_code == 404, path
    assert tablet.post("../99/knock-card", {}).status_code == 404


def test_folding_a_long_game_computes_its_sheet_once(app, tablet, monkeypatch):
    """Issue 15 item 15: each confirmation recomputed the whole sheet while folding, so a
    restart grew quadratically with the hands (995 hands: 7.1 s). Counted, not timed."""
    from webui.store import engine, state

    for i in range(12):
        tablet.play_manual_hand("AB"[i % 2], 10)
    events = app.extensions["gintray"].store.events(1)
    calls = []
    real = engine.sheet
    monkeypatch.setattr(engine, "sheet", lambda *a, **k: calls.append(1) or real(*a, **k))
    folded = state.fold(1, events)
    assert len(folded.games[0].confirmed_hands) == 12 and not calls
    assert folded.games[0].sheet.hands[-1]["totals"] == {"A": 60, "B": 60}
    assert len(calls) == 1
