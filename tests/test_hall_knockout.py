"""Knockout pairing: the pure bracket (1 v N, byes to the top seeds, winners meet next), then
offered beside Swiss in the hall's pairing flow on a real PostgreSQL."""

from __future__ import annotations

import hall_helpers
import pytest
from hall_helpers import new_table, play_hand

from webui.hall.knockout import bracket_order, first_round, next_round, stage_name
from webui.hall.swiss import Entrant, PairingError

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def seeds(n: int) -> list[Entrant]:
    return [Entrant(100 + i, f"P{i}", i) for i in range(1, n + 1)]


def tables(rnd) -> list[tuple[int, int, int]]:
    return [(p.table, p.a.rank, p.b.rank) for p in rnd.pairs]


def test_bracket_order_keeps_the_top_seeds_apart():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert sorted(bracket_order(32)) == list(range(1, 33))


def test_one_plays_n_and_two_plays_n_minus_one():
    rnd = first_round(list(reversed(seeds(8))))  # any order in: ranked by seed
    assert tables(rnd) == [(1, 1, 8), (2, 2, 7), (3, 3, 6), (4, 4, 5)]
    assert rnd.byes == () and rnd.name == "quarter-finals" and rnd.stage == 1


def test_top_seeds_get_the_byes_when_the_count_is_not_a_power_of_two():
    rnd = first_round(seeds(6))
    assert [e.rank for e in rnd.byes] == [1, 2]
    assert tables(rnd) == [(1, 3, 6), (2, 4, 5)]
    rnd = first_round(seeds(5))
    assert [e.rank for e in rnd.byes] == [1, 2, 3] and tables(rnd) == [(1, 4, 5)]
    assert first_round(seeds(3)).byes[0].rank == 1
    with pytest.raises(PairingError, match="at least two"):
        first_round(seeds(1))
    with pytest.raises(PairingError, match="listed twice"):
        first_round([*seeds(2), seeds(2)[0]])


def test_later_rounds_pair_the_winners_and_the_top_seeds_meet_in_the_final():
    rnd = first_round(seeds(6))  # byes 1, 2; 3 v 6 (table 1), 4 v 5 (table 2)
    with pytest.raises(PairingError, match=r"^table 2 \(P4 v P5\) has not finished$"):
        next_round(rnd, {1: 106})
    semis = next_round(rnd, {1: 106, 2: 104})  # 6 beats 3, 4 beats 5
    assert semis.name == "semi-finals" and semis.stage == 2
    assert tables(semis) == [(1, 1, 4), (2, 2, 6)]  # 1 meets the 4/5 winner, 2 the 3/6 one
    with pytest.raises(PairingError, match="not one of its players"):
        next_round(semis, {1: 101, 2: 103})
    final = next_round(semis, {1: 101, 2: 106})
    assert final.name == "final" and tables(final) == [(1, 1, 6)]
    with pytest.raises(PairingError, match="the knockout is over: P6 won the final"):
        next_round(final, {1: 106})
    assert stage_name(8) == "round of 16"


def win_match(store, table_id: int, winner: str) -> None:
    """``winner`` wins the table's match 3-0 (three games of three gins)."""
    for _ in range(9):
        play_hand(store, table_id, winner, gin=True)


def test_a_knockout_from_the_standings_then_the_winners(hall):
    _app, client, store = hall
    # six players: Ann beats Bob, Cy beats Di (3-0); Ed and Flo play one hand
    win_match(store, new_table(store, "Table 1", "Ann", "Bob"), "A")
    win_match(store, new_table(store, "Table 2", "Cy", "Di"), "A")
    play_hand(store, new_table(store, "Table 3", "Ed", "Flo"), "A")
    ranked = [r["name"] for r in client.get("/api/event").get_json()["standings"]]
    assert ranked == ["Ann", "Cy", "Ed", "Flo", "Bob", "Di"]  # seeds 1-6
    r = client.post("/pairing", data={"system": "knockout", "top": "", "csrf_token":
                                      client.csrf}, follow_redirects=True)
    assert "Knockout pairing for round 2 (quarter-finals) proposed (2 tables, byes: Ann, Cy)"\
        in r.get_data(as_text=True)
    pr = client.get("/api/event").get_json()["pairing"]
    assert pr["system"] == "knockout" and pr["stage"] == "quarter-finals"
    assert [(p["A"]["name"], p["B"]["name"]) for p in pr["pairs"]] == [("Ed", "Di"),
                                                                          ("Flo", "Bob")]
    assert [b["name"] for b in pr["byes"]] == ["Ann", "Cy"]
    page = client.get("/").get_data(as_text=True)
    assert "Knockout, quarter-finals" in page and "bye" in page
    csv_lines = client.get(f"/pairing/{pr['id']}.csv").get_data(as_text=True).splitlines()
    assert [line.split(",")[2] for line in csv_lines[-2:]] == ["Ann", "Cy"]  # two byes
    # the semi-finals cannot be paired before the quarter-finals are played
    client.post(f"/pairing/{pr['id']}/approve", data={"csrf_token": client.csrf})
    r = client.post("/pairing", data={"system": "knockout", "csrf_token": client.csrf},
                    follow_redirects=True)
    assert ("No pairing: table 1 (Ed v Di) and table 2 (Flo v Bob) have not finished."
            in r.get_data(as_text=True))
    opened = client.get("/api/event").get_json()["pairing"]["tables"]
    win_match(store, opened[0], "B")  # Di (6) beats Ed (3)
    win_match(store, opened[1], "B")  # Bob (5) beats Flo (4)
    r = client.post("/pairing", data={"system": "knockout", "csrf_token": client.csrf},
                    follow_redirects=True)
    assert "Knockout pairing for round 3 (semi-finals) proposed" in r.get_data(as_text=True)
    pr = client.get("/api/event").get_json()["pairing"]
    # 1 Ann meets the winner of 4 v 5 (Bob), 2 Cy the winner of 3 v 6 (Di)
    assert [(p["A"]["name"], p["B"]["name"]) for p in pr["pairs"]] == [("Ann", "Bob"),
                                                                          ("Cy", "Di")]
    assert pr["byes"] == [] and pr["stage"] == "semi-finals"
    # Swiss stays on offer: it replaces the knockout proposal
    client.post("/pairing", data={"system": "swiss", "csrf_token": client.csrf})
    assert client.get("/api/event").get_json()["pairing"]["system"] == "swiss"


def test_a_knockout_of_the_top_players_only(hall):
    _app, client, store = hall
    win_match(store, new_table(store, "Table 1", "Ann", "Bob"), "A")
    play_hand(store, new_table(store, "Table 2", "Cy", "Di"), "A")
    client.post("/pairing", data={"system": "knockout", "top": "2",
                                  "csrf_token": client.csrf})
    pr = client.get("/api/event").get_json()["pairing"]
    assert [(p["A"]["name"], p["B"]["name"]) for p in pr["pairs"]] == [("Ann", "Cy")]
    assert pr["stage"] == "final"
    r = client.post("/pairing", data={"system": "knockout", "top": "x",
                                      "csrf_token": client.csrf}, follow_redirects=True)
    assert "top must be a whole number" in r.get_data(as_text=True)
    r = client.post("/pairing", data={"system": "elimination", "csrf_token": client.csrf})
    assert r.status_code == 400
