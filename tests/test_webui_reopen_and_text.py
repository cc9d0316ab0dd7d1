"""Issue 35 item 6 (its security and text parts): a signature request captured before the
director reopens a game signs nothing after it; the reopening's reason and a tablet's label are
one line of plain text (control characters and direction overrides refused with a message,
over-length refused, never cut mid-word); a lost camera is told in a player's words."""

from __future__ import annotations

import logging
import re

import pytest
from webui_helpers import PNG_DATA_URL, Tablet, csrf_token, director_client, join

from vision.table.events import CameraLost
from webui.table.camera_feed import TableCamera
from webui.verify import main as verify_main


def finished_and_signed(tablet):
    """Game 1 over (Ann 300) and signed by both; Ben's signing request as his tablet sent it
    (with the sheet hash its signing page showed)."""
    tablet.play_manual_hand("A", 300)
    page = tablet.tablets["B"].client.get("/t/1/games/1/sign").get_data(as_text=True)
    sheet = re.search(r'data-sheet="([0-9a-f]+)"', page).group(1)
    ben_request = {"game": 1, "player": "B", "png": PNG_DATA_URL, "sheet": sheet}
    assert tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL,
                                "sheet": sheet}).status_code == 200
    assert tablet.post("sign", ben_request).status_code == 200
    assert tablet.state()["games"][0]["locked"]
    return ben_request


def reopen(director, reason):
    token = csrf_token(director, "/t/1/sheet")
    return director.post("/api/t/1/reopen", json={"game": 1, "reason": reason},
                         headers={"X-CSRFToken": token})


def test_a_signature_request_captured_before_a_reopening_signs_nothing_after_it(app, tablet,
                                                                               tmp_path):
    captured = finished_and_signed(tablet)
    director = director_client(app)
    assert reopen(director, "hand 1 was miscounted").status_code == 200
    game = tablet.state()["games"][0]
    assert not game["locked"] and game["signatures"] == {}
    # replayed as captured: its sheet hash is the sheet before the reopening
    replay = tablet.post("sign", captured)
    assert replay.status_code == 409 and replay.get_json()["error"]["code"] == "changed"
    # and without the hash it is refused too: a reopened game is signed from its page
    bare = {k: v for k, v in captured.items() if k != "sheet"}
    stripped = tablet.post("sign", bare)
    assert stripped.status_code == 409
    assert stripped.get_json()["error"]["code"] == "sheet_needed"
    assert tablet.state()["games"][0]["signatures"] == {}
    # Ben signs the reopened game from its page: a new sheet hash, which counts the reopening
    page = tablet.tablets["B"].client.get("/t/1/games/1/sign").get_data(as_text=True)
    sheet = re.search(r'data-sheet="([0-9a-f]+)"', page).group(1)
    assert sheet != captured["sheet"]
    assert tablet.post("sign", {**captured, "sheet": sheet}).status_code == 200
    assert tablet.post("sign", {**captured, "player": "A", "sheet": sheet}).status_code == 200
    # the signed PDF of the reopened game carries the reopening in its record and verifies
    pdf = tmp_path / "reopened.pdf"
    pdf.write_bytes(tablet.client.get("/t/1/games/1/export.pdf").data)
    assert verify_main([str(pdf), "--data-dir", str(tmp_path)]) == 0


@pytest.mark.parametrize(("reason", "says"), [
    ("wrong\x00card", "without control characters"),
    ("wrong \x1b[2J card", "without control characters"),
    ("wrong\ncard", "one line of text"),
    ("\u202edrac gnorw", "must not contain direction controls (U+202E)"),
    ("wrong card " * 454 + "wrongs", "is 5000 characters long; at most 300"),
])
def test_a_reopening_reason_is_one_plain_line_or_refused_with_a_message(app, tablet, reason,
                                                                          says):
    finished_and_signed(tablet)
    director = director_client(app)
    refused = reopen(director, reason)
    assert refused.status_code == 400
    assert says in refused.get_json()["error"]["message"]
    assert tablet.state()["games"][0]["locked"]  # nothing was recorded
    fine = "hand 1: Ben's 8H was laid off on Ann's run (see the footage)"
    assert reopen(director, fine).status_code == 200
    store = app.extensions["gintray"].store
    assert [e.payload["reason"] for e in store.events(1) if e.kind == "reopened"] == [fine]


def test_a_tablet_label_with_a_right_to_left_override_is_refused(app):
    client = app.test_client()
    r = join(client, app, seat="A", label="\u202eAnn's tablet")
    assert r.status_code == 400
    assert "must not contain direction controls (U+202E)" in r.get_data(as_text=True)
    assert app.extensions["gintray"].store.seat_holders(1) == {}
    # right-to-left names themselves are fine (the marks that only place neutrals too)
    assert join(client, app, seat="A", label="טאבלט של דנה\u200f").status_code == 302


def test_a_lost_camera_is_told_in_a_players_words_and_the_detail_goes_to_the_log(
        app, tmp_path, caplog):
    feed = TableCamera(app.extensions["gintray"].store, 1, "replay:test", tmp_path,
                       app.extensions["gintray"].notifier.publish)
    app.extensions["gintray"].cameras[1] = feed
    Tablet(app)
    detail = f"replay frame {tmp_path}/frame_013.jpg disappeared"
    with caplog.at_level(logging.WARNING, logger="webui.table.camera_feed"):
        feed.handle(CameraLost(detail))
    screen = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "The camera stopped sending pictures; check its cable. Scoring by hand still " \
        "works." in screen
    assert "frame_013" not in screen and str(tmp_path) not in screen
    assert detail in caplog.text
