"""The hall's heartbeat (``/alive``, public): whether the event database answers now. Open
pages without a live section ask it every few seconds (``static/hall.js``) to say "hall
offline since ..." while it does not (the 503 comes from the one database-away handler)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify
from sqlalchemy import text

from webui.common.security import store

bp = Blueprint("alive", __name__)


@bp.get("/alive")
def alive() -> Any:
    """200 ``{"ok": true}`` when the event database answers; else the 503 of
    ``create_hall_app``'s handler (with since when). Names nothing of the event."""
    with store().engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return jsonify({"ok": True})
