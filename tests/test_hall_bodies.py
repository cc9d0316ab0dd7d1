"""Hostile bodies to the director's correction (issue 27 item 7): JSON nested thousands deep,
or deeper than any correction, is a 400 naming the body, never a 500. A real PostgreSQL."""

from __future__ import annotations

import hall_helpers
from hall_helpers import new_table, play_hand

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def test_deeply_nested_json_is_a_clear_400(hall):
    _app, client, store = hall
    table = new_table(store, "Table 1", "Ann", "Bob")
    play_hand(store, table, "A")
    headers = {"X-CSRFToken": client.csrf, "Content-Type": "application/json"}
    for body in ("[" * 10000, "[" * 100000 + "]" * 100000,
                 '{"game": 1, "hand": 1, "revision": 1, "cards": ' + "[" * 50 + "]" * 50 + "}"):
        r = client.post(f"/tables/{table}/correct", data=body, headers=headers)
        assert r.status_code == 400, (r.status_code, body[:30])
        assert r.get_json()["error"]["code"] in ("bad_body", "bad_request")
    r = client.post(f"/tables/{table}/reopen", data="{" * 5000, headers=headers)
    assert r.status_code == 400
    assert client.get("/").status_code == 200  # the hall goes on
