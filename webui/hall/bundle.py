"""The event's bundle: every signed score sheet of every table in one zip.

Per signed game: the sheet as a digitally signed PDF (``render_sheet_pdf`` and ``sign_pdf``
of the shared kit, ``webui.common``, signed with the hall's own key) and the game as JSON
(the fields of the table app's JSON export: sheet, signatures, match; its history holds that
game's events and the table's settings events, not the table's whole history).
``manifest.json`` lists every file with its SHA-256 and the standings at export time. A signed
game never changes (a reopened one is a new sheet), so with a cache folder each game's files
are made once (``webui.hall.bundler`` builds the zip in the background with progress).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from webui.common import sheetview
from webui.common.durable import write_atomically
from webui.common.pdf import render_sheet_pdf, sheet_context
from webui.common.signing import SigningIdentity, sign_pdf
from webui.store import Store
from webui.store.db import EventRow
from webui.store.state import sheet_hash


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
    (``webui.table.exports.export_json``) but only this game's events as its history."""
    return {"table": state.name, "players": state.players, "rules": state.rules,
            "game": game.to_json(),
            "signatures": {p: {"name": s.get("name"), "png_base64": s["png"]}
                           for p, s in game.signatures.items()},
            "match": state.match_json(),
            "history_of": f"game {game.number} and the table's settings",
            "history": [e.to_json() for e in game_events(events, game.number)],
            "table_last_seq": state.last_seq,
            "exported_at": datetime.now(UTC).isoformat()}


@dataclass(frozen=True)
class Progress:
    """How far a bundle build is: games done of all, and how many were signed now (the
    others came from the cache: a signed game never changes)."""

    done: int
    total: int
    signed_now: int


def _cached(cache: Path | None, key: str, make: Callable[[], bytes]) -> tuple[bytes, bool]:
    """The file ``key`` from the cache, else made (and kept); whether it was made now."""
    if cache is None:
        return make(), True
    path = cache / key
    if path.exists():
        return path.read_bytes(), False
    data = make()
    write_atomically(path, data)  # a reader never sees half a file, nor a cut
    return data, True


def build_bundle(store: Store, identity: SigningIdentity, extra: dict[str, Any] | None = None,
                 cache: Path | None = None,
                 progress: Callable[[Progress], None] | None = None) -> bytes:
    """The zip of every signed sheet: a signed PDF and a JSON per game (each table's events
    read once; each game's JSON holds only its own events). With a ``cache`` folder each
    signed game's files are made once, keyed by its sheet's hash (a game reopened and signed
    again is a new sheet); ``progress`` is told after each game."""
    buf = io.BytesIO()
    manifest: dict[str, Any] = {"exported_at": datetime.now(UTC).isoformat(), "files": [],
                                **(extra or {})}
    events: dict[int, list[EventRow]] = {}
    games = signed_games(store)
    signed_now = 0
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for done, (table_id, game_no) in enumerate(games, start=1):
            state = store.state(table_id)
            game = state.game_by_number(game_no)
            stamp = f"t{table_id}-g{game_no}-{sheet_hash(state, game)[:24]}"
            base = f"table-{table_id:03d}-{_slug(state.name)}/game-{game_no}"

            def pdf(state: Any = state, game: Any = game, game_no: int = game_no,
                    table_id: int = table_id) -> bytes:
                view = sheetview.game_view(state, game)
                signatures = {p: base64.b64decode(s["png"]) for p, s in game.signatures.items()}
                document = render_sheet_pdf(state, view, signatures, state.last_seq,
                                            sheet_context(store, table_id, game))
                reason = f"gintray score sheet, {state.name}, game {game_no} (event bundle)"
                return sign_pdf(document, identity, reason)

            def body(state: Any = state, game: Any = game, table_id: int = table_id) -> bytes:
                nonlocal events
                if table_id not in events:
                    events = {table_id: [e for e in store.events(table_id)
                                         if e.seq <= state.last_seq]}
                return json.dumps(game_json(state, game, events[table_id]), indent=2,
                                  ensure_ascii=False).encode()

            pdf_data, made = _cached(cache, f"{stamp}.pdf", pdf)
            json_data, _ = _cached(cache, f"{stamp}.json", body)
            signed_now += made
            for name, data in ((f"{base}.pdf", pdf_data), (f"{base}.json", json_data)):
                zf.writestr(name, data)
                manifest["files"].append({"name": name, "sha256": hashlib.sha256(data).hexdigest(),
                                          "table": table_id, "game": game_no,
                                          "players": dict(state.players)})
            if progress is not None:
                progress(Progress(done, len(games), signed_now))
        zf.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
    return buf.getvalue()
