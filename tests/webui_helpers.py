"""Shared helpers of the web app's tests: an app on a temp data dir, joined tablets, API calls."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from webui import create_app
from webui.store import Actor

# A knock by Ann (A) with 5 (knock card 9H -> limit 9); Ben lays off 8D and QD: Ann scores 12-5=7.
KNOCK_A = ["2C", "3C", "4C", "7H", "7S", "7D", "9D", "TD", "JD", "5S"]
KNOCK_B = ["KS", "KH", "KC", "4H", "5H", "6H", "QD", "QS", "2D", "8D"]
KNOCK_MELDS_A = "2C 3C 4C | 7H 7S 7D | 9D TD JD"
# Gin by Ann: 30 deadwood of Ben + 25 = 55.
GIN_A = ["2C", "3C", "4C", "7H", "7S", "7D", "9D", "TD", "JD", "QD"]
GIN_B = ["KS", "KH", "KC", "4H", "5H", "6H", "QH", "QS", "2D", "8D"]
# A 1x1 transparent PNG, as a signature pad would send it.
PNG_DATA_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVQI"
                "HWMAAQAABQABim28IAAAAABJRU5ErkJggg==")


_IDENTITY: Path | None = None


def _shared_identity(data_dir: Path) -> None:
    """Reuse one signing key across tests (making an RSA key per test is slow)."""
    global _IDENTITY
    if _IDENTITY is None:
        from webui.common.signing import ensure_identity

        _IDENTITY = Path(tempfile.mkdtemp(prefix="gintray-identity-"))
        ensure_identity(_IDENTITY)
    target = data_dir / "signing"
    if not target.exists():
        shutil.copytree(_IDENTITY / "signing", target)


def make_app(data_dir: Path, **config: Any) -> Flask:
    """An app on ``data_dir`` without camera threads, with one table (Ann v Ben, tournament)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    _shared_identity(data_dir)
    cfg = {"DATA_DIR": str(data_dir), "START_CAMERAS": False, "TESTING": True, **config}
    app = create_app(cfg)
    store = app.extensions["gintray"].store
    if not store.tables():
        store.create_table("Table 1", {"name": "Table 1", "players": {"A": "Ann", "B": "Ben"},
                                       "rules": "tournament", "camera": None}, Actor("test"))
    return app


def csrf_token(client: FlaskClient, path: str = "/") -> str:
    """The CSRF token of the client's session, read from a rendered page."""
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "page carries no CSRF token"
    return match.group(1)


def pin_of(app: Flask, table_id: int = 1) -> str:
    return app.extensions["gintray"].store.table(table_id).pin


def join(client: FlaskClient, app: Flask, table_id: int = 1, seat: str = "A",
         pin: str | None = None, label: str = "tablet") -> Any:
    """Join a table as a tablet for one player (form post with the page's CSRF token)."""
    token = csrf_token(client, f"/t/{table_id}/join")
    return client.post(f"/t/{table_id}/join", data={
        "csrf_token": token, "pin": pin if pin is not None else pin_of(app, table_id),
        "seat": seat, "label": label})


class _Joined:
    """One joined tablet's client and CSRF token."""

    def __init__(self, app: Flask, table_id: int, seat: str, remote: str) -> None:
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = remote
        response = join(self.client, app, table_id, seat, label=f"tablet {seat}")
        assert response.status_code == 302, response.get_data(as_text=True)
        self.token = csrf_token(self.client, f"/t/{table_id}")


class Tablet:
    """A joined tablet calling the JSON API with its CSRF token.

    ``seat="A"`` or ``"B"``: one player's tablet. ``seat="both"`` (the default) stands for
    the two players' own tablets side by side: a call naming a ``player`` (confirm, sign), or
    undoing a player's confirmation, goes through that player's tablet; anything else through
    Ann's (A). ``client``/``token`` are the first tablet's.
    """

    def __init__(self, app: Flask, table_id: int = 1, seat: str = "both",
                 remote: str = "127.0.0.1") -> None:
        self.app, self.table_id = app, table_id
        seats = ("A", "B") if seat == "both" else (seat,)
        self.tablets = {s: _Joined(app, table_id, s, remote) for s in seats}
        first = self.tablets[seats[0]]
        self.client, self.token = first.client, first.token

    def _tablet_for(self, name: str, body: dict[str, Any]) -> _Joined:
        player = body.get("player") if isinstance(body, dict) else None
        if name == "undo" and isinstance(body, dict):
            store = self.app.extensions["gintray"].store
            target = next((e for e in store.events(self.table_id)
                           if e.seq == body.get("target_seq")), None)
            if target is not None and target.kind == "confirmed":
                player = target.payload.get("player")
        return self.tablets.get(player) or next(iter(self.tablets.values()))

    def post(self, name: str, body: dict[str, Any], token: bool = True) -> Any:
        tablet = self._tablet_for(name, body)
        headers = {"X-CSRFToken": tablet.token} if token else {}
        return tablet.client.post(f"/api/t/{self.table_id}/{name}", json=body, headers=headers)

    def state(self) -> dict[str, Any]:
        return self.client.get(f"/api/t/{self.table_id}/state").get_json()

    def hand(self) -> dict[str, Any]:
        return self.state()["current_hand"]

    def knock_card(self, card: str) -> Any:
        h = self.hand()
        return self.post("knock-card", {"game": h["game"], "hand": h["number"], "card": card})

    def propose(self, **body: Any) -> Any:
        h = self.hand()
        return self.post("proposal", {"game": h["game"], "hand": h["number"], **body})

    def propose_knock(self) -> Any:
        return self.propose(kind="score", knocker="A",
                            cards={"A": "5S", "B": " ".join(KNOCK_B)},
                            melds={"A": KNOCK_MELDS_A})

    def confirm(self, player: str, revision: int | None = None) -> Any:
        h = self.hand()
        rev = h["revision"] if revision is None else revision
        return self.post("confirm", {"game": h["game"], "hand": h["number"], "player": player,
                                     "revision": rev})

    def play_manual_hand(self, winner: str, points: int) -> None:
        """Record a hand entered by hand and confirm it for both players."""
        assert self.knock_card("9H").status_code == 200
        assert self.propose(kind="manual", winner=winner, points=points).status_code == 200
        for p in ("A", "B"):
            assert self.confirm(p).status_code == 200


def director_client(app: Flask, password: str = "director-pass") -> FlaskClient:
    """A client logged in as the director (sets the password on first use, from localhost)."""
    client = app.test_client()
    store = app.extensions["gintray"].store
    from webui.common.security import DIRECTOR_KEY

    if store.get_setting(DIRECTOR_KEY) is None:
        token = csrf_token(client, "/director/setup")
        r = client.post("/director/setup", data={"csrf_token": token, "password": password,
                                                 "again": password})
        assert r.status_code == 302
    else:
        token = csrf_token(client, "/director/login")
        r = client.post("/director/login", data={"csrf_token": token, "password": password})
        assert r.status_code == 302
    return client


def frame_level_demo_layout(tmp_path: Path) -> str:
    """The demo's layout without native-scale tiling, for feeds driven by the demo's labels.

    `vision.demo.verify.TruthDetector` answers one whole frame per call, so the reader must not
    cut frames into tiles (the bundled layout asks for tiles, which the real model needs).
    """
    from dataclasses import replace

    from vision.table.layout import load_layout, save_layout

    demo = Path(__file__).resolve().parents[1] / "vision" / "demo"
    path = tmp_path / "frame-level-layout.json"
    save_layout(replace(load_layout(demo / "layout.json"), detector_scale=None), path)
    return str(path)
