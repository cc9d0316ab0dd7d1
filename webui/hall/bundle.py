"""The event's bundle: every signed score sheet of every table in one zip.

Per signed game: the sheet as a digitally signed PDF (the table app's ``render_sheet_pdf`` and
``sign_pdf``, signed with the hall's own key) and the game as JSON (the fields of the table
app's JSON export: sheet, signatures, match; its history holds that game's events and the
table's settings events, not the table's whole history). ``manifest.json`` lists every file
with its SHA-256 and the standings at export time.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import zipfile
from datetime import UTC, datetime
from typing import Any

from webui import sheetview
from webui.pdf import render_sheet_pdf
from webui.signing import SigningIdentity, sign_pdf
from webui.store import Store
from webui.store.db import EventRow


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "table"


def signed_games(store: Store) -> list[tuple[int, int]]:
    """(table id, game number) of every game both players signed."""
    out = []
    for table in store.tables():
        state = store.state(table.id)
        out += [(table.id, g.number) for g in state.games if g.locked]
    return out


def game_events(events: list[EventRow], game_no: int) -> list[EventRow]:
    """The events of one game (every event naming it) and the table's own events (created,
    settings changed), in order: what a game's JSON carries as its history."""
    return [e for e in events if e.payload.get("game", game_no) == game_no]


def game_json(state: Any, game: Any, events: list[EventRow]) -> dict[str, Any]:
    """One signed game as JSON, with the fields of the table app's export
    (``webui.exports.export_json``) but only this game's events as its history."""
    return {"table": state.name, "players": state.players, "rules": state.rules,
            "game": game.to_json(),
            "signatures": {p: {"name": s.get("name"), "png_base64": s["png"]}
                           for p, s in game.signatures.items()},
            "match": state.match_json(),
            "history_of": f"game {game.number} and the table's settings",
            "history": [e.to_json() for e in game_events(events, game.number)],
            "table_last_seq": state.last_seq,
            "exported_at": datetime.now(UTC).isoformat()}


def build_bundle(store: Store, identity: SigningIdentity, extra: dict[str, Any] | None = None
                 ) -> bytes:
    """The zip of every signed sheet: a signed PDF and a JSON per game (each table's events
    read once; each game's JSON holds only its own events)."""
    buf = io.BytesIO()
    manifest: dict[str, Any] = {"exported_at": datetime.now(UTC).isoformat(), "files": [],
                                **(extra or {})}
    events: dict[int, list[EventRow]] = {}
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for table_id, game_no in signed_games(store):
            state = store.state(table_id)
            game = state.game_by_number(game_no)
            if table_id not in events:
                events = {table_id: [e for e in store.events(table_id) if e.seq <= state.last_seq]}
            view = sheetview.game_view(state, game)
            signatures = {p: base64.b64decode(s["png"]) for p, s in game.signatures.items()}
            document = render_sheet_pdf(state, view, signatures, state.last_seq)
            reason = f"gintray score sheet, {state.name}, game {game_no} (event bundle)"
            base = f"table-{table_id:03d}-{_slug(state.name)}/game-{game_no}"
            files = {f"{base}.pdf": sign_pdf(document, identity, reason),
                     f"{base}.json": json.dumps(game_json(state, game, events[table_id]),
                                                indent=2, ensure_ascii=False).encode()}
            for name, data in files.items():
                zf.writestr(name, data)
                manifest["files"].append({"name": name, "sha256": hashlib.sha256(data).hexdigest(),
                                          "table": table_id, "game": game_no,
                                          "players": dict(state.players)})
        zf.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
    return buf.getvalue()
