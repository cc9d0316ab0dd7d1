"""Byes count as the event's rule says (issue 27 item 3; default a match won with no games or
points), the bye player is in the standings and paired in the next round, and the next bye
goes to someone else. A real PostgreSQL event database."""

from __future__ import annotations

from typing import Any

import hall_helpers
from hall_helpers import win_match

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def post(client: Any, path: str, **data: Any) -> Any:
    return client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)


def ev(client: Any) -> dict[str, Any]:
    return client.get("/api/event").get_json()


def test_a_bye_is_a_match_won_and_the_bye_player_is_paired_next_round(hall):
    _app, client, store = hall
    post(client, "/draw", entrants="Ann\nBen\nCy")
    draw = ev(client)["draw"]
    (bye,) = [p["A"] for p in draw["pairs"] if p.get("bye")]
    post(client, "/draw/seat")
    (table,) = store.tables()
    win_match(store, table.id, "A")
    winner = store.state(table.id).players["A"]

    rows = {r["name"]: r for r in ev(client)["standings"]}
    assert set(rows) == {"Ann", "Ben", "Cy"}
    assert (rows[bye]["matches_won"], rows[bye]["matches"], rows[bye]["byes"]) == (1, 1, 1)
    assert (rows[bye]["games_won"], rows[bye]["points_for"]) == (0, 0)
    assert "(1 bye)" in client.get("/").get_data(as_text=True)

    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    (pair,) = pairing["pairs"]
    assert bye in (pair["A"]["name"], pair["B"]["name"])  # not left out of round 2
    assert pairing["bye"]["name"] != bye  # and the next bye goes to someone else
    assert {pair["A"]["name"], pair["B"]["name"]} == {bye, winner}  # the two with a win
    post(client, f"/pairing/{pairing['id']}/approve")
    second = pairing["bye"]["name"]
    rows = {r["name"]: r for r in ev(client)["standings"]}
    assert rows[second]["byes"] == 1 and rows[second]["matches_won"] == 1

    page = post(client, "/bye-rule", rule="nothing").get_data(as_text=True)
    assert "A bye counts as nothing." in page
    rows = {r["name"]: r for r in ev(client)["standings"]}
    assert (rows[bye]["matches_won"], rows[bye]["matches"]) == (0, 0)
    post(client, "/bye-rule", rule="played")
    rows = {r["name"]: r for r in ev(client)["standings"]}
    assert (rows[bye]["matches_won"], rows[bye]["matches"]) == (0, 1)
    assert "a bye counts as a match played" in client.get("/audit").get_data(as_text=True)
    assert post(client, "/bye-rule", rule="all").status_code == 200  # refused, said
