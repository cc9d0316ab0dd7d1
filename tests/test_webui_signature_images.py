"""Issue 26 item 2: signature images are decoded when given, refused unless they are a
picture a finger could draw (bounded bytes and pixels, a real PNG), stored normalised; a game
whose stored signature is damaged still exports."""

from __future__ import annotations

import base64
import struct
import zlib

import cv2
import numpy as np
from webui_helpers import PNG_DATA_URL

from webui.store import Actor


def chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_claiming(width: int, height: int) -> bytes:
    """A small, well-formed PNG file whose header claims ``width`` x ``height`` (its pixel
    data, rows of zeros, compresses to almost nothing)."""
    row = b"\x00" + b"\x00" * width  # filter byte + one grey byte a pixel
    comp = zlib.compressobj(9)
    idat = b"".join(comp.compress(row) for _ in range(min(height, 64))) + comp.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                                0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def drawn(width: int, height: int) -> bytes:
    """A pad's drawing: transparent, a dark stroke across."""
    picture = np.zeros((height, width, 4), np.uint8)
    cv2.line(picture, (width // 10, height // 2), (width * 9 // 10, height // 3),
             (107, 42, 16, 255), max(2, width // 300))
    return cv2.imencode(".png", picture)[1].tobytes()


def ended_game(tablet):
    tablet.play_manual_hand("A", 300)


def sign(tablet, player, url):
    return tablet.post("sign", {"game": 1, "player": player, "png": url})


def signatures(tablet):
    return tablet.state()["games"][0]["signatures"]


def test_a_png_header_followed_by_garbage_is_refused(tablet):
    ended_game(tablet)
    header = png_claiming(100, 50)[:33]  # a true PNG header for 100x50 pixels
    for garbage in (header + chunk(b"IDAT", b"garbage" * 50) + chunk(b"IEND", b""),
                    header + b"x" * 400, header):
        r = sign(tablet, "A", data_url(garbage))
        assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad_signature"
        assert "cannot be decoded" in r.get_json()["error"]["message"]
    assert signatures(tablet) == {}
    assert sign(tablet, "A", PNG_DATA_URL).status_code == 200  # a real one still signs


def test_a_picture_no_pad_draws_is_refused_before_it_is_decoded(tablet):
    ended_game(tablet)
    for width, height in ((20000, 20000), (10000, 10000), (5000, 10)):
        r = sign(tablet, "A", data_url(png_claiming(width, height)))
        assert r.status_code == 400, (width, height)
        assert f"{width}x{height} pixels" in r.get_json()["error"]["message"]
    jpeg = cv2.imencode(".jpg", np.zeros((20, 20, 3), np.uint8))[1].tobytes()
    r = sign(tablet, "A", data_url(jpeg))
    assert r.status_code == 400 and "not a PNG" in r.get_json()["error"]["message"]
    r = sign(tablet, "A", data_url(b"\x89PNG\r\n\x1a\n" + b"\x00" * 400_000))
    assert r.status_code == 400
    assert signatures(tablet) == {}


def test_a_large_drawing_is_stored_as_a_smaller_normalised_png(app, tablet):
    ended_game(tablet)
    big = drawn(3000, 900)  # a wide pad on a screen of pixel ratio 3
    assert sign(tablet, "B", data_url(big)).status_code == 200
    signed = [e for e in app.extensions["gintray"].store.events(1) if e.kind == "signed"]
    stored = base64.b64decode(signed[-1].payload["png"])
    picture = cv2.imdecode(np.frombuffer(stored, np.uint8), cv2.IMREAD_UNCHANGED)
    assert picture.shape[1] <= 1200 and picture.shape[0] <= 400
    assert picture.shape[2] == 4 and picture[..., 3].max() == 255  # the stroke is kept
    assert tablet.client.get("/t/1/games/1/export.pdf").status_code == 200


def test_a_game_whose_stored_signature_is_damaged_still_exports(app, tablet):
    """Signatures stored before they were checked: a garbage PNG, a huge one."""
    ended_game(tablet)
    store = app.extensions["gintray"].store
    from webui.store.state import sheet_hash

    state = store.state(1)
    sheet = sheet_hash(state, state.game_by_number(1))

    def stored(player, png_text):
        def run(_state):
            return [("signed", {"game": 1, "player": player, "name": "x", "sheet_hash": sheet,
                                "png": png_text})]
        store.execute(1, run, Actor("test"))

    stored("A", base64.b64encode(b"\x89PNG\r\n\x1a\ngarbage").decode())
    stored("B", base64.b64encode(png_claiming(20000, 20000)).decode())
    r = tablet.client.get("/t/1/games/1/export.pdf")
    assert r.status_code == 200 and r.data.startswith(b"%PDF")
    assert r.data.count(b"the stored signature picture") == 2  # said under each name
    for path in ("/t/1/games/1/export.csv", "/t/1/games/1/export.json", "/t/1/sheet",
                 "/t/1/games/1/sign"):
        assert tablet.client.get(path).status_code == 200, path
