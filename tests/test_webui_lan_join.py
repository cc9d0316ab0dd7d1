"""Issue 26 item 3: the join link and its QR code carry an address tablets can reach: the LAN
address the app prints when it listens on 0.0.0.0, or ``--public-url`` behind a proxy; and a
new player's walk from the QR code to a signed export works from a second address (in a
network namespace of its own: no traffic leaves this machine)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import segno
from webui_helpers import make_app, pin_of

from webui.table.addresses import join_base, lan_url, public_url
from webui.table.cli import serve_main

ROOT = Path(__file__).resolve().parents[1]


def qr_for(link: str) -> bytes:
    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", scale=8, border=2)
    return buf.getvalue()


def test_a_screen_opened_on_this_machine_shows_the_lan_address(tmp_path):
    app = make_app(tmp_path, LAN_URL="http://198.18.0.1:5000")
    screen = app.test_client()  # the table's own computer, http://localhost/
    page = screen.get("/t/1/screen").get_data(as_text=True)
    assert "<code>http://198.18.0.1:5000/t/1/join</code>" in page
    assert "Tablets cannot open this address" not in page
    link = f"http://198.18.0.1:5000/t/1/join?pin={pin_of(app)}"
    assert screen.get("/t/1/qr.svg").data == qr_for(link)


def test_a_public_url_wins_for_a_proxy(tmp_path):
    app = make_app(tmp_path, LAN_URL="http://198.18.0.1:5000",
                   PUBLIC_URL="https://gin.example.org/club")
    page = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "<code>https://gin.example.org/club/t/1/join</code>" in page


def test_a_screen_listening_only_on_this_machine_says_tablets_cannot_reach_it(tmp_path):
    app = make_app(tmp_path)
    page = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "Tablets cannot open this address" in page and "--host 0.0.0.0" in page


def test_the_addresses_chosen():
    assert join_base(None, "http://198.18.0.1:5000", "http://127.0.0.1:5000/") == \
        "http://198.18.0.1:5000"
    assert join_base(None, "http://198.18.0.1:5000", "http://localhost:5000/") == \
        "http://198.18.0.1:5000"
    # a screen opened over the LAN already has a reachable address
    assert join_base(None, "http://198.18.0.1:5000", "http://198.18.0.9:5000/") == \
        "http://198.18.0.9:5000"
    assert lan_url("127.0.0.1", 5000) is None
    assert lan_url("198.18.0.7", 5000) == "http://198.18.0.7:5000"
    assert public_url("https://gin.example.org/") == "https://gin.example.org"
    for bad in ("gin.example.org", "ftp://x", "https://x/?a=1", "http://x:99999"):
        with pytest.raises(ValueError):
            public_url(bad)


def test_a_bad_public_url_is_refused_at_start(tmp_path, capsys):
    assert serve_main(["--data-dir", str(tmp_path), "--public-url", "gin.example.org",
                       "--no-camera"]) == 2
    assert "--public-url must be an http:// or https:// address" in capsys.readouterr().err


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-rn", "ip", "link", "add", "p0", "type", "veth",
                            "peer", "name", "p1"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
def test_a_new_player_walks_from_the_qr_code_to_a_signed_export_over_the_lan(tmp_path):
    if not _namespaces_work():
        pytest.skip("no unprivileged network namespaces (unshare -rn) with veth here")
    run = subprocess.run(["unshare", "-rn", sys.executable, str(ROOT / "tests" / "netns_walk.py"),
                          str(tmp_path / "data")], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["screen_link"] == "http://198.18.0.1:5000/t/1/join", seen
    assert "tablets on your network: http://198.18.0.1:5000/" in seen["printed"]
    assert not seen["warns_unreachable"]
    assert seen["qr_carries_link"]
    for seat in ("A", "B"):
        assert seen[f"pin_filled_{seat}"]  # the link carries the PIN into the join form
        assert seen[f"joined_{seat}"], seen
    assert seen["pdf"] and seen["verified"], seen
