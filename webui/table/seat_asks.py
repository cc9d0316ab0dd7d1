"""Taking a seat back: the pages of a tablet asking for its player's held seat (it lost its
cookie) and the Allow / Refuse of the table screen and the seated tablets.

The asking tablet keeps its request's token in its session (``seat_asks``) and waits on
``/t/N/join/wait``, which lets it in once the request is allowed. A request made while the
PIN limiter of all addresses together waits (``attempts.begin``) is "hidden": a wrong PIN
gets the same waiting page with no request behind it, and a refused request is told only when
it would have expired, so the page says nothing about whether the PIN was right.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from webui.common.errors import refuse
from webui.common.security import is_director, store
from webui.store import seat_requests
from webui.store.seat_requests import Asked, Status
from webui.table.live import stream_slots
from webui.table.security import current_device, may_see_screen, remember_device

bp = Blueprint("seat_asks", __name__)
SESSION_KEY = "seat_asks"


def ask_for_seat(table_id: int, seat: str, label: str, right_pin: bool, hidden: bool) -> Any:
    """Record this tablet's request for ``seat`` (only with the right PIN: a wrong one under
    the busy limiter gets a request nobody sees) and send it to the waiting page."""
    if right_pin:
        token = store().seat_asks.ask(table_id, seat, label, current_device(table_id))
        store().log.notify(table_id, 0)  # the table screen and the tablets show it now
    else:
        token = secrets.token_urlsafe(32)
    asks = dict(session.get(SESSION_KEY) or {})
    asks[str(table_id)] = {"token": token, "seat": seat, "hidden": hidden,
                           "at": seat_requests.now().timestamp()}
    session[SESSION_KEY] = asks
    return redirect(url_for("seat_asks.wait", table_id=table_id), 303)


def pending_for_page(table_id: int) -> list[Asked]:
    """The requests a page shows with Allow / Refuse: the table screen's and the director's,
    and a tablet's that holds a seat of the table (not its own requests); none for anyone
    else."""
    if not may_decide(table_id):
        return []
    return [r for r in store().seat_asks.pending(table_id) if not _own_request(table_id, r.id)]


def may_decide(table_id: int) -> bool:
    """The table screen (this machine), the director, or a tablet holding a seat here."""
    if may_see_screen() or is_director():
        return True
    device = current_device(table_id)
    return device is not None and store().holds_seat(device)


def decider_name(table_id: int) -> str:
    if is_director():
        return "director"
    device = current_device(table_id)
    if device is not None and store().holds_seat(device):
        return f"tablet {device.label}"
    return "table screen"


@bp.get("/t/<int:table_id>/join/wait")
def wait(table_id: int) -> Any:
    """The asking tablet's page: waits (reloading itself) until its request is allowed, then
    takes the seat; says so when it was refused or expired."""
    from webui.table.views import no_store, table_or_404

    table = table_or_404(table_id)
    ask = (session.get(SESSION_KEY) or {}).get(str(table_id))
    if not isinstance(ask, dict):
        return redirect(url_for("views.join", table_id=table_id))
    asked = store().seat_asks.for_token(ask.get("token"))
    players = store().state(table_id).players
    name = players.get(ask.get("seat"), "this player")
    if asked is not None and asked.status is Status.ALLOWED:
        remember_device(table_id, ask["token"])
        _forget_ask(table_id)
        flash(f"This tablet now holds {name}'s seat at {table.name}."
              + (f" The tablet {asked.holder.label!r} was signed out." if asked.holder else ""))
        return redirect(url_for("views.table_page", table_id=table_id))
    expires = datetime.fromtimestamp(float(ask.get("at", 0)), UTC) + seat_requests.REQUEST_TTL
    waiting = seat_requests.now() < expires and (
        asked is None or asked.status is Status.PENDING or bool(ask.get("hidden")))
    if not waiting:
        _forget_ask(table_id)
    return no_store(render_template(
        "join_wait.html", table=table, name=name, waiting=waiting, expires=expires,
        outcome=None if waiting else _outcome(asked, bool(ask.get("hidden")))))


def _outcome(asked: Asked | None, hidden: bool) -> str:
    """Why the tablet did not get the seat, in words (a hidden request: one sentence for all)."""
    if hidden or asked is None:
        return ("The seat was not given to this tablet: the request was refused or not "
                "answered in time (or the PIN was wrong). Try again.")
    if asked.status is Status.REFUSED:
        return "The request was refused on the table's screen or the other tablet."
    if asked.status is Status.REPLACED:
        return "Another tablet asked for this seat after this one: its request replaced this one."
    minutes = int(seat_requests.REQUEST_TTL.total_seconds() // 60)
    return f"Nobody answered the request within {minutes} minutes: ask again."


def _own_request(table_id: int, request_id: int) -> bool:
    """Whether request ``request_id`` was made by this browser (its session's token, or the
    device it had joined the table with)."""
    ask = (session.get(SESSION_KEY) or {}).get(str(table_id))
    mine = store().seat_asks.for_token(ask.get("token")) if isinstance(ask, dict) else None
    if mine is not None and mine.id == request_id:
        return True
    device = current_device(table_id)
    return device is not None and any(r.id == request_id and r.asker_id == device.id
                                      for r in store().seat_asks.pending(table_id))


def _forget_ask(table_id: int) -> None:
    asks = dict(session.get(SESSION_KEY) or {})
    asks.pop(str(table_id), None)
    session[SESSION_KEY] = asks


@bp.post("/t/<int:table_id>/seat-requests/<int:request_id>")
def decide(table_id: int, request_id: int) -> Any:
    """Allow or refuse a tablet's request for a seat (``answer``: allow / refuse)."""
    from webui.table.views import table_or_404

    table_or_404(table_id)
    if not may_decide(table_id):
        refuse(403, "only the table's screen, the director or a seated tablet "
                   "may answer a request for a seat")
    if _own_request(table_id, request_id):
        refuse(403, "a tablet cannot answer its own request for a seat: the table's "
                   "screen or the other player's tablet does")
    answer = request.form.get("answer")
    by = decider_name(table_id)
    players = store().state(table_id).players
    if answer == "allow":
        done = store().seat_asks.allow(table_id, request_id, by)
        if isinstance(done, str):
            flash(done, "error")
        else:
            if done.displaced is not None:  # signed out: its live streams end now
                stream_slots().end_device(table_id, done.displaced.id)
            flash(f"The tablet {done.device.label!r} now holds "
                  f"{players.get(done.device.seat, '?')}'s seat"
                  + (f"; the tablet {done.displaced.label!r} was signed out."
                     if done.displaced else "."))
    elif answer == "refuse":
        problem = store().seat_asks.refuse(table_id, request_id, by)
        flash(problem or "The request was refused.", "error" if problem else "message")
    else:
        refuse(400, "answer must be allow or refuse")
    store().log.notify(table_id, 0)
    current_app.logger.info("seat request %s of table %s: %s by %s", request_id, table_id,
                            answer, by)
    if request.form.get("back") == "screen" and may_see_screen():
        return redirect(url_for("views.screen", table_id=table_id))
    if current_device(table_id) is not None or is_director():
        return redirect(url_for("views.table_page", table_id=table_id))
    return redirect(url_for("views.screen", table_id=table_id))
