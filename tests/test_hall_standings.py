"""Standings on a real PostgreSQL event database keyed on who plays, not how the name was
typed; only tables on the event's rules count; partnership boards must be partnership tables."""

from __future__ import annotations

import hall_helpers
from hall_helpers import new_table, play_hand

from webui.hall.players import player_key

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def test_a_name_typed_two_ways_is_one_player():
    assert player_key("Frank") == player_key("frank") == player_key("  FRANK ")
    assert player_key("Anne  Marie") == player_key("anne marie") == player_key("Anne\tMarie")
    assert player_key("Ｆｒａｎｋ") == player_key("Frank")  # full-width letters (NFKC)
    assert player_key("Frank") != player_key("Franck")


def test_standings_count_one_player_however_the_name_was_typed(hall):
    _app, client, store = hall
    t1 = new_table(store, "Table 1", "Frank", "Gil")
    t2 = new_table(store, "Table 2", "frank ", "Hal")
    play_hand(store, t1, "A", gin=True)  # Frank 97 on table 1, no game over yet
    for _ in range(3):
        play_hand(store, t2, "A", gin=True)  # frank wins game 1 of table 2
    rows = client.get("/api/event").get_json()["standings"]
    franks = [r for r in rows if player_key(r["name"]) == "frank"]
    assert len(franks) == 1, rows
    (frank,) = franks
    assert frank["name"] == "Frank" and frank["spellings"] == ["Frank", "frank"]
    assert frank["tables"] == [t1, t2] and frank["games_won"] == 1 and frank["rank"] == 1
    page = client.get("/").get_data(as_text=True)
    assert "also entered as frank" in page


def test_a_practice_table_on_other_rules_does_not_count(hall):
    _app, client, store = hall
    event_table = new_table(store, "Table 1", "Ann", "Bob")
    practice = new_table(store, "Practice", "Ann", "Cy", rules="standard")
    for _ in range(3):
        play_hand(store, practice, "A", gin=True)  # standard rules: a game to 100 each hand
    play_hand(store, event_table, "B")
    ev = client.get("/api/event").get_json()
    rows = {r["name"]: r for r in ev["standings"]}
    assert "Cy" not in rows and rows["Ann"]["tables"] == [event_table]
    assert rows["Ann"]["games_won"] == 0 and rows["Ann"]["points_for"] == 0
    assert ev["standings_left_out"] == [{"table": practice, "name": "Practice", "reason":
                                         "plays standard rules, the event plays tournament"}]
    assert "Not counted: table" in client.get("/").get_data(as_text=True)
    # the director says the event plays standard rules: now only the practice table counts
    r = client.post("/event-rules", data={"rules": "standard", "csrf_token": client.csrf})
    assert r.status_code == 303
    rows = {r["name"]: r for r in client.get("/api/event").get_json()["standings"]}
    assert set(rows) == {"Ann", "Cy"} and rows["Ann"]["tables"] == [practice]
    r = client.post("/event-rules", data={"rules": "made-up", "csrf_token": client.csrf})
    assert r.status_code == 400


def test_a_partnership_board_must_be_a_partnership_table(hall):
    _app, client, store = hall
    singles = new_table(store, "Table 1", "Ann", "Cy")
    board = new_table(store, "Board 2", "Bob", "Di", rules="partnership")
    r = client.post("/partnerships", data={"team_A": "Aces", "team_B": "Kings",
                                           "board_1": singles, "board_2": board,
                                           "csrf_token": client.csrf}, follow_redirects=True)
    page = r.get_data(as_text=True)
    assert f"table {singles} plays tournament rules" in page
    assert "must be a table with the partnership rules" in page
    assert client.get("/api/event").get_json()["partnerships"] == []
    # the singles table stays in the standings
    play_hand(store, singles, "A")
    names = {r["name"] for r in client.get("/api/event").get_json()["standings"]}
    assert names == {"Ann", "Cy"}


def test_standings_print_page_and_csv(hall):
    _app, client, store = hall
    t1 = new_table(store, "Table 1", "Frank", "=cmd()")
    t2 = new_table(store, "Table 2", "frank", "Gil")
    new_table(store, "Practice", "Hal", "Ida", rules="standard")
    for _ in range(3):
        play_hand(store, t1, "A", gin=True)
    play_hand(store, t2, "B")
    r = client.get("/standings.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert "attachment" in r.headers["Content-Disposition"]
    lines = r.get_data(as_text=True).splitlines()
    assert lines[0].startswith("rank,player,also entered as,matches won")
    assert lines[1].startswith(f"1,Frank,frank,0,0,1,0,{(291 + 100) * 2 + 75},0,"
                               f"{(291 + 100) * 2 + 75},{t1} {t2},0,")  # no adjustment
    assert any(line.startswith("3,'=cmd()") for line in lines)  # no formula in a spreadsheet
    assert not any("Hal" in line for line in lines)  # other rules: not counted
    page = client.get("/standings/print")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'id="standings-print"' in text and "Frank" in text and "csrf_token" not in text
    assert "Not counted: table" in text and "print.css" in text
    assert "@media print" in client.get("/hall-static/print.css").get_data(as_text=True)
    assert client.get("/").get_data(as_text=True).count("/standings/print") == 1
