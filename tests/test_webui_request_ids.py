"""Issue 26 item 7: a request_id reused by another device, or for another kind of request, is a
409 conflict (the tablet retries with a new id), never "ok, duplicate" with nothing done."""

from __future__ import annotations

from webui_helpers import PNG_DATA_URL


def test_the_same_request_retried_lands_once(tablet):
    assert tablet.knock_card("9H").status_code == 200
    h = tablet.hand()
    body = {"game": 1, "hand": h["number"], "kind": "manual", "winner": "A", "points": 300,
            "request_id": "ann-proposal-1"}
    first, again = tablet.post("proposal", body), tablet.post("proposal", body)
    assert first.status_code == again.status_code == 200
    assert again.get_json()["duplicate"] is True


def test_another_devices_request_id_is_a_conflict(tablet):
    tablet.play_manual_hand("A", 300)
    ann = tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL,
                               "request_id": "sig-1"})
    assert ann.status_code == 200
    ben = tablet.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL,
                               "request_id": "sig-1"})
    assert ben.status_code == 409
    assert ben.get_json()["error"]["code"] == "request_id_reused"
    assert "B" not in tablet.state()["games"][0]["signatures"]  # nothing was done silently
    retry = tablet.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL,
                                 "request_id": "sig-2"})
    assert retry.status_code == 200
    assert set(tablet.state()["games"][0]["signatures"]) == {"A", "B"}


def test_a_request_id_reused_for_another_command_is_a_conflict(tablet):
    h = tablet.hand()
    r = tablet.post("knock-card", {"game": 1, "hand": h["number"], "card": "9H",
                                   "request_id": "ann-7"})
    assert r.status_code == 200
    r = tablet.post("proposal", {"game": 1, "hand": h["number"], "kind": "manual",
                                 "winner": "A", "points": 20, "request_id": "ann-7"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "request_id_reused"
    assert tablet.hand()["proposal"] is None
