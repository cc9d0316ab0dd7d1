"""The event's bundle: every signed score sheet of every table in one zip.

Per signed game: the sheet as a digitally signed PDF (the table app's ``render_sheet_pdf`` and
``sign_pdf``, signed with the hall's own key) and the table app's JSON export (sheet,
signatures, full event history). ``manifest.json`` lists every file with its SHA-256 and the
standings at export time.
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
from webui.exports import export_json
from webui.pdf import render_sheet_pdf
from webui.signing import SigningIdentity, sign_pdf
from webui.store import Store


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "table"


def signed_games(store: Store) -> list[tuple[int, int]]:
    """(table id, game number) of every game both players signed."""
    out = []
    for table in store.tables():
        state = store.state(table.id)
        out += [(table.id, g.number) for g in state.games if g.locked]
    return out


def build_bundle(store: Store, identity: SigningIdentity, extra: dict[str, Any] | None = None
                 ) -> bytes:
    """The zip of every signed sheet (needs an app context: ``export_json`` reads the store
    of the current app)."""
    buf = io.BytesIO()
    manifest: dict[str, Any] = {"exported_at": datetime.now(UTC).isoformat(), "files": [],
                                **(extra or {})}
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for table_id, game_no in signed_games(store):
            state = store.state(table_id)
            game = state.game_by_number(game_no)
            view = sheetview.game_view(state, game)
            signatures = {p: base64.b64decode(s["png"]) for p, s in game.signatures.items()}
            document = render_sheet_pdf(state, view, signatures, store.last_seq(table_id))
            reason = f"gintray score sheet, {state.name}, game {game_no} (event bundle)"
            base = f"table-{table_id:03d}-{_slug(state.name)}/game-{game_no}"
            files = {f"{base}.pdf": sign_pdf(document, identity, reason),
                     f"{base}.json": json.dumps(export_json(state, game), indent=2,
                                                ensure_ascii=False).encode()}
            for name, data in files.items():
                zf.writestr(name, data)
                manifest["files"].append({"name": name, "sha256": hashlib.sha256(data).hexdigest(),
                                          "table": table_id, "game": game_no,
                                          "players": dict(state.players)})
        zf.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
    return buf.getvalue()
