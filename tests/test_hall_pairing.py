"""Next-round Swiss pairing on a real PostgreSQL: proposed from the standings by player id,
shown to the director, approved once, sent as the seats of the next round's tables (whose
players keep their id however the name is typed there), printable and CSV."""

from __future__ import annotations

import hall_helpers
from hall_helpers import director_client_again, new_table, play_hand

from webui.hall.schema import HallSeat
from webui.store import Actor, commands

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def round_one(store) -> tuple[int, int]:
    """Ann beats Bob 3-2 (so they rank 1 and 2), Cy and Di play one hand (Cy 14)."""
    t1 = new_table(store, "Table 1", "Ann", "Bob")
    for winner in "BBAAA":
        for _ in range(3):
            play_hand(store, t1, winner, gin=True)
    t2 = new_table(store, "Table 2", "Cy", "Di")
    play_hand(store, t2, "A")
    return t1, t2


def test_swiss_pairing_is_proposed_approved_once_and_seats_the_next_round(hall):
    app, client, store = hall
    round_one(store)
    client.post("/round", data={"number": 1, "minutes": 60, "csrf_token": client.csrf})
    ev = client.get("/api/event").get_json()
    ranked = [(r["name"], r["matches_won"], r["games_won"]) for r in ev["standings"]]
    assert ranked[:2] == [("Ann", 1, 3), ("Bob", 0, 2)]
    ids = {r["name"]: r["player_id"] for r in ev["standings"]}
    assert len(set(ids.values())) == 4 and ev["next_round"] == 2

    r = client.post("/pairing", data={"csrf_token": client.csrf}, follow_redirects=True)
    page = r.get_data(as_text=True)
    assert "Pairing for round 2 proposed (2 tables, 0 rematch(es))" in page
    assert "Approve and open these tables" in page
    pr = client.get("/api/event").get_json()["pairing"]
    assert pr["status"] == "proposed" and pr["rematches"] == 0 and pr["round"] == 2
    pairs = [(p["A"]["name"], p["B"]["name"]) for p in pr["pairs"]]
    assert pairs == [("Ann", "Cy"), ("Bob", "Di")]  # Ann and Bob met: the next nearest
    assert pr["pairs"][0]["A"]["player_id"] == ids["Ann"]
    before = len(store.tables())

    csv_lines = client.get(f"/pairing/{pr['id']}.csv").get_data(as_text=True).splitlines()
    assert csv_lines[0].startswith("round,table,seat A,seat A id")
    assert csv_lines[1] == f"2,1,Ann,{ids['Ann']},1,Cy,{ids['Cy']},3,"
    printed = client.get(f"/pairing/{pr['id']}/print").get_data(as_text=True)
    assert 'id="pairing-print"' in printed and "Round 2" in printed
    assert "csrf_token" not in printed

    other = director_client_again(app)
    r = client.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": client.csrf},
                    follow_redirects=True)
    assert "Round 2 approved: tables" in r.get_data(as_text=True)
    r = other.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": other.csrf},
                   follow_redirects=True)
    assert "Not approved: this pairing is approved" in r.get_data(as_text=True)
    new = [t for t in store.tables() if t.name.startswith("Round 2")]
    assert len(store.tables()) == before + 2 and [t.name for t in new] == [
        "Round 2 Table 1", "Round 2 Table 2"]
    first = store.state(new[0].id)
    assert first.players == {"A": "Ann", "B": "Cy"} and first.rules == "tournament"
    with store.Session() as s:
        seats = {(x.table_id, x.seat): x.player_id for x in s.query(HallSeat)}
    assert seats[(new[0].id, "A")] == ids["Ann"] and seats[(new[1].id, "B")] == ids["Di"]
    ev = client.get("/api/event").get_json()
    assert ev["next_round"] == 3 and ev["clock_next"] == 2
    assert ev["round"]["number"] == 1 and ev["round"]["table_count"] == 2  # not round 2's

    # the table types Ann's name otherwise: she is still player ids["Ann"]
    store.execute(new[0].id, commands.change_settings(
        "Round 2 Table 1", {"A": "Annie B.", "B": "Cy"}, "tournament", None), Actor("director"))
    for _ in range(9):
        play_hand(store, new[0].id, "A", gin=True)
    rows = {r["player_id"]: r for r in client.get("/api/event").get_json()["standings"]}
    ann = rows[ids["Ann"]]
    assert ann["matches_won"] == 2 and ann["spellings"] == ["Ann", "Annie B."]
    assert len(rows) == 4

    # starting round 2 on the clock follows the approved pairing's tables
    client.post("/round", data={"number": 2, "minutes": 40, "csrf_token": client.csrf})
    clock = client.get("/api/event").get_json()["round"]
    assert clock["number"] == 2 and clock["tables"] == [t.id for t in new]


def test_a_rematch_only_when_it_cannot_be_avoided_and_the_bye_rotates(hall):
    _app, client, store = hall
    t1 = new_table(store, "Table 1", "Ann", "Bob")
    play_hand(store, t1, "A")
    t2 = new_table(store, "Table 2", "Ann", "Cy")  # Ann met Bob and Cy
    play_hand(store, t2, "A")
    client.post("/pairing", data={"csrf_token": client.csrf})
    pr = client.get("/api/event").get_json()["pairing"]
    assert pr["bye"]["name"] in ("Bob", "Cy")  # three players: the lowest-ranked sits out
    (pair,) = pr["pairs"]
    assert pair["rematch"] and pair["A"]["name"] == "Ann"
    page = client.get("/").get_data(as_text=True)
    assert "1 rematch(es) could not be avoided" in page
    first_bye = pr["bye"]["name"]
    client.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": client.csrf})
    client.post("/pairing", data={"csrf_token": client.csrf})
    pr2 = client.get("/api/event").get_json()["pairing"]
    assert pr2["round"] == 3 and pr2["bye"]["name"] != first_bye


def test_a_replaced_proposal_cannot_be_approved_and_too_few_players_is_said(hall):
    _app, client, store = hall
    r = client.post("/pairing", data={"csrf_token": client.csrf}, follow_redirects=True)
    assert "No pairing: pairing needs at least two players" in r.get_data(as_text=True)
    play_hand(store, new_table(store, "Table 1", "Ann", "Bob"), "A")
    client.post("/pairing", data={"csrf_token": client.csrf})
    old = client.get("/api/event").get_json()["pairing"]["id"]
    client.post("/pairing", data={"csrf_token": client.csrf})
    r = client.post(f"/pairing/{old}/approve", data={"csrf_token": client.csrf},
                    follow_redirects=True)
    assert "this pairing is replaced" in r.get_data(as_text=True)
    assert client.get("/pairing/999/print").status_code == 404
