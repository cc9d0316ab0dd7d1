"""Issue 26 item 6: a camera snapshot's name the file system cannot hold (252 characters) is a
clean 404, not a 500."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("length", [120, 121, 252, 300, 5000])
def test_a_long_snapshot_name_is_not_found(app, length):
    client = app.test_client()  # the table's own computer may see snapshots
    r = client.get(f"/t/1/snapshots/{'a' * length}.jpg", headers={"Accept": "application/json"})
    assert r.status_code == 404
    assert r.get_json()["error"]["message"] == "no such picture"


def test_a_saved_snapshot_is_still_served(app, tmp_path):
    folder = tmp_path / "snapshots" / "1"
    folder.mkdir(parents=True)
    (folder / "read-1.jpg").write_bytes(b"\xff\xd8\xff\xd9")
    r = app.test_client().get("/t/1/snapshots/read-1.jpg")
    assert r.status_code == 200 and r.data == b"\xff\xd8\xff\xd9"
    for bad in ("..%2Fsecret.jpg", "read-1.png", "a b.jpg"):
        assert app.test_client().get(f"/t/1/snapshots/{bad}").status_code == 404, bad
