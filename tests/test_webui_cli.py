"""`gintray serve` and the demo table, and `python -m webui.verify`."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from webui_helpers import PNG_DATA_URL, Tablet, make_app

from webui import create_app
from webui.table.cli import serve_main
from webui.table.demo import DEMO_NAME, demo_camera

ROOT = Path(__file__).resolve().parents[1]


def test_demo_table_plays_the_bundled_footage(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "DEMO": True, "START_CAMERAS": False})
    store = app.extensions["gintray"].store
    (table,) = store.tables()
    assert table.name == DEMO_NAME
    state = store.state(table.id)
    assert state.players == {"A": "Ann", "B": "Ben"} and state.rules == "tournament"
    assert state.camera == demo_camera()
    if state.camera:
        assert state.camera.startswith("replay:") and "vision/demo" in state.camera
    # a second start keeps the same table (and its history)
    again = create_app({"DATA_DIR": str(tmp_path), "DEMO": True, "START_CAMERAS": False})
    assert len(again.extensions["gintray"].store.tables()) == 1


def test_table_without_camera_says_so(tmp_path):
    app = make_app(tmp_path)
    page = Tablet(app).client.get("/t/1").get_data(as_text=True)
    assert "Camera: camera unavailable" in page


def test_bad_database_url_is_a_clear_error(tmp_path, capsys):
    status = serve_main(["--data-dir", str(tmp_path), "--database-url", "nosuchdb://x",
                         "--no-camera"])
    assert status == 1
    assert "cannot start" in capsys.readouterr().err


def test_camera_option_opens_this_machines_table(tmp_path, capsys):
    # The port is taken, so serve stops after setting up: the table must be there all the same.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status = serve_main(["--data-dir", str(tmp_path), "--camera", "usb:7", "--no-camera",
                             "--table-name", "Table 3", "--port", str(port)])
    out = capsys.readouterr()
    assert status == 1 and "cannot listen" in out.err
    assert "table 1 'Table 3'" in out.out


@pytest.mark.slow
def test_serve_prints_its_addresses_and_answers(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "gintray_cli", "serve", "--demo", "--no-camera",
                             "--port", str(port), "--data-dir", str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    assert DEMO_NAME in r.read().decode()
                    break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("server did not answer")
    finally:
        proc.terminate()
        output = proc.communicate(timeout=10)[0]
    assert f"http://127.0.0.1:{port}/" in output
    assert "LAN address" in output and "director password" in output


def test_verify_command_accepts_the_export_and_rejects_a_change(tmp_path):
    from webui.verify import main as verify_main

    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 300)
    for p in ("A", "B"):
        tablet.post("sign", {"game": 1, "player": p, "png": PNG_DATA_URL})
    pdf = tablet.client.get("/t/1/games/1/export.pdf").data
    good = tmp_path / "sheet.pdf"
    good.write_bytes(pdf)
    assert verify_main([str(good), "--data-dir", str(tmp_path)]) == 0
    bad = tmp_path / "changed.pdf"
    changed = bytearray(pdf)
    at = pdf.index(b"(300)")
    changed[at + 1] = ord("8")
    bad.write_bytes(bytes(changed))
    assert verify_main([str(bad), "--data-dir", str(tmp_path)]) == 1
