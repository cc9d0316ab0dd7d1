"""Issue 35 item 2: a live stream belongs to a joined device. It ends when the device leaves
its seat or is signed out (the event stream and the camera picture alike), its slots are free
at once, and a device that left can never keep the table's real tablets from streaming; a new
page of a device takes over that device's oldest stream instead of being refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_webui_live import told_feed
from webui_helpers import Tablet, csrf_token, join, make_app

from vision.table.events import FrameRead
from webui.table.live import EndReason, StreamKey, StreamKind, StreamLimit, StreamSlots

EVENTS = "/api/t/1/events?max=60"  # the max is only a guard: each stream below ends sooner
CAMERA = "/api/t/1/camera.mjpg?max=60"


def camera_with_a_picture(app):
    """Table 1's camera (its thread not started) with one picture taken: each MJPEG stream
    sends it, then waits for the next."""
    feed, _told = told_feed(app, "replay:/nonexistent?fps=1")
    feed.picture.publish(np.full((120, 160, 3), 90, np.uint8), FrameRead(0))
    return feed


def stream_end(response) -> str | None:
    """Read an event stream to its end: the reason its last ``ended`` message gave (None when
    it ended without saying why)."""
    reason, buf = None, ""
    for chunk in response.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            message, buf = buf.split("\n\n", 1)
            if message.startswith("event: ended"):
                reason = json.loads(message.split("data: ", 1)[1])["reason"]
    response.close()
    return reason


def camera_ends(response) -> bool:
    """Whether an MJPEG stream ends (its parts are read until the server stops sending)."""
    for _part in response.response:
        pass
    response.close()
    return True


def visitor(app, label: str):
    """A PIN holder's browser joining the free seat (Ben's) as a new tablet."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    assert join(client, app, seat="B", label=label).status_code == 302
    return client


def test_a_pin_holder_joining_and_leaving_again_and_again_holds_no_slot(tmp_path):
    """The issue's case: join the free seat, open 3 streams, leave; 4 times. The 12 slots of
    the table were all held for up to 600 s and both real tablets got 429."""
    app = make_app(tmp_path)
    feed = camera_with_a_picture(app)
    slots = app.extensions["gintray"].streams
    ann = Tablet(app, seat="A", remote="192.168.1.20")
    page = [ann.client.get(EVENTS, buffered=False), ann.client.get(CAMERA, buffered=False)]
    assert [r.status_code for r in page] == [200, 200]
    for n in range(4):
        client = visitor(app, f"visitor {n}")
        held = [client.get(EVENTS, buffered=False), client.get(EVENTS, buffered=False),
                client.get(CAMERA, buffered=False)]
        assert [r.status_code for r in held] == [200, 200, 200]
        left = client.post("/t/1/leave", data={"csrf_token": csrf_token(client, "/t/1")})
        assert left.status_code == 302
        assert slots.open_count(table_id=1) == 2, "the visitor's slots outlived its leaving"
        assert [stream_end(r) for r in held[:2]] == ["left", "left"]
        assert camera_ends(held[2])
    ben = Tablet(app, seat="B", remote="192.168.1.21")
    theirs = [ben.client.get(EVENTS, buffered=False) for _ in range(3)]
    assert [r.status_code for r in theirs] == [200, 200, 200]
    more = ann.client.get(EVENTS, buffered=False)
    assert more.status_code == 200
    for response in [*page, *theirs, more]:
        response.close()
    feed.stop()
    assert slots.open_count() == 0


def test_a_device_signed_out_by_the_director_loses_its_streams_at_once(tmp_path):
    from webui_helpers import director_client

    app = make_app(tmp_path)
    slots = app.extensions["gintray"].streams
    ann = Tablet(app, seat="A", remote="192.168.1.20")
    held = [ann.client.get(EVENTS, buffered=False) for _ in range(2)]
    device = app.extensions["gintray"].store.seat_holders(1)["A"]
    director = director_client(app)
    token = csrf_token(director, "/director/tables/1/devices")
    r = director.post(f"/director/tables/1/devices/{device.id}/revoke",
                      data={"csrf_token": token})
    assert r.status_code == 302
    assert slots.open_count(table_id=1) == 0
    assert [stream_end(r) for r in held] == ["left", "left"]


def test_a_device_signed_out_elsewhere_ends_its_streams_and_frees_its_slots(tmp_path):
    """Signed out behind this process's back (another server process on the same database, a
    new PIN): each stream checks on its next tick that its device is still joined, and the
    slots of departed devices are taken back before anyone is refused."""
    app = make_app(tmp_path, MAX_STREAMS_PER_TABLE=6)
    store = app.extensions["gintray"].store
    slots = app.extensions["gintray"].streams
    gone = []
    for n in range(3):
        client = visitor(app, f"visitor {n}")
        held = [client.get(EVENTS, buffered=False) for _ in range(3)]
        assert [r.status_code for r in held] == [200, 200, 200]
        store.revoke_devices(1, store.seat_holders(1)["B"].id)  # not through this app
        gone.append(held)
        if n == 0:  # the stream notices on its own
            assert stream_end(held[0]) == "left"
            assert slots.open_count(table_id=1) == 0
    assert slots.open_count(table_id=1) == 6  # two departed devices hold the table's all
    ann = Tablet(app, seat="A", remote="192.168.1.20")
    theirs = [ann.client.get(EVENTS, buffered=False) for _ in range(3)]
    assert [r.status_code for r in theirs] == [200, 200, 200]
    assert [stream_end(r) for r in gone[1] + gone[2]] == ["left"] * 6
    for response in theirs:
        response.close()
    assert slots.open_count() == 0


def test_a_new_page_takes_over_the_oldest_stream_of_its_own_device(tmp_path):
    """Hand, Score sheet, History tapped a second apart: the page left still held its slots
    (a stream is known closed only when a write to it fails) and the new page got 429. Now
    the new page's stream takes the place of the device's oldest (a camera picture only that
    of the oldest camera picture: never a page's live updates)."""
    app = make_app(tmp_path)
    feed = camera_with_a_picture(app)
    slots = app.extensions["gintray"].streams
    ann = Tablet(app, seat="A", remote="192.168.1.20")
    first = [ann.client.get(EVENTS, buffered=False), ann.client.get(CAMERA, buffered=False)]
    second = [ann.client.get(EVENTS, buffered=False), ann.client.get(CAMERA, buffered=False)]
    assert [r.status_code for r in first + second] == [200] * 4
    assert camera_ends(first[1])  # the second page's camera took the first's slot
    third = ann.client.get(EVENTS, buffered=False)
    assert third.status_code == 200
    assert stream_end(first[0]) == "replaced"  # the oldest events stream gave way
    assert slots.open_count(table_id=1) == 3
    # Ben's tablet is not touched by Ann's pages
    ben = Tablet(app, seat="B", remote="192.168.1.21")
    bens = [ben.client.get(EVENTS, buffered=False) for _ in range(3)]
    assert [r.status_code for r in bens] == [200] * 3
    for response in [*second, third, *bens]:
        response.close()
    feed.stop()
    assert slots.open_count() == 0


def test_a_camera_picture_never_takes_the_place_of_live_updates():
    slots = StreamSlots(per_device=2, total=10)
    key = StreamKey(1, "device:1", 1)
    events = [slots.acquire(key, StreamKind.EVENTS) for _ in range(2)]
    with pytest.raises(StreamLimit, match="this device already has 2 live streams"):
        slots.acquire(key, StreamKind.CAMERA)
    assert [lease.ended for lease in events] == [None, None]
    slots.acquire(key, StreamKind.EVENTS)  # a new page's live updates: the oldest gives way
    assert [lease.ended for lease in events] == [EndReason.REPLACED, None]
    assert slots.open_count(key) == 2
