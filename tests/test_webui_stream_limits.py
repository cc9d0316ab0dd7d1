"""Issue 26 item 4: live streams are limited per table as well as per device and overall, so
the viewers of one table (however many devices they bring) cannot starve the other tables."""

from __future__ import annotations

from webui_helpers import Tablet, make_app

from webui.store import Actor
from webui.table.live import EndReason, StreamKey, StreamLimit, StreamSlots


def viewer(app, address):
    """A viewer on the table's own computer (any loopback address: no PIN needed)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_one_table_cannot_take_every_stream_of_the_server(tmp_path):
    app = make_app(tmp_path, MAX_STREAMS=48, MAX_STREAMS_PER_TABLE=12)
    store = app.extensions["gintray"].store
    other = store.create_table("Table 2", {"name": "Table 2", "players": {"A": "Cy", "B": "Di"},
                                           "rules": "tournament", "camera": None}, Actor("test"))
    opened, refused = [], []
    for n in range(16):  # sixteen devices watching table 1, each opening all it may
        client = viewer(app, f"127.0.0.{n + 2}")
        for _ in range(3):
            r = client.get("/api/t/1/events?max=30", buffered=False)
            (opened if r.status_code == 200 else refused).append(r)
    assert len(opened) == 12
    assert {r.status_code for r in refused} == {429}
    message = refused[0].get_json()["error"]["message"]
    assert refused[0].get_json()["error"]["code"] == "too_many_streams"
    assert "this table already has 12 live streams open" in message
    # the other table's tablets and screen still get theirs
    tablet = Tablet(app, table_id=other, remote="192.168.1.20")
    theirs = [tablet.client.get(f"/api/t/{other}/events?max=30", buffered=False)
              for _ in range(3)]
    assert [r.status_code for r in theirs] == [200, 200, 200]
    screen = viewer(app, "127.0.0.1").get(f"/api/t/{other}/events?max=30", buffered=False)
    assert screen.status_code == 200
    slots = app.extensions["gintray"].streams
    assert slots.open_count(table_id=1) == 12 and slots.open_count(table_id=other) == 4
    for response in [*opened, *theirs, screen]:
        response.close()
    assert slots.open_count() == 0


def test_the_limits_in_order_device_table_server():
    """A device at its limit gives up its oldest stream (its new page takes it over); a full
    table or server refuses, saying which."""
    slots = StreamSlots(per_device=2, total=5, per_table=3)
    a1, a2 = StreamKey(1, "device:1", 1), StreamKey(1, "device:2", 2)
    oldest = slots.acquire(a1)
    slots.acquire(a1)
    slots.acquire(a1)  # a third stream of one device: its oldest ends
    assert oldest.ended is EndReason.REPLACED and slots.open_count(a1) == 2
    slots.acquire(a2)
    try:
        slots.acquire(a2)
        raise AssertionError("a fourth stream of one table")
    except StreamLimit as exc:
        assert "this table" in str(exc)
    slots.acquire(StreamKey(2, "device:3", 3))
    slots.acquire(StreamKey(2, "device:4", 4))
    try:
        slots.acquire(StreamKey(3, "device:5", 5))
        raise AssertionError("a sixth stream of the server")
    except StreamLimit as exc:
        assert "too many live streams" in str(exc)
    assert slots.end_device(1, 1) == 2  # device 1 signed out: its two slots free at once
    slots.acquire(StreamKey(3, "device:5", 5))
