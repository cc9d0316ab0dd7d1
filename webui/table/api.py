"""State-changing calls (JSON or plain form posts), all CSRF-protected, plus the live streams.

Every call answers only after its events are committed. JSON callers get the new state (or
``{"error": {"code", "message"}}``); form posts are redirected back to the table page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    flash,
    g,
    jsonify,
    redirect,
    request,
    url_for,
)

from webui.common.errors import refuse, wants_json
from webui.common.proposal_form import parse_proposal
from webui.common.refusal import Refusal
from webui.common.security import client_address, is_director, safe_next, store
from webui.common.validate import json_body, plain_text, playing_card, whole_number
from webui.store import Command, commands
from webui.store.event_kind import EventKind
from webui.table.live import (
    Lease,
    StreamKey,
    StreamKind,
    StreamLimit,
    StreamSlots,
    sse_stream,
    stream_slots,
)
from webui.table.parts import table_parts
from webui.table.security import (
    actor_for,
    current_device,
    may_act_for,
    request_id,
    require_viewer,
    seats_of,
)
from webui.table.views import table_or_404

bp = Blueprint("api", __name__, url_prefix="/api/t/<int:table_id>")

FORM_GROUPED = ("cards", "melds", "layout", "laid_off")
MAX_STREAM_S = 600  # a live stream (events, camera) ends after this; the page reconnects


def stream_seconds() -> int:
    """The ``max`` query argument of a live stream: whole seconds, at most MAX_STREAM_S."""
    return whole_number(request.args.get("max", MAX_STREAM_S), "max", 0, MAX_STREAM_S)


@bp.before_request
def load_body() -> None:
    """Accept JSON bodies and form posts alike (form fields cards_A, melds_B, ...)."""
    if request.method != "POST":
        return
    if request.is_json:
        body = json_body(request.get_data(cache=True))
        if not isinstance(body, dict):
            refuse(400, "the body must be a JSON object")
    else:
        body = {k: v for k, v in request.form.items() if k != "csrf_token"}
        for name in FORM_GROUPED:
            grouped = {k[len(name) + 1:]: body.pop(k) for k in list(body)
                       if k.startswith(name + "_")}
            if grouped:
                body[name] = grouped
    g.body = body
    table_id = (request.view_args or {}).get("table_id")
    if table_id is not None:  # a refused plain form post goes back to its page
        g.refused_back = safe_next(body.get("next")) or url_for("views.table_page",
                                                                 table_id=table_id)


def _back(table_id: int) -> Any:
    """Where a plain form post returns: ``next`` if it is a path of this site, else the table."""
    target = safe_next(g.body.get("next")) or url_for("views.table_page", table_id=table_id)
    return redirect(target), 303


def _whole(name: str) -> int:
    """The whole number the body sends as ``name`` (game, hand, revision, target_seq)."""
    return whole_number(g.body.get(name), name)


def _answer(table_id: int, make: Callable[[], Command], success: str, kind: EventKind) -> Any:
    """Run the command ``make`` builds from the checked request (its first event of
    ``kind``) for this device, once the table and the device are known, and answer."""
    table_or_404(table_id)
    actor = actor_for(table_id)
    done = store().execute(table_id, make(), actor, request_id(), kind)
    if wants_json():
        state = store().state(table_id)
        return jsonify({"ok": True, "duplicate": done.duplicate,
                        "events": [e.to_json() for e in done.events],
                        "state": state.to_json()})
    flash(success if done.events else "Nothing changed.")
    return _back(table_id)


@bp.get("/state")
def get_state(table_id: int) -> Any:
    table_or_404(table_id)
    require_viewer(table_id)
    return jsonify(store().state(table_id).to_json())


@bp.post("/knock-card")
def knock_card(table_id: int) -> Any:
    b = g.body
    return _answer(table_id,
                   lambda: commands.set_knock_card(_whole("game"), _whole("hand"),
                                                   playing_card(b.get("card"))),
                   "Knock card recorded.", EventKind.KNOCK_CARD_SET)


@bp.post("/proposal")
def proposal(table_id: int) -> Any:
    b = g.body
    director = is_director() and bool(b.get("director"))
    return _answer(table_id, lambda: commands.propose(_whole("game"), _whole("hand"),
                                                      parse_proposal(b), director=director),
                   "Result proposed: both players confirm it.", EventKind.PROPOSAL_SET)


def _require_player_tablet(table_id: int, player: Any) -> None:
    """404 for an unknown table, 403 unless this tablet is joined and may act for ``player``."""
    table_or_404(table_id)
    actor_for(table_id)
    if not may_act_for(table_id, player):
        refuse(403, "this tablet is not joined for that player")


@bp.post("/confirm")
def confirm(table_id: int) -> Any:
    b = g.body
    player = b.get("player")
    _require_player_tablet(table_id, player)
    return _answer(table_id, lambda: commands.confirm(_whole("game"), _whole("hand"), player,
                                                      _whole("revision")),
                   "Confirmed.", EventKind.CONFIRMED)


@bp.post("/undo")
def undo(table_id: int) -> Any:
    table_or_404(table_id)
    actor_for(table_id)
    events = store().events(table_id)
    return _answer(table_id,
                   lambda: commands.undo(_whole("target_seq"), events, seats_of(table_id)),
                   "Undone.", EventKind.UNDO)


@bp.post("/sign")
def sign(table_id: int) -> Any:
    b = g.body
    player = b.get("player")
    _require_player_tablet(table_id, player)
    return _answer(table_id,
                   lambda: commands.sign(_whole("game"), player, b.get("png"), b.get("sheet")),
                   "Signed.", EventKind.SIGNED)


@bp.post("/next-game")
def next_game(table_id: int) -> Any:
    return _answer(table_id, lambda: commands.next_game(g.body.get("dealer")),
                   "Next game started.", EventKind.GAME_STARTED)


@bp.post("/reopen")
def reopen(table_id: int) -> Any:
    if not is_director():
        refuse(403, "only the director can reopen a signed game")
    b = g.body
    return _answer(table_id, lambda: commands.reopen(
        _whole("game"), plain_text(b.get("reason"), "reason", commands.REOPEN_REASON_MAX)),
                   "Game reopened (recorded).", EventKind.REOPENED)


def _stream_slot(table_id: int, kind: StreamKind) -> tuple[StreamSlots, Lease]:
    """A live-stream slot for this device at this table (429 when the table or the server
    has too many open; a device at its own limit gives up its oldest stream)."""
    slots = stream_slots()
    device = current_device(table_id)
    key = (StreamKey(table_id, f"device:{device.id}", device.id) if device is not None
           else StreamKey(table_id, f"address:{client_address()}"))
    try:
        lease = slots.acquire(key, kind)
    except StreamLimit as exc:
        raise Refusal(str(exc), code="too_many_streams", status=429) from None
    return slots, lease


@bp.get("/events")
def events(table_id: int) -> Response:
    """Server-sent events: ``change`` whenever the table or its camera changes, ``ended``
    (with the reason) when the server ends the stream."""
    table_or_404(table_id)
    require_viewer(table_id)
    limit = stream_seconds()
    notifier = table_parts().notifier
    st = store()
    slots, lease = _stream_slot(table_id, StreamKind.EVENTS)
    stream = slots.held(lease, sse_stream(notifier, table_id, lambda: st.last_seq(table_id),
                                          lease, max_seconds=limit))
    return Response(stream, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/camera.mjpg")
def camera_mjpeg(table_id: int) -> Response:
    """The camera view with the cards it read outlined (multipart JPEG stream)."""
    table_or_404(table_id)
    require_viewer(table_id)
    limit = stream_seconds()
    feed = table_parts().cameras.get(table_id)
    if feed is None:
        refuse(404, "this table has no camera running")
    slots, lease = _stream_slot(table_id, StreamKind.CAMERA)
    return Response(slots.held(lease, feed.mjpeg(max_seconds=limit, lease=lease)),
                    mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})


@bp.get("/camera.jpg")
def camera_jpeg(table_id: int) -> Response:
    """The latest annotated camera picture."""
    table_or_404(table_id)
    require_viewer(table_id)
    feed = table_parts().cameras.get(table_id)
    jpeg = feed.latest_jpeg() if feed else None
    if jpeg is None:
        refuse(404, "no camera picture yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
