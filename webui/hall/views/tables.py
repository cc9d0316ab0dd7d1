"""One table of the event: its page, the director's correction of a hand or reopening of a
signed game (applied at once, or sent to a synced table for its next sync), and a forfeit."""

from __future__ import annotations

import uuid
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy import select

from webui.common.errors import refuse, wants_json
from webui.common.proposal_form import parse_proposal
from webui.common.refusal import Refusal
from webui.common.security import director_required, store
from webui.common.validate import plain_text
from webui.common.words import local_time
from webui.hall import audit, awards, clock, roster, stations, tournament
from webui.hall.actions import (
    ActionKind,
    DirectorAction,
    at_revision,
    parse_action,
    request_slot,
    request_words,
)
from webui.hall.audit import AuditAction
from webui.hall.health import table_health
from webui.hall.schema import DirectorReply, DirectorRequest, RequestSlot
from webui.hall.sync import linked_tables, pending_requests
from webui.hall.views.base import director_name, done, refusals
from webui.hall.views.sync import stall_after
from webui.store import Actor, commands
from webui.store.db import commit_first
from webui.store.engine import PLAYERS, other_player

bp = Blueprint("tables", __name__)


def requests_json() -> list[dict[str, Any]]:
    """The latest director requests sent to synced tables, newest first, with the tables'
    replies."""
    with store().Session() as s:
        reqs = list(s.scalars(select(DirectorRequest).order_by(DirectorRequest.id.desc())
                              .limit(50)))
        replies = {r.request_id: r for r in s.scalars(
            select(DirectorReply).where(DirectorReply.request_id.in_(
                [q.request_id for q in reqs])))}
    out = []
    for q in reqs:
        reply = replies.get(q.request_id)
        out.append({"request_id": q.request_id, "table": q.table_id, "kind": q.kind,
                    "payload": q.payload, "at": q.created_at.isoformat(), "by": q.actor,
                    "words": request_words(q.kind, q.payload),
                    "status": reply.status if reply else "waiting for the table's sync",
                    "message": reply.message if reply else ""})
    return out


def refused_requests(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests (of ``requests_json``, newest first) the table refused and that are still
    the latest word on their hand or game: a later request of the same hand replaces it."""
    latest: dict[tuple[int, str], dict[str, Any]] = {}
    for r in requests:
        latest.setdefault((r["table"], request_slot(r["kind"], r["payload"])), r)
    return [r for r in latest.values() if r["status"] == "refused"]


def _table_or_404(table_id: int) -> None:
    if store().table(table_id) is None:
        refuse(404, "no such table in this event")


@bp.get("/tables/<int:table_id>")
@director_required
def page(table_id: int) -> Any:
    _table_or_404(table_id)
    state = store().state(table_id)
    mirrored = table_id in linked_tables(store())
    requests = [r for r in requests_json() if r["table"] == table_id]
    summary = tournament.table_summary(store(), table_id, mirrored)
    summary["sync"] = table_health(store(), [summary],
                                   stall_after=stall_after())[table_id].to_json()
    return render_template("hall/table.html", state=state, mirrored=mirrored,
                           summary=summary, requests=requests,
                           refused=refused_requests(requests))


def director_action(table_id: int, action: DirectorAction) -> dict[str, Any]:
    """A director's correction of a hand (``correct``) or reopening of a signed game
    (``reopen``): checked against the event database's copy, then run at once (a table on the
    event database) or sent to the table, whose next sync runs it (a mirrored table). One
    refused because another director got there first (a 409) is audited too, with why."""
    try:
        return _director_action(table_id, action)
    except Refusal as exc:
        if exc.status == 409:
            audit.record(store(), director_name(), AuditAction(action.kind.value),
                         f"{action.kind.value} of {_what(action)} refused: {exc.message}",
                         table_id)
        raise


def _director_action(table_id: int, action: DirectorAction) -> dict[str, Any]:
    if action.kind is ActionKind.CORRECT:
        assert action.hand is not None and action.revision is not None
        command = at_revision(commands.propose(action.game, action.hand,
                                               parse_proposal(action.proposal),
                                               source="director", director=True),
                              action.game, action.hand, action.revision)
        payload: dict[str, Any] = {"game": action.game, "hand": action.hand,
                                   "revision": action.revision, "proposal": action.proposal}
    else:
        command = commands.reopen(action.game, plain_text(action.reason, "reason",
                                                          commands.REOPEN_REASON_MAX))
        payload = {"game": action.game, "reason": action.reason}
    command(store().state(table_id))  # raises Refusal now if it cannot apply
    request_id = f"hall-{uuid.uuid4().hex}"
    by = director_name()
    words = request_words(action.kind.value, payload)
    if table_id in linked_tables(store()):
        _refuse_a_second_waiting_request(table_id, action)
        with store().Session() as s:  # the request and its slot: one of them at a time
            s.add(DirectorRequest(request_id=request_id, table_id=table_id,
                                  kind=action.kind.value, payload=payload, actor=by))
            s.add(RequestSlot(table_id=table_id, slot=request_slot(action.kind.value, payload),
                              request_id=request_id))
            if not commit_first(s):  # another director's request took the slot just now
                _refuse_a_second_waiting_request(table_id, action)
                raise Refusal(f"another director just sent a "
                              f"{action.kind.value} of {_what(action)}; it is waiting "
                              "for the table's sync: check the table after it applies",
                              code="request_waiting", status=409)
        audit.record(store(), by, AuditAction(action.kind.value),
                     f"{words}; sent to the table ({request_id})", table_id)
        return {"status": "sent", "request_id": request_id,
                "message": "sent to the table: it applies at its next sync"}
    outcome = store().execute(table_id, command, Actor("director"), request_id=request_id)
    audit.record(store(), by, AuditAction(action.kind.value),
                 f"{words}; applied ({request_id})", table_id)
    return {"status": "applied", "request_id": request_id,
            "seqs": [e.seq for e in outcome.events]}


def _hms(at: Any) -> str:
    """A stored time as the hall shows it: local, with the zone ("14:02:07 CET")."""
    return local_time(at, "%H:%M:%S", current_app.config.get("TIMEZONE"))


def _what(action: DirectorAction) -> str:
    return f"game {action.game}, hand {action.hand}" if action.hand else f"game {action.game}"


def _refuse_a_second_waiting_request(table_id: int, action: DirectorAction) -> None:
    """A mirrored table's hand (or game) with a request still waiting for the table's sync
    cannot take a second one: the director would be correcting a result nobody has seen.
    (This check says which request waits; the request's slot, stored with it, is what makes
    it hold when two directors send at the same instant.)"""
    for req in pending_requests(store(), table_id):
        p = req.payload
        same = (req.kind == action.kind.value and p.get("game") == action.game
                and (action.kind is ActionKind.REOPEN or p.get("hand") == action.hand))
        if same:
            raise Refusal(f"a {req.kind} of {_what(action)} sent at "
                          f"{_hms(req.created_at)} by {req.actor} is "
                          "waiting for the table's sync; check the table after it "
                          "applies", code="request_waiting", status=409)


def _body() -> Any:
    """The request's body: a JSON value (None when it is not JSON) or the form as a dict."""
    if request.is_json:
        try:
            return request.get_json(silent=True)
        except RecursionError:  # "[[[[..." thousands deep: the decoder's own limit
            raise Refusal("the request body is nested too deeply", code="bad_body", status=400) \
                from None
    return request.form.to_dict()


@bp.post("/tables/<int:table_id>/<any(correct, reopen):kind>")
@director_required
@refusals(endpoint="tables.page", args=("table_id",))
def act(table_id: int, kind: str) -> Any:
    """Correct a hand or reopen a signed game of one table (a bad body included: a 400
    naming it, never a 500)."""
    _table_or_404(table_id)
    result = director_action(table_id, parse_action(kind, _body()))
    if wants_json():
        return jsonify(result)
    made = "Correction applied." if kind == "correct" else "Game reopened."
    flash(made if result["status"] == "applied" else result["message"])
    return redirect(url_for("tables.page", table_id=table_id), 303)


@bp.post("/tables/<int:table_id>/forfeit")
@director_required
@refusals("tables")
def forfeit(table_id: int) -> Any:
    """A player did not show: the match is a forfeit, won by the other (no points)."""
    absent = request.form.get("absent", "")
    _table_or_404(table_id)
    if absent not in PLAYERS:
        raise Refusal("Say which seat did not show.")
    state = store().state(table_id)
    if state.match().complete:
        raise Refusal("This match is decided: no forfeit.")
    seats = roster.table_players(store(), [(table_id, state.players)])[table_id]
    present = other_player(absent)
    current = clock.current_round(store())
    number = stations.round_of_table(store(), table_id) or (current.number if current else 1)
    kinds = {present: awards.AwardKind.FORFEIT_WON, absent: awards.AwardKind.FORFEIT_LOST}
    for seat, kind in kinds.items():
        if not awards.give(store(), awards.Award(number, seats[seat], kind, table_id),
                           director_name()):
            raise Refusal(f"{state.players[seat]} has a result for round {number} "
                          "already.")
    return done(AuditAction.FORFEIT, f"table {table_id} {state.name}: "
                f"{state.players[absent]} did not show, {state.players[present]} wins by "
                f"forfeit (round {number})",
                f"{state.players[present]} wins by forfeit: {state.players[absent]} did not "
                "show.", "tables")
