"""`gintray serve --camera SOURCE` without --demo: a Pi's own table is ready after boot."""

from __future__ import annotations

from pathlib import Path

from webui import create_app


def _app(tmp_path: Path, **config: object):
    return create_app({"DATA_DIR": str(tmp_path), "START_CAMERAS": False, "TESTING": True,
                       **config})


def test_camera_without_demo_creates_the_named_table_once(tmp_path: Path) -> None:
    app = _app(tmp_path, CAMERA="usb:0", TABLE_NAME="Table 12")
    store = app.extensions["gintray"].store
    tables = store.tables()
    assert [t.name for t in tables] == ["Table 12"]
    assert store.state(tables[0].id).camera == "usb:0"

    # A restart with another camera keeps the table (and its hands), and updates the camera.
    app = _app(tmp_path, CAMERA="picamera:0", TABLE_NAME="Table 12")
    store = app.extensions["gintray"].store
    assert [t.id for t in store.tables()] == [tables[0].id]
    assert store.state(tables[0].id).camera == "picamera:0"


def test_no_camera_and_no_demo_creates_no_table(tmp_path: Path) -> None:
    store = _app(tmp_path).extensions["gintray"].store
    assert store.tables() == []
