"""Entries (issue 27 item 4): the registration list, a late entry paired before playing
anywhere, a withdrawal (results stand, not paired again), a no-show decided by forfeit, an
approved pairing undone before play (tables withdrawn, bye taken back) and a manual swap. A
real PostgreSQL event database."""

from __future__ import annotations

from typing import Any

import hall_helpers
from hall_helpers import play_hand, win_match

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def post(client: Any, path: str, **data: Any) -> Any:
    return client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)


def ev(client: Any) -> dict[str, Any]:
    return client.get("/api/event").get_json()


def rows(client: Any) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in ev(client)["standings"]}


def paired(pairing: dict[str, Any]) -> set[str]:
    return {p[s]["name"] for p in pairing["pairs"] for s in "AB"}


def test_late_entry_withdrawal_forfeit_undo_and_swap(hall):
    _app, client, store = hall
    post(client, "/draw", entrants="Ann\nBen\nCy\nDi")
    post(client, "/draw/seat")
    assert [e["name"] for e in ev(client)["entries"]] == ["Ann", "Ben", "Cy", "Di"]
    post(client, "/round", number=1, minutes=60)
    first, second = store.tables()
    win_match(store, first.id, "A")
    absent = store.state(second.id).players["B"]
    came = store.state(second.id).players["A"]
    page = post(client, f"/tables/{second.id}/forfeit", absent="B").get_data(as_text=True)
    assert f"{came} wins by forfeit: {absent} did not show." in page
    r = rows(client)
    assert (r[came]["matches_won"], r[came]["matches"], r[came]["points_for"]) == (1, 1, 0)
    assert (r[absent]["matches_won"], r[absent]["matches"]) == (0, 1)
    assert ev(client)["round"]["playing"] == []  # the forfeited table no longer plays

    page = post(client, "/entries", names="Eve").get_data(as_text=True)
    assert "Entered from round 2: Eve." in page
    assert "is entered already" in post(
        client, "/entries", names="eve").get_data(as_text=True)
    assert rows(client)["Eve"]["matches"] == 0  # in the standings before playing anywhere
    ids = {e["name"]: e["player_id"] for e in ev(client)["entries"]}
    post(client, f"/entries/{ids['Ben']}/withdraw")
    assert rows(client)["Ben"]["withdrawn"]

    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    everyone = paired(pairing) | {b["name"] for b in pairing["byes"]}
    assert everyone == {"Ann", "Cy", "Di", "Eve"}  # Eve paired, Ben not

    # a manual swap of the proposal, then approve and undo before play
    a, b = pairing["pairs"][0]["A"], pairing["pairs"][1]["A"]
    post(client, f"/pairing/{pairing['id']}/swap", first=a["player_id"],
         second=b["player_id"])
    swapped = ev(client)["pairing"]
    assert swapped["pairs"][0]["A"]["name"] == b["name"]
    assert swapped["pairs"][1]["A"]["name"] == a["name"]
    before = len(store.tables())
    post(client, f"/pairing/{pairing['id']}/approve")
    opened = [t.id for t in store.tables()][before:]
    assert len(opened) == 2
    page = post(client, f"/pairing/{pairing['id']}/undo").get_data(as_text=True)
    assert "Round 2 pairing undone" in page
    event = ev(client)
    assert event["next_round"] == 2 and event["pairing"]["status"] == "undone"
    left_out = {t["table"]: t["reason"] for t in event["standings_left_out"]}
    assert all(left_out[t] == "its pairing was undone" for t in opened)
    # the round is paired again (no meeting counted at the undone tables)
    post(client, "/pairing")
    again = ev(client)["pairing"]
    post(client, f"/pairing/{again['id']}/approve")
    post(client, "/round", number=2, minutes=60)
    assert ev(client)["round"]["table_count"] == 2
    assert "Not undone: round 2 is on the clock already" in post(
        client, f"/pairing/{again['id']}/undo").get_data(as_text=True)
    play_hand(store, ev(client)["round"]["tables"][0], "A")  # round 2 plays
    assert len(ev(client)["round"]["playing"]) == 2
