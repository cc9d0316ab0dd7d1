"""Hostile bodies to the director's correction (issue 27 item 7): JSON nested thousands deep,
or deeper than any correction, is a 400 naming the body, never a 500; a whole number is whole
in ASCII digits, by the one rule both apps use (issue 28 item 6). A real PostgreSQL."""

from __future__ import annotations

import hall_helpers
import pytest
from hall_helpers import confirmed_hands, new_table, play_hand

from webui.common.refusal import Refusal
from webui.common.validate import whole_number

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


@pytest.mark.parametrize("value", ["5.0", 5.0, "٥", "²", "5e0", True, None, ""])
def test_one_strict_whole_number_rule(value):
    with pytest.raises(Refusal) as refused:
        whole_number(value, "game", 1, 1000)
    assert refused.value.status == 400 and refused.value.code == "bad_game"
    assert refused.value.message.startswith("game must be a whole number from 1 to 1000 (got ")
    assert whole_number(" 5 ", "game", 1, 1000) == whole_number(5, "game", 1, 1000) == 5


def test_the_hall_refuses_five_point_oh_and_other_digits_with_a_clear_400(hall):
    _app, client, store = hall
    table = new_table(store, "Table 1", "Ann", "Bob")
    play_hand(store, table, "A")
    before = confirmed_hands(store, table)
    rev = store.state(table).hand(1, 1).revision
    good = {"game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 2, "revision": rev}
    for field, bad in [("game", "5.0"), ("game", 1.0), ("game", "٥"), ("hand", "١"),
                       ("revision", f"{rev}.0"), ("points", "٥"), ("points", 2.0)]:
        r = client.post(f"/tables/{table}/correct", json={**good, field: bad},
                        headers={"X-CSRFToken": client.csrf})
        assert r.status_code == 400, (field, bad, r.status_code)
        error = r.get_json()["error"]
        assert error["code"] == f"bad_{field}", (field, bad, error)
        assert error["message"].startswith(f"{field} must be a whole number from "), error
    assert confirmed_hands(store, table) == before
    for minutes in ("5.0", "٥"):
        r = client.post("/round", data={"number": "1", "minutes": minutes,
                                        "csrf_token": client.csrf}, follow_redirects=True)
        assert "minutes must be a whole number from 1 to 600" in r.get_data(as_text=True)
