"""The new player's walk over a LAN, run inside a network namespace of its own.

``unshare -rn python tests/netns_walk.py DATA_DIR`` (see ``test_webui_lan_join.py``): a veth
pair gives the namespace two test addresses, 198.18.0.1 (the table's computer, which runs
``gintray serve --host 0.0.0.0``) and 198.18.0.2 (the players' tablets). The table's screen
is opened on 127.0.0.1 as on the table's computer; the QR code's link is followed from
198.18.0.2: two tablets join, play a hand, sign, and export the signed PDF. No packet leaves
the namespace. Prints one JSON line of what it saw.
"""

from __future__ import annotations

import functools
import http.client
import http.cookiejar
import io
import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import segno

ROOT = Path(__file__).resolve().parents[1]
TABLE_ADDRESS, TABLET_ADDRESS, PORT = "198.18.0.1", "198.18.0.2", 5000
PNG_DATA_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVQI"
                "HWMAAQAABQABim28IAAAAABJRU5ErkJggg==")


def network() -> None:
    """Two test addresses on a veth pair; the default route points into it (so the app's
    LAN address is 198.18.0.1)."""
    for cmd in ("ip link set lo up", "ip link add gt0 type veth peer name gt1",
                f"ip addr add {TABLE_ADDRESS}/24 dev gt0",
                f"ip addr add {TABLET_ADDRESS}/24 dev gt1",
                "ip link set gt0 up", "ip link set gt1 up",
                "ip route add default via 198.18.0.254 dev gt0"):
        subprocess.run(cmd.split(), check=True)


class Browser:
    """A device with its own cookies, sending from ``source``."""

    def __init__(self, source: str) -> None:
        class Handler(urllib.request.HTTPHandler):
            def http_open(self, req):
                return self.do_open(functools.partial(http.client.HTTPConnection,
                                                      source_address=(source, 0)), req)

        self.opener = urllib.request.build_opener(
            Handler, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.token = ""

    def call(self, url: str, form: dict | None = None, body: dict | None = None
             ) -> tuple[int, bytes, str]:
        headers = {"X-CSRFToken": self.token}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(url, data=data, headers=headers)
        try:
            with self.opener.open(request, timeout=30) as resp:
                return resp.status, resp.read(), resp.url
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), url

    def page(self, url: str) -> str:
        status, data, _ = self.call(url)
        assert status == 200, (url, status, data[:300])
        html = data.decode()
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
        return html


def wait_listening() -> None:
    for _ in range(600):
        try:
            with socket.create_connection(("127.0.0.1", PORT), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def walk(data_dir: str) -> dict:
    seen: dict = {}
    screen_pc = Browser("127.0.0.1")
    html = screen_pc.page(f"http://127.0.0.1:{PORT}/t/1/screen")
    pin = re.search(r'id="pin">(\d{6})<', html).group(1)
    shown = re.search(r"<code>([^<]+/join)</code>", html).group(1)
    seen["screen_link"] = shown
    seen["warns_unreachable"] = "Tablets cannot open this address" in html
    join_link = f"{shown}?pin={pin}"
    status, svg, _ = screen_pc.call(f"http://127.0.0.1:{PORT}/t/1/qr.svg")
    expected = segno.make(join_link, error="m")
    buf = io.BytesIO()
    expected.save(buf, kind="svg", scale=8, border=2)
    seen["qr_carries_link"] = status == 200 and svg == buf.getvalue()
    tablets = {}
    for seat in ("A", "B"):
        tablet = Browser(TABLET_ADDRESS)
        html = tablet.page(join_link)
        seen[f"pin_filled_{seat}"] = f'value="{pin}"' in html
        status, _data, where = tablet.call(join_link.split("?")[0], form={
            "csrf_token": tablet.token, "pin": pin, "seat": seat, "label": f"phone {seat}"})
        seen[f"joined_{seat}"] = status == 200 and where.endswith("/t/1")
        tablet.page(f"http://{TABLE_ADDRESS}:{PORT}/t/1")
        tablets[seat] = tablet
    api = f"http://{TABLE_ADDRESS}:{PORT}/api/t/1"
    ann = tablets["A"]
    steps = [(ann, "knock-card", {"game": 1, "hand": 1, "card": "9H"}),
             (ann, "proposal", {"game": 1, "hand": 1, "kind": "manual", "winner": "A",
                                "points": 300})]
    for who, name, body in steps:
        status, data, _ = who.call(f"{api}/{name}", body=body)
        assert status == 200, (name, status, data[:300])
    revision = json.loads(ann.call(f"{api}/state")[1])["current_hand"]["revision"]
    for seat, who in tablets.items():
        status, data, _ = who.call(f"{api}/confirm", body={"game": 1, "hand": 1,
                                                           "player": seat, "revision": revision})
        assert status == 200, ("confirm", seat, status, data[:300])
    for seat, who in tablets.items():
        status, data, _ = who.call(f"{api}/sign", body={"game": 1, "player": seat,
                                                        "png": PNG_DATA_URL})
        assert status == 200, ("sign", seat, status, data[:300])
    status, pdf, _ = ann.call(f"http://{TABLE_ADDRESS}:{PORT}/t/1/games/1/export.pdf")
    seen["pdf"] = status == 200 and pdf.startswith(b"%PDF")
    out = Path(data_dir) / "walk.pdf"
    out.write_bytes(pdf)
    verify = subprocess.run([sys.executable, "-m", "webui.verify", str(out), "--data-dir",
                             data_dir, "--both-signed"], cwd=ROOT, capture_output=True, text=True)
    seen["verified"] = verify.returncode == 0
    return seen


def main() -> int:
    data_dir = sys.argv[1]
    network()
    server = subprocess.Popen([sys.executable, "-m", "gintray_cli", "serve", "--demo",
                               "--no-camera", "--host", "0.0.0.0", "--port", str(PORT),
                               "--data-dir", data_dir, "--create"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_listening()
        seen = walk(data_dir)
    finally:
        server.terminate()
        printed = server.communicate(timeout=20)[0]
    seen["printed"] = printed
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
