"""Exports of a game's score sheet: digitally signed PDF, CSV, JSON; camera snapshots."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, send_file

from webui.common import sheetview
from webui.common.errors import refuse
from webui.common.pdf import render_sheet_pdf, sheet_context
from webui.common.security import store
from webui.common.signing import sign_pdf
from webui.table.parts import table_parts
from webui.table.security import require_viewer
from webui.table.views import table_or_404

bp = Blueprint("exports", __name__, url_prefix="/t/<int:table_id>")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# the camera's snapshot files (letters, digits, - and _, .jpg): far shorter than any file
# system's limit, so a longer name is simply not found
SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_-]{1,120}\.jpg")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string that it would read as a formula
    (starting with = + - @, tab or CR) gets a leading apostrophe. Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class _SafeWriter:
    """``csv.writer`` whose rows go through ``csv_cell``."""

    def __init__(self, out: io.StringIO) -> None:
        self._writer = csv.writer(out)

    def writerow(self, row: list[Any]) -> None:
        self._writer.writerow([csv_cell(v) for v in row])


def _game(table_id: int, game_no: int) -> tuple[Any, Any, dict[str, Any]]:
    table_or_404(table_id)
    require_viewer(table_id)
    state = store().state(table_id)
    game = state.game_by_number(game_no)
    if game is None:
        refuse(404, "no such game")
    return state, game, sheetview.game_view(state, game)


def _filename(state: Any, game: Any, ext: str) -> str:
    """The export's file name; a game not signed by both players is a draft, and says so."""
    draft = "" if game.locked else "-draft"
    name = re.sub(r"[^A-Za-z0-9]+", "-", f"{state.name}-game-{game.number}").strip("-").lower()
    return f"gintray-{name}{draft}.{ext}"


def export_json(state: Any, game: Any) -> dict[str, Any]:
    """The game as JSON: settings, every hand with its proposal and confirmations, the sheet,
    signatures (as PNG base64) and the table's full event history."""
    return {"table": state.name, "players": state.players, "rules": state.rules,
            "game": game.to_json(),
            "signatures": {p: {"name": s.get("name"), "png_base64": s["png"]}
                           for p, s in game.signatures.items()},
            "match": state.match_json(),
            "history": [e.to_json() for e in store().events(state.table_id)],
            "exported_at": datetime.now(UTC).isoformat()}


@bp.get("/games/<int:game_no>/export.json")
def json_export(table_id: int, game_no: int) -> Response:
    state, game, _view = _game(table_id, game_no)
    body = json.dumps(export_json(state, game), indent=2, ensure_ascii=False)
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="{_filename(state, game, "json")}"'})


@bp.get("/games/<int:game_no>/export.csv")
def csv_export(table_id: int, game_no: int) -> Response:
    state, game, view = _game(table_id, game_no)
    out = io.StringIO()
    writer = _SafeWriter(out)
    writer.writerow(["game", "hand", "dealer", "knock_card", "result", "winner", "points",
                     f"total_{view['players']['A']}", f"total_{view['players']['B']}"])
    for r in view["rows"]:
        writer.writerow([view["number"], r["hand"], view["players"][r["dealer"]], r["knock"] or "",
                         r["text"], view["players"].get(r["winner"], "") if r["winner"] else "",
                         r["points"], r["totals"]["A"], r["totals"]["B"]])
    for b in view["bonuses"]:
        writer.writerow([view["number"], "", "", "", b["label"], "", "", b["A"], b["B"]])
    if view["finals"]:
        writer.writerow([view["number"], "", "", "", "final" if view["winner"] else "running",
                         view["players"].get(view["winner"], "") if view["winner"] else "", "",
                         view["finals"]["A"], view["finals"]["B"]])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{_filename(state, game, "csv")}"'})


def stored_png(value: Any) -> bytes:
    """A stored signature's PNG bytes (empty when its base64 is damaged: the PDF then says
    the picture cannot be drawn)."""
    try:
        return base64.b64decode(str(value or ""), validate=True)
    except (ValueError, TypeError):
        return b""


@bp.get("/games/<int:game_no>/export.pdf")
def pdf(table_id: int, game_no: int) -> Response:
    """The score sheet with both drawn signatures, digitally signed by this installation."""
    state, game, view = _game(table_id, game_no)
    signatures = {p: stored_png(s.get("png")) for p, s in game.signatures.items()}
    document = render_sheet_pdf(state, view, signatures, store().last_seq(table_id),
                                sheet_context(store(), table_id, game))
    reason = (f"gintray score sheet, {state.name}, game {game_no}"
              + (" (signed by both players)" if game.locked else " (not signed by the players)"))
    signed = sign_pdf(document, table_parts().identity, reason)
    return send_file(io.BytesIO(signed), mimetype="application/pdf", as_attachment=True,
                     download_name=_filename(state, game, "pdf"))


@bp.get("/snapshots/<name>")
def snapshot(table_id: int, name: str) -> Response:
    """A camera picture saved with a proposal (cards read outlined)."""
    require_viewer(table_id)
    if not SNAPSHOT_NAME.fullmatch(name):
        refuse(404, "no such picture")
    path = Path(current_app.config["DATA_DIR"]) / "snapshots" / str(table_id) / name
    try:
        found = path.is_file()
    except OSError:  # a name the file system refuses (too long for it, say)
        found = False
    if not found:
        refuse(404, "no such picture")
    return send_file(path, mimetype="image/jpeg")
