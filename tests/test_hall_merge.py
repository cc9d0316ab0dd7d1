"""Merging two player ids on a real PostgreSQL ("Frank" at one table, "Franck" at another):
a director's page, audited; the standings recount them as one player (results,
adjustments, later tables); refused for players who met; undone."""

from __future__ import annotations

import hall_helpers
import pytest
from hall_helpers import new_table, play_hand

from webui.hall import audit, merges
from webui.hall.merges import MergeError

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def rows_by_name(client) -> dict[str, dict]:
    return {r["name"]: r for r in client.get("/api/event").get_json()["standings"]}


def test_merging_franck_into_frank_recounts_the_standings(hall):
    _app, client, store = hall
    t1 = new_table(store, "Table 1", "Frank", "Gil")
    for _ in range(3):
        play_hand(store, t1, "A", gin=True)  # Frank wins game 1
    t2 = new_table(store, "Table 2", "Hal", "Franck")
    play_hand(store, t2, "B")
    for _ in range(3):
        play_hand(store, t2, "B", gin=True)  # Franck wins game 1 (after a knock)
    rows = rows_by_name(client)
    assert {"Frank", "Franck"} <= set(rows)
    frank, franck = rows["Frank"], rows["Franck"]
    client.post("/adjustments", data={"kind": "penalty", "player_id": franck["player_id"],
                                      "points": 10, "reason": "late",
                                      "csrf_token": client.csrf})
    page = client.get("/players").get_data(as_text=True)
    assert 'id="merge"' in page and f"Franck (#{franck['player_id']})" in page

    r = client.post("/players/merge", data={
        "from_id": franck["player_id"], "into_id": frank["player_id"],
        "reason": "one person, typed two ways", "csrf_token": client.csrf},
        follow_redirects=True)
    text = r.get_data(as_text=True)
    assert (f"Franck (player {franck['player_id']}) merged into Frank (player "
            f"{frank['player_id']}): the standings count them as one player.") in text
    assert "one person, typed two ways" in text  # listed under Merged
    rows = rows_by_name(client)
    assert "Franck" not in rows
    one = rows["Frank"]
    assert one["player_id"] == frank["player_id"] and one["tables"] == [t1, t2]
    assert one["spellings"] == ["Frank", "Franck"] and one["games_won"] == 2
    assert one["points_for"] == frank["points_for"] + franck["points_for"]
    assert one["adjustment"] == -10  # Franck's penalty follows
    assert one["difference"] == frank["difference"] + franck["difference"] - 10
    assert one["rank"] == 1
    (entry,) = [e for e in audit.entries(store) if e.action is audit.AuditAction.MERGE]
    assert entry.director == "director" and "one person, typed two ways" in entry.detail

    # a later table where the name is typed "franck" counts for Frank too
    t3 = new_table(store, "Table 3", "franck", "Ida")
    play_hand(store, t3, "A")
    assert rows_by_name(client)["Frank"]["tables"] == [t1, t2, t3]
    # the pairing sees one player: Frank, Gil, Hal, Ida
    client.post("/pairing", data={"system": "swiss", "csrf_token": client.csrf})
    pr = client.get("/api/event").get_json()["pairing"]
    paired = {p[s]["name"] for p in pr["pairs"] for s in "AB"}
    assert paired == {"Frank", "Gil", "Hal", "Ida"} and pr["bye"] is None

    # undone: two players again
    r = client.post(f"/players/{franck['player_id']}/unmerge",
                    data={"csrf_token": client.csrf}, follow_redirects=True)
    assert "Franck (player" in r.get_data(as_text=True)
    rows = rows_by_name(client)
    assert rows["Franck"]["tables"] == [t2, t3] and rows["Frank"]["tables"] == [t1]
    assert [e.action for e in audit.entries(store)][:1] == [audit.AuditAction.UNMERGE]


def test_a_merge_is_refused_when_it_cannot_be_one_person(hall):
    _app, client, store = hall
    play_hand(store, new_table(store, "Table 1", "Frank", "Gil"), "A")
    play_hand(store, new_table(store, "Table 2", "Franck", "Hal"), "A")
    ids = {n: r["player_id"] for n, r in rows_by_name(client).items()}

    def refused(from_id, into_id, reason="same person") -> str:
        r = client.post("/players/merge", data={"from_id": from_id, "into_id": into_id,
                                                "reason": reason, "csrf_token": client.csrf},
                        follow_redirects=True)
        assert r.status_code == 200
        return r.get_data(as_text=True)

    assert "Not merged: Gil and Frank played each other at a table" in refused(
        ids["Gil"], ids["Frank"])
    assert "Not merged: choose two different players" in refused(ids["Gil"], ids["Gil"])
    assert "Not merged: there is no player 9999 in this event" in refused(9999, ids["Gil"])
    assert "Not merged: say why" in refused(ids["Franck"], ids["Frank"], "  ")
    assert "Not merged: the player to merge must be a whole number" in refused("x", 1)
    assert "merged into Frank" in refused(ids["Franck"], ids["Frank"])
    assert "is merged into Frank (player" in refused(ids["Franck"], ids["Hal"])
    assert "merge into that player instead" in refused(ids["Hal"], ids["Franck"])
    assert merges.merged_ids(store) == {ids["Franck"]: ids["Frank"]}
    with pytest.raises(MergeError, match="not merged into anyone"):
        merges.unmerge(store, ids["Gil"])
    anonymous = _app.test_client()
    assert anonymous.get("/players").status_code == 403
    # a chain: Frank (with Franck merged in) merged into Ida counts Franck for Ida too
    assert "Not merged: Frank and Hal played each other" in refused(ids["Frank"], ids["Hal"])
    play_hand(store, new_table(store, "Table 3", "Ida", "Jo"), "A")
    ida = rows_by_name(client)["Ida"]["player_id"]
    assert "merged into Ida" in refused(ids["Frank"], ida)
    assert merges.merged_ids(store) == {ids["Franck"]: ida, ids["Frank"]: ida}
    assert rows_by_name(client)["Ida"]["spellings"] == ["Ida", "Frank", "Franck"]
