"""The director's page of a whole event: tables live, standings, draw, partnerships, bundle."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    send_file,
    session,
    url_for,
)
from sqlalchemy import select

from webui.common import attempts
from webui.common.director_auth import login_page, setup_page
from webui.common.errors import wants_json
from webui.common.security import (
    director_required,
    is_director,
    login_director,
    logout_director,
    store,
)
from webui.common.validate import whole_number
from webui.hall import (
    adjustments,
    adoption,
    audit,
    awards,
    directors,
    entries,
    merges,
    projector,
    roster,
    stations,
    tiebreaks,
)
from webui.hall import clock as clock_mod
from webui.hall import event as event_mod
from webui.hall import pairing as pairing_mod
from webui.hall.actions import (
    MAX_SEQ,
    ActionKind,
    DirectorAction,
    at_revision,
    parse_action,
)
from webui.hall.adjustments import AdjustmentKind
from webui.hall.audit import AuditAction
from webui.hall.bundler import Bundler, signed_set
from webui.hall.draw import DrawError, blind_draw
from webui.hall.health import SyncState, table_health
from webui.hall.partnership import PartnershipError, check_teams, partnership_view
from webui.hall.schema import (
    DirectorReply,
    DirectorRequest,
    Draw,
    DrawSeating,
    Partnership,
    SyncRefusal,
)
from webui.hall.swiss import PairingError
from webui.hall.sync import linked_tables, pending_requests
from webui.store import Actor, CommandError, commands, engine
from webui.store.db import commit_first

bp = Blueprint("hall", __name__, static_folder="static", static_url_path="/hall-static")


def blueprints() -> list[Blueprint]:
    """The hall's blueprints, for ``create_hall_app``."""
    return [bp]


LOGIN_SCOPE = "hall-director"  # wrong director passwords at the hall (webui.common.attempts)


def _back_to(anchor: str = "") -> Any:
    """See Other to the director's page, at the section ``anchor`` when given."""
    return redirect(url_for("hall.index") + (f"#{anchor}" if anchor else ""), 303)


def _refused(message: str, anchor: str) -> Any:
    """A refused director action: the reason flashed as an error, back at ``anchor``."""
    flash(message, "error")
    return _back_to(anchor)


def _done(action: AuditAction, record: str, message: str, anchor: str) -> Any:
    """A director action done: written to the audit log (``record``), ``message`` flashed,
    back at ``anchor``."""
    audit.record(store(), director_name(), action, record)
    flash(message)
    return _back_to(anchor)


def _refusal(exc: Exception) -> str:
    """What a refused director action says: a command's message, else the error's text."""
    return exc.message if isinstance(exc, CommandError) else str(exc)


# the director ----------------------------------------------------------------------------------

@bp.before_request
def _end_stale_account_sessions() -> None:
    """A named director's session ends when the account's password changes (or it is gone);
    a session of the shared password ends once the event has named accounts."""
    if not session.get("director"):
        return
    account = session.get("director_account")
    if isinstance(account, dict):
        stale = not directors.still_valid(store(), int(account.get("id", 0)),
                                          str(account.get("mark", "")),
                                          str(current_app.secret_key))
    else:
        stale = directors.has_accounts(store())
    if stale:
        logout_director()
        session.pop("director_account", None)


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    """First run: the event's shared director password (only on this machine, only once;
    not once the event has named director accounts)."""
    if directors.has_accounts(store()):
        return redirect(url_for("hall.login"))
    return setup_page(template="hall/setup.html", login_endpoint="hall.login",
                      home_endpoint="hall.index", place="hall")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The director's login: own name and password (named accounts), or the event's shared
    password while it has no named account; wrong ones limited per address
    (``webui.common.attempts``, counted in the event database)."""
    address = request.remote_addr or "unknown"
    named = directors.has_accounts(store())
    if request.method == "POST":
        block = attempts.blocked(store(), LOGIN_SCOPE, address)
        if block is not None:
            error = (f"Too many wrong passwords from this address: try again in "
                     f"{_duration(block.retry_after_s)}.")
            return (render_template("hall/login.html", error=error, named=named), 429,
                    {"Retry-After": str(block.retry_after_s)})
        name = request.form.get("name", "").strip()
        if name or named:
            return _named_login(name, address, named)
    elif named:
        return render_template("hall/login.html", error=None, named=named)
    response = make_response(login_page(template="hall/login.html",
                                         setup_endpoint="hall.setup",
                                         home_endpoint="hall.index"))
    if request.method == "POST":
        if response.status_code == 403:
            attempts.record_failure(store(), LOGIN_SCOPE, address)
        elif is_director():
            attempts.clear(store(), LOGIN_SCOPE, address)
    return response


def _named_login(name: str, address: str, named: bool) -> Any:
    """A director logging in with their own name and password."""
    account = directors.check_login(store(), name, request.form.get("password", ""),
                                    str(current_app.secret_key)) if name else None
    if account is None:
        attempts.record_failure(store(), LOGIN_SCOPE, address)
        error = ("Wrong name or password." if name else
                 "This event has named director accounts: log in with your own name.")
        return render_template("hall/login.html", error=error, named=named), 403
    attempts.clear(store(), LOGIN_SCOPE, address)
    login_director()
    session["director_account"] = {"id": account.id, "name": account.name,
                                   "mark": account.mark}
    return redirect(url_for("hall.index"))


def _duration(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{(seconds + 59) // 60} min"


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("hall.login"))


# reading the event -----------------------------------------------------------------------------
def _partnerships() -> list[Partnership]:
    with store().Session() as s:
        return list(s.scalars(select(Partnership).order_by(Partnership.id)))


def _latest_draw() -> Draw | None:
    with store().Session() as s:
        return s.scalar(select(Draw).order_by(Draw.id.desc()).limit(1))


def _requests() -> list[dict[str, Any]]:
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
                    "payload": q.payload, "at": q.created_at.isoformat(),
                    "status": reply.status if reply else "waiting for the table's sync",
                    "message": reply.message if reply else ""})
    return out


def _adoptions_json(alive_within: timedelta) -> list[dict[str, Any]]:
    """Databases asking to be adopted, each beside what the event holds of its table, and
    why approving it would be refused (None: it may be approved)."""
    out = []
    for a in adoption.adoptions(store(), adoption.AdoptionStatus.ASKED):
        held = adoption.event_history(store(), a.origin)
        out.append({"id": a.id, "origin": a.origin, "home": a.home, "at": a.at.isoformat(),
                    "tables": [{"table": t, "events": h.events, "signed": h.signed,
                                "event_events": held[t].events if t in held else 0,
                                "event_signed": held[t].signed if t in held else 0}
                               for t, h in sorted(a.history.items())],
                    "refusal": adoption.refusal(store(), a, alive_within)})
    return out


@bp.post(f"/adoptions/<int(max={MAX_SEQ}):adoption_id>/<any(approve, refuse):decision>")
@director_required
def decide_adoption(adoption_id: int, decision: str) -> Any:
    """Approve or refuse a database's ``gintray sync --adopt``."""
    stall = timedelta(minutes=float(current_app.config.get("STALL_MINUTES", 3)))
    try:
        done = adoption.decide(store(), adoption_id, decision == "approve", director_name(),
                               stall)
    except adoption.AdoptionRefused as exc:
        return _refused(f"Not adopted: {exc}.", "sync-refusals")
    words = ("adopted: it syncs as its table from now on, the other database is refused"
             if done.status is adoption.AdoptionStatus.APPROVED else "refused")
    return _done(AuditAction.ADOPT, f"table database {done.origin[:8]} at {done.home}: {words}",
                 f"Table database {done.origin[:8]} at {done.home} {words}.", "sync-refusals")


def _sync_refusals() -> list[dict[str, Any]]:
    """The latest refused syncs (copied or diverged table databases), newest first."""
    with store().Session() as s:
        rows = list(s.scalars(select(SyncRefusal).order_by(SyncRefusal.id.desc()).limit(20)))
    return [{"origin": r.origin, "home": r.home, "message": r.message,
             "at": r.created_at.isoformat()} for r in rows]


def event_json() -> dict[str, Any]:
    """Everything on the director's page, as JSON."""
    links = linked_tables(store())
    partnerships = _partnerships()
    boards = {b for p in partnerships for b in p.boards}
    tables = [event_mod.table_summary(store(), t.id, t.id in links) for t in store().tables()]
    stall = timedelta(minutes=float(current_app.config.get("STALL_MINUTES", 3)))
    health = table_health(store(), tables, stall_after=stall)
    forfeited = awards.forfeited_tables(store())
    for t in tables:
        t["sync"] = health[t["id"]].to_json()
        t["forfeit"] = t["id"] in forfeited
        t["playing"] = t["playing"] and not t["forfeit"]
    singles = [t["id"] for t in tables if t["id"] not in boards]
    draw = _latest_draw()
    rules = event_mod.event_rules(store())
    ranked = event_mod.event_standings(store(), singles, rules)
    return {
        "tables": tables,
        "event_rules": rules,
        "rule_presets": engine.preset_names(),
        "standings": ranked.rows,
        "ranked_by": ranked.ranked_by,
        "tiebreaks": [t.value for t in ranked.order],
        "tiebreak_choices": [(t.value, t.label) for t in tiebreaks.TieBreak],
        "entries": [asdict(e) for e in entries.entries(store())],
        "bye_rule": awards.bye_rule(store()).value,
        "bye_rules": [(r.value, r.label) for r in awards.ByeRule],
        "standings_left_out": [t.to_json() for t in ranked.left_out],
        "partnerships": [partnership_view(store(), p) for p in partnerships],
        "draw": ({"id": draw.id, "kind": draw.kind, "seed": draw.seed, "entrants": draw.entrants,
                  "pairs": draw.pairs, "at": draw.created_at.isoformat()} if draw else None),
        "requests": _requests(),
        "sync_refusals": _sync_refusals(),
        "adoptions": _adoptions_json(stall),
        "sync_problems": [h.to_json() for h in health.values()
                          if h.state in (SyncState.STALLED, SyncState.CONFLICT,
                                         SyncState.REFUSED)],
        "round": _round_json(tables),
        "pairing": _pairing_json(pairing_mod.latest(store())),
        "next_round": pairing_mod.next_round(store()),
        "clock_next": _clock_next(),
        "at": datetime.now(UTC).isoformat(),
    }


def _clock_next() -> int:
    """The round the director's clock form starts: the latest approved pairing's round when
    it is not on the clock yet, else the round after the clock's."""
    clock = clock_mod.current_round(store())
    after = clock.number + 1 if clock else 1
    return max([after, *(p.round for p in pairing_mod.approved(store()))])


def _pairing_json(planned: pairing_mod.Planned | None) -> dict[str, Any] | None:
    """A pairing for the pages and the API."""
    if planned is None:
        return None
    return {"id": planned.id, "round": planned.round, "status": planned.status,
            "proposed_by": planned.proposed_by, "approved_by": planned.approved_by,
            "rematches": planned.rematches, "tables": list(planned.table_ids),
            "bye": asdict(planned.bye) if planned.bye else None,
            "byes": [asdict(b) for b in planned.byes], "system": planned.system.value,
            "stage": planned.bracket.name if planned.bracket else None,
            "pairs": [{"table": p.table, "A": asdict(p.a), "B": asdict(p.b),
                       "rematch": p.rematch} for p in planned.pairs]}


def _round_json(tables: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The current round's clock and its tables still playing (None before round 1), from the
    event's table summaries."""
    clock = clock_mod.current_round(store())
    if clock is None:
        return None
    scope = stations.round_scope(store(), clock, pairing_mod.other_rounds_tables(
        pairing_mod.approved(store()), clock.number))
    plays = [clock_mod.TablePlay(t["id"], t["name"], t["playing"]) for t in tables]
    return clock_mod.round_status(scope.clock, plays, scope.others,
                                  scope.waiting_words).to_json(clock_mod.now())


@bp.get("/")
@director_required
def index() -> Any:
    return render_template("hall/index.html", ev=event_json())


@bp.get("/live")
@director_required
def live() -> Any:
    """The tables section alone (the page refreshes it every few seconds)."""
    return render_template("hall/_tables.html", ev=event_json())


@bp.get("/api/event")
@director_required
def api_event() -> Any:
    return jsonify(event_json())


def _event_standings() -> event_mod.Standings:
    """The standings of the event's singles tables on the event's rules."""
    boards = {b for p in _partnerships() for b in p.boards}
    singles = [t.id for t in store().tables() if t.id not in boards]
    return event_mod.event_standings(store(), singles, event_mod.event_rules(store()))


def _projector_view() -> projector.ProjectorView:
    return projector.build(store(), _event_standings(), clock_mod.now())


@bp.get("/projector")
def projector_page() -> Any:
    """The public projector view (no login: names, results and the clock only), refreshed
    by ``static/hall.js``."""
    return render_template("hall/projector.html", view=_projector_view())


@bp.get("/projector/live")
def projector_live() -> Any:
    """The projector's content alone (the page refreshes it every 10 s)."""
    return render_template("hall/_projector.html", view=_projector_view())


@bp.get("/board")
@director_required
def board() -> Any:
    """The table status board: every table as a tile (playing or over, who must confirm,
    sync state and last sync, what to do), refreshed every 10 s without a script."""
    ev = event_json()
    playing = [t for t in ev["tables"] if t["playing"]]
    return render_template("hall/board.html", ev=ev, playing=playing)


@bp.get("/standings.csv")
@director_required
def standings_csv() -> Response:
    """The standings as CSV (one row per player; names as typed, first spelling first)."""
    ranked = _event_standings()
    body = event_mod.standings_csv(ranked.rows, ranked.ranked_by)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    return Response(body, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="gintray-standings-{stamp}.csv"'})


@bp.get("/standings/print")
@director_required
def standings_print() -> Any:
    """The standings on a page to print or show (no forms, no refresh)."""
    ranked = _event_standings()
    return render_template("hall/standings_print.html", standings=ranked.rows,
                           left_out=[t.to_json() for t in ranked.left_out],
                           rules=event_mod.event_rules(store()),
                           ranked_by=ranked.ranked_by, at=datetime.now(UTC).isoformat())


@bp.get(f"/tables/<int(max={MAX_SEQ}):table_id>")
@director_required
def table(table_id: int) -> Any:
    if store().table(table_id) is None:
        abort(404, description="no such table in this event")
    state = store().state(table_id)
    mirrored = table_id in linked_tables(store())
    requests = [r for r in _requests() if r["table"] == table_id]
    summary = event_mod.table_summary(store(), table_id, mirrored)
    stall = timedelta(minutes=float(current_app.config.get("STALL_MINUTES", 3)))
    summary["sync"] = table_health(store(), [summary], stall_after=stall)[table_id].to_json()
    return render_template("hall/table.html", state=state, mirrored=mirrored,
                           summary=summary,
                           requests=requests)


# acting -----------------------------------------------------------------------------------------
def director_action(table_id: int, action: DirectorAction) -> dict[str, Any]:
    """A director's correction of a hand (``correct``) or reopening of a signed game
    (``reopen``): checked against the event database's copy, then run at once (a table on the
    event database) or sent to the table, whose next sync runs it (a mirrored table)."""
    if action.kind is ActionKind.CORRECT:
        assert action.hand is not None and action.revision is not None
        command = at_revision(commands.propose(action.game, action.hand,
                                               commands.parse_proposal(action.proposal),
                                               source="director", director=True),
                              action.game, action.hand, action.revision)
        payload: dict[str, Any] = {"game": action.game, "hand": action.hand,
                                   "revision": action.revision, "proposal": action.proposal}
    else:
        command = commands.reopen(action.game, action.reason)
        payload = {"game": action.game, "reason": action.reason}
    command(store().state(table_id))  # raises CommandError now if it cannot apply
    request_id = f"hall-{uuid.uuid4().hex}"
    by = director_name()
    if table_id in linked_tables(store()):
        _refuse_a_second_waiting_request(table_id, action)
        with store().Session() as s:
            s.add(DirectorRequest(request_id=request_id, table_id=table_id,
                                  kind=action.kind.value, payload=payload, actor=by))
            s.commit()
        audit.record(store(), by, AuditAction(action.kind.value),
                     f"{_action_words(action)}; sent to the table ({request_id})", table_id)
        return {"status": "sent", "request_id": request_id,
                "message": "sent to the table: it applies at its next sync"}
    outcome = store().execute(table_id, command, Actor("director"), request_id=request_id)
    audit.record(store(), by, AuditAction(action.kind.value),
                  f"{_action_words(action)}; applied ({request_id})", table_id)
    return {"status": "applied", "request_id": request_id,
            "seqs": [e.seq for e in outcome.events]}


def _action_words(action: DirectorAction) -> str:
    """A correction or reopening in words, for the audit."""
    if action.kind is ActionKind.REOPEN:
        return f"game {action.game} reopened: {action.reason or 'no reason given'}"
    p = action.proposal
    result = (f"{p.get('winner')} {p.get('points')}" if p.get("kind") == "manual"
              else str(p.get("kind", "result")))
    note = f" ({p['note']})" if isinstance(p.get("note"), str) and p["note"] else ""
    return f"game {action.game}, hand {action.hand} corrected to {result}{note}"


def _refuse_a_second_waiting_request(table_id: int, action: DirectorAction) -> None:
    """A mirrored table's hand (or game) with a request still waiting for the table's sync
    cannot take a second one: the director would be correcting a result nobody has seen."""
    for req in pending_requests(store(), table_id):
        p = req.payload
        same = (req.kind == action.kind.value and p.get("game") == action.game
                and (action.kind is ActionKind.REOPEN or p.get("hand") == action.hand))
        if same:
            what = (f"game {action.game}, hand {action.hand}" if action.hand
                    else f"game {action.game}")
            raise CommandError("request_waiting", f"a {req.kind} of {what} sent at "
                               f"{req.created_at:%H:%M:%S} is waiting for the table's sync; "
                               "check the table after it applies", 409)


def _body() -> Any:
    """The request's body: a JSON value (None when it is not JSON) or the form as a dict."""
    if request.is_json:
        try:
            return request.get_json(silent=True)
        except RecursionError:  # "[[[[..." thousands deep: the decoder's own limit
            raise CommandError("bad_body", "the request body is nested too deeply", 400) \
                from None
    return request.form.to_dict()


@bp.post(f"/tables/<int(max={MAX_SEQ}):table_id>/<any(correct, reopen):kind>")
@director_required
def act(table_id: int, kind: str) -> Any:
    """Correct a hand or reopen a signed game of one table."""
    if store().table(table_id) is None:
        abort(404, description="no such table in this event")
    try:
        result = director_action(table_id, parse_action(kind, _body()))
    except CommandError as exc:  # a bad body included: a 400 naming it, never a 500
        if request.is_json:
            return jsonify(exc.to_json()), exc.status
        flash(exc.message, "error")
        return redirect(url_for("hall.table", table_id=table_id), 303)
    if request.is_json:
        return jsonify(result)
    done = "Correction applied." if kind == "correct" else "Game reopened."
    flash(done if result["status"] == "applied" else result["message"])
    return redirect(url_for("hall.table", table_id=table_id), 303)


@bp.post("/draw")
@director_required
def draw() -> Any:
    kind = request.form.get("kind", "singles")
    if kind not in ("singles", "partnership"):
        abort(400, description="kind must be singles or partnership")
    names = request.form.get("entrants", "").splitlines()
    try:
        seed, pairs = blind_draw(names)
    except DrawError as exc:
        return _refused(str(exc), "draw")
    latest = _latest_draw()
    refusal = _redraw_refusal(latest, request.form.get("replace", ""))
    if refusal:
        return _refused(refusal, "draw")
    with store().Session() as s:
        s.add(Draw(kind=kind, seed=seed, entrants=[n.strip() for n in names if n.strip()],
                   pairs=pairs))
        s.commit()
    replaced = (f"; it replaces the draw of {latest.created_at:%H:%M:%S} (seed {latest.seed})"
                if latest else "")
    return _done(
        AuditAction.DRAW,
        f"{kind} blind draw of {len(names)} entrant(s), seed {seed}{replaced}",
        f"Blind draw made ({len(pairs)} pairings){replaced}.",
        "draw",
    )


def _seating(draw_id: int) -> DrawSeating | None:
    with store().Session() as s:
        return s.scalar(select(DrawSeating).where(DrawSeating.draw_id == draw_id))


def _redraw_refusal(latest: Draw | None, replace: str) -> str | None:
    """Why a new draw may not replace ``latest`` (None when it may): a draw is redone only
    when the director ticks "replace" on a page showing that very draw, and never once its
    tables are open."""
    if latest is None:
        return None
    made = f"{latest.created_at:%H:%M:%S} (seed {latest.seed})"
    if _seating(latest.id) is not None:
        return (f"The draw of {made} is seated: its tables are open already, so a new draw "
                "cannot replace it.")
    if replace != str(latest.id):
        return (f"A draw was already made at {made}. To redo it, tick \"Replace the draw\" "
                "under that draw and draw again.")
    return None


@bp.post("/draw/seat")
@director_required
def seat_draw() -> Any:
    """Open a table on the event database for every pair of the latest draw (for tables that
    run on the event database; tables that score locally take the names from the draw)."""
    latest = _latest_draw()
    if latest is None:
        abort(409, description="make a draw first")
    rules = "partnership" if latest.kind == "partnership" else "tournament"
    with store().Session() as s:  # claim the draw first: only one director seats it
        claim = DrawSeating(draw_id=latest.id, table_ids=[])
        s.add(claim)
        if not commit_first(s):
            seated = _seating(latest.id)
            tables = ", ".join(str(t) for t in (seated.table_ids if seated else []))
            flash(f"The tables of the draw of {latest.created_at:%H:%M:%S} are already open"
                  f"{f' (tables {tables})' if tables else ''}.", "error")
            return _back_to()
        made: list[int] = []
        pushed: list[int] = []
        if latest.kind == "partnership":
            made = _open_board_tables(latest.pairs, rules)
        else:  # round 1: pushed to the table apps that sync, the rest opened here
            seated = stations.seat_round(store(), 1, [
                (int(p["table"]), _seated(p["A"]), _seated(p["B"]))
                for p in latest.pairs if not p.get("bye")], event_mod.event_rules(store()))
            made = [x.table_id for x in seated if x.table_id is not None]
            pushed = [x.table for x in seated if x.station is not None]
            drawn = [n for p in latest.pairs for n in (p["A"], p.get("B")) if n]
            entries.ensure(store(), [_seated(n).player_id for n in drawn], 1, director_name())
            for p in latest.pairs:
                if p.get("bye"):
                    awards.give(store(), awards.Award(1, _seated(p["A"]).player_id,
                                                      awards.AwardKind.BYE), director_name())
        claim.table_ids = made
        s.commit()
    sent = (f"; tables {', '.join(str(t) for t in pushed)} sent to their table apps"
            if pushed else "")
    audit.record(store(), director_name(), AuditAction.SEAT,
                 f"tables {', '.join(str(t) for t in made) or 'none'} opened for the draw "
                 f"(seed {latest.seed}){sent}")
    flash(f"{len(made)} table(s) opened for the draw of {latest.created_at:%H:%M}{sent}.")
    return _back_to()


def _seated(name: str) -> stations.SeatedPlayer:
    """A drawn entrant as a seated player (registered with an id when new)."""
    return stations.SeatedPlayer(roster.player_id(store(), name), name)


def _open_board_tables(pairs: list[dict[str, Any]], rules: str) -> list[int]:
    """The boards of a partnership draw, opened on the event database."""
    made = []
    for pair in pairs:
        if pair.get("bye"):
            continue
        name = f"Table {pair['table']}"
        made.append(store().create_table(
            name, {"name": name, "players": {"A": pair["A"], "B": pair["B"]},
                   "rules": rules, "camera": None}, Actor("director")))
    return made


def director_name() -> str:
    """The logged-in director's name (a named account's; "director" for the shared
    password), for the audit, the round clock and pairings."""
    account = session.get("director_account")
    return str(account["name"]) if isinstance(account, dict) else "director"


@bp.post("/round")
@director_required
def start_round() -> Any:
    """Start the next round on the clock (the form names the round it starts)."""
    try:
        number = whole_number(request.form.get("number"), "number", 1, 1000, label="round")
        minutes = whole_number(request.form.get("minutes"), "minutes", clock_mod.MIN_MINUTES,
                               clock_mod.MAX_MINUTES)
        tables = [t for p in pairing_mod.approved(store()) if p.round == number
                  for t in p.table_ids]
        started = clock_mod.start_round(store(), number, minutes, director_name(), tables)
    except (CommandError, clock_mod.RoundError) as exc:
        return _refused(_refusal(exc), "round")
    return _done(
        AuditAction.ROUND,
        f"round {started.number} started for {started.minutes} minutes",
        f"Round {started.number} started: {started.minutes} minutes.",
        "round",
    )


@bp.post("/pairing")
@director_required
def propose_pairing() -> Any:
    """Pair the next round (Swiss, or knockout: the next knockout round, or the first one
    of the best ``top`` players) from the standings, for a director to approve."""
    try:
        system = pairing_mod.PairingSystem(request.form.get("system", "swiss"))
    except ValueError:
        abort(400, description="system must be swiss or knockout")
    ranked = _event_standings()
    try:
        if system is pairing_mod.PairingSystem.KNOCKOUT:
            top_text = request.form.get("top", "").strip()
            top = whole_number(top_text, "top", 2) if top_text else None
            planned = pairing_mod.propose_knockout(store(), ranked.rows, director_name(), top)
        else:
            planned = pairing_mod.propose(store(), ranked.rows, ranked.meetings,
                                          director_name())
    except (PairingError, CommandError) as exc:
        return _refused(f"No pairing: {exc.message if isinstance(exc, CommandError) else exc}.",
                        "pairing")
    audit.record(store(), director_name(), AuditAction.PAIRING,
                 f"round {planned.round} {_system_words(planned)} pairing proposed: "
                 f"{_pairs_words(planned)}")
    if planned.bracket is not None:
        byes = ", ".join(b.name for b in planned.byes)
        flash(f"Knockout pairing for round {planned.round} ({planned.bracket.name}) proposed "
              f"({len(planned.pairs)} tables{f', byes: {byes}' if byes else ''}): check it "
              "and approve it.")
    else:
        flash(f"Pairing for round {planned.round} proposed ({len(planned.pairs)} tables, "
              f"{planned.rematches} rematch(es)): check it and approve it.")
    return _back_to("pairing")


def _system_words(planned: pairing_mod.Planned) -> str:
    """``Swiss`` or ``knockout (semi-finals)``."""
    return f"knockout ({planned.bracket.name})" if planned.bracket else "Swiss"


@bp.post(f"/pairing/<int(max={MAX_SEQ}):pairing_id>/approve")
@director_required
def approve_pairing(pairing_id: int) -> Any:
    """Approve a proposed pairing: its tables open with the players in the seats."""
    try:
        planned = pairing_mod.approve(store(), pairing_id, director_name(),
                                      event_mod.event_rules(store()))
    except pairing_mod.PairingRefused as exc:
        return _refused(f"Not approved: {exc}.", "pairing")
    seats = stations.seats(store(), [planned.id])
    opened = ", ".join(str(x.table_id) for x in seats if x.station is None)
    pushed = ", ".join(str(x.table) for x in seats if x.station is not None)
    where = "; ".join(([f"tables {opened} opened with the pairs seated"] if opened else [])
                      + ([f"tables {pushed} sent to their table apps"] if pushed else []))
    return _done(
        AuditAction.APPROVE,
        f"round {planned.round} pairing approved ({where}): {_pairs_words(planned)}",
        f"Round {planned.round} approved: {where}.",
        "pairing",
    )


@bp.post(f"/pairing/<int(max={MAX_SEQ}):pairing_id>/undo")
@director_required
def undo_pairing(pairing_id: int) -> Any:
    """Undo an approved pairing before play (its tables withdrawn, its bye taken back)."""
    try:
        planned = pairing_mod.undo(store(), pairing_id)
    except pairing_mod.PairingRefused as exc:
        return _refused(f"Not undone: {exc}.", "pairing")
    return _done(AuditAction.UNDO, f"round {planned.round} pairing undone: "
                 f"{_pairs_words(planned)}",
                 f"Round {planned.round} pairing undone: pair the round again.", "pairing")


@bp.post(f"/pairing/<int(max={MAX_SEQ}):pairing_id>/swap")
@director_required
def swap_players(pairing_id: int) -> Any:
    """Swap two players of a proposed pairing (seats, or a seat and the bye)."""
    try:
        first = whole_number(request.form.get("first"), "first", 1, label="first player")
        second = whole_number(request.form.get("second"), "second", 1, label="second player")
        planned = pairing_mod.swap(store(), pairing_id, first, second,
                                   _event_standings().meetings)
    except (CommandError, pairing_mod.PairingRefused) as exc:
        return _refused(f"Not swapped: {_refusal(exc)}.", "pairing")
    return _done(AuditAction.SWAP, f"round {planned.round} pairing changed by hand: "
                 f"{_pairs_words(planned)}",
                 f"Players swapped: {_pairs_words(planned)}.", "pairing")


def _pairs_words(planned: pairing_mod.Planned) -> str:
    words = [f"{p.a.name} v {p.b.name}" for p in planned.pairs]
    return "; ".join(words + [f"bye {b.name}" for b in planned.byes])


def _pairing_or_404(pairing_id: int) -> pairing_mod.Planned:
    planned = pairing_mod.get(store(), pairing_id)
    if planned is None:
        abort(404, description="no such pairing")
    return planned


@bp.get(f"/pairing/<int(max={MAX_SEQ}):pairing_id>/print")
@director_required
def pairing_print(pairing_id: int) -> Any:
    """A pairing on a page to print or show on a projector."""
    return render_template("hall/pairing_print.html",
                           pairing=_pairing_json(_pairing_or_404(pairing_id)),
                           at=datetime.now(UTC).isoformat())


@bp.get(f"/pairing/<int(max={MAX_SEQ}):pairing_id>.csv")
@director_required
def pairing_csv(pairing_id: int) -> Response:
    """A pairing as CSV (one row per table, then the bye)."""
    planned = _pairing_or_404(pairing_id)
    return Response(pairing_mod.pairing_csv(planned), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="gintray-round-{planned.round}.csv"'})


@bp.post("/event-rules")
@director_required
def set_event_rules() -> Any:
    """The rules the event plays: only tables on these rules count in the standings."""
    rules = request.form.get("rules", "")
    if rules not in engine.preset_names():
        abort(400, description=f"rules must be one of {', '.join(engine.preset_names())}")
    store().set_setting(event_mod.EVENT_RULES_KEY, rules)
    return _done(
        AuditAction.RULES,
        f"the event plays {rules} rules",
        f"The event plays {rules} rules: only tables on them count in the standings.",
        "standings",
    )


@bp.post("/entries")
@director_required
def enter_players() -> Any:
    """Enter players (one a line): before the draw, or late (paired from the next round)."""
    after = clock_mod.current_round(store())
    from_round = after.number + 1 if after else 1
    try:
        made = entries.enter(store(), request.form.get("names", "").splitlines(), from_round,
                             director_name())
    except entries.EntryError as exc:
        return _refused(f"Not entered: {exc}.", "entries")
    names = ", ".join(e.name for e in made)
    return _done(AuditAction.ENTRY, f"entered from round {from_round}: {names}",
                 f"Entered from round {from_round}: {names}.", "entries")


@bp.post(f"/entries/<int(max={MAX_SEQ}):player_id>/withdraw")
@director_required
def withdraw_player(player_id: int) -> Any:
    """Withdraw a player: their results stand, they are paired no more."""
    after = clock_mod.current_round(store())
    try:
        gone = entries.withdraw(store(), player_id, after.number if after else 0)
    except entries.EntryError as exc:
        return _refused(f"Not withdrawn: {exc}.", "entries")
    return _done(AuditAction.WITHDRAW, f"{gone.name} (player {gone.player_id}) withdrew "
                 f"after round {gone.withdrawn_after}",
                 f"{gone.name} withdrew: not paired any more.", "entries")


@bp.post(f"/tables/<int(max={MAX_SEQ}):table_id>/forfeit")
@director_required
def forfeit(table_id: int) -> Any:
    """A player did not show: the match is a forfeit, won by the other (no points)."""
    absent = request.form.get("absent", "")
    if store().table(table_id) is None:
        abort(404, description="no such table in this event")
    if absent not in ("A", "B"):
        return _refused("Say which seat did not show.", "tables")
    state = store().state(table_id)
    if state.match_json()["complete"]:
        return _refused("This match is decided: no forfeit.", "tables")
    seats = roster.table_players(store(), [(table_id, state.players)])[table_id]
    present = "B" if absent == "A" else "A"
    clock = clock_mod.current_round(store())
    number = stations.round_of_table(store(), table_id) or (clock.number if clock else 1)
    kinds = {present: awards.AwardKind.FORFEIT_WON, absent: awards.AwardKind.FORFEIT_LOST}
    for seat, kind in kinds.items():
        if not awards.give(store(), awards.Award(number, seats[seat], kind, table_id),
                           director_name()):
            return _refused(f"{state.players[seat]} has a result for round {number} "
                            "already.", "tables")
    return _done(AuditAction.FORFEIT, f"table {table_id} {state.name}: "
                 f"{state.players[absent]} did not show, {state.players[present]} wins by "
                 f"forfeit (round {number})",
                 f"{state.players[present]} wins by forfeit: {state.players[absent]} did not "
                 "show.", "tables")


@bp.post("/bye-rule")
@director_required
def set_bye_rule() -> Any:
    """How a bye counts in the standings (a match won, played, or nothing)."""
    try:
        rule = awards.ByeRule(request.form.get("rule", ""))
    except ValueError:
        return _refused("Say how a bye counts.", "standings")
    awards.set_bye_rule(store(), rule)
    return _done(AuditAction.RULES, f"a bye counts as {rule.label}",
                 f"A bye counts as {rule.label}.", "standings")


@bp.post("/tiebreaks")
@director_required
def set_tiebreaks() -> Any:
    """The order of the tie-breaks between players with as many matches won."""
    try:
        order = tiebreaks.parse_order(request.form.getlist("tiebreak"))
    except tiebreaks.TieBreakError as exc:
        return _refused(f"Tie-breaks not changed: {exc}.", "standings")
    tiebreaks.save(store(), order)
    rule = tiebreaks.order_text(order)
    return _done(
        AuditAction.TIEBREAKS,
        f"standings ranked by {rule}",
        f"Standings ranked by {rule}.",
        "standings",
    )


@bp.post("/adjustments")
@director_required
def give_adjustment() -> Any:
    """A points adjustment or penalty for a player (by player id), with the reason."""
    f = request.form
    if f.get("kind") not in {k.value for k in AdjustmentKind}:
        return _refused("Say whether it is an adjustment or a penalty.", "standings")
    kind = AdjustmentKind(f["kind"])
    try:
        player = whole_number(f.get("player_id"), "player_id", 1, label="player")
        points = whole_number(f.get("points"), "points", -adjustments.MAX_POINTS,
                              adjustments.MAX_POINTS)
        names = roster.player_names(store())
        if player not in names:
            raise adjustments.AdjustmentError("no such player in this event")
        given = adjustments.give(store(), player, kind, points, f.get("reason", ""),
                                 director_name())
    except (CommandError, adjustments.AdjustmentError) as exc:
        return _refused(_refusal(exc), "standings")
    return _done(
        AuditAction(given.kind.value),
        f"{names[player]} (player {player}) {given.points:+d} points: {given.reason}",
        f"{given.kind.value.capitalize()} for {names[player]}: {given.points:+d} points.",
        "standings",
    )


@bp.get("/players")
@director_required
def players_page() -> Any:
    """Every player of the event by id, with a form to merge one id into another."""
    ranked = _event_standings()
    merged = merges.merged_ids(store())
    names = roster.player_names(store())
    choices = sorted(((pid, name) for pid, name in names.items() if pid not in merged),
                     key=lambda c: (c[1].casefold(), c[0]))
    return render_template("hall/players.html", standings=ranked.rows, choices=choices,
                           merges=merges.merges(store()))


@bp.post("/players/merge")
@director_required
def merge_players() -> Any:
    """Merge one player id into another (one person whose name was typed two ways)."""
    f = request.form
    try:
        from_id = whole_number(f.get("from_id"), "from_id", 1, label="the player to merge")
        into_id = whole_number(f.get("into_id"), "into_id", 1,
                               label="the player to merge into")
        done = merges.merge(store(), from_id, into_id, director_name(), f.get("reason", ""),
                            _event_standings().meetings)
    except (CommandError, merges.MergeError) as exc:
        flash(f"Not merged: {exc.message if isinstance(exc, CommandError) else exc}.", "error")
        return redirect(url_for("hall.players_page"), 303)
    audit.record(store(), director_name(), AuditAction.MERGE,
                 f"{done.from_name} (player {done.from_id}) merged into {done.into_name} "
                 f"(player {done.into_id}): {done.reason}")
    flash(f"{done.from_name} (player {done.from_id}) merged into {done.into_name} "
          f"(player {done.into_id}): the standings count them as one player.")
    return redirect(url_for("hall.players_page"), 303)


@bp.post(f"/players/<int(max={MAX_SEQ}):player_id>/unmerge")
@director_required
def unmerge_player(player_id: int) -> Any:
    """Undo a merge: the merged id counts for itself again."""
    try:
        undone = merges.unmerge(store(), player_id)
    except merges.MergeError as exc:
        flash(f"Not undone: {exc}.", "error")
        return redirect(url_for("hall.players_page"), 303)
    audit.record(store(), director_name(), AuditAction.UNMERGE,
                 f"{undone.from_name} (player {undone.from_id}) no longer merged into "
                 f"{undone.into_name} (player {undone.into_id})")
    flash(f"{undone.from_name} (player {undone.from_id}) counts on its own again.")
    return redirect(url_for("hall.players_page"), 303)


@bp.get("/audit")
@director_required
def audit_page() -> Any:
    """Every director action, newest first, with the director's name."""
    return render_template("hall/audit.html", entries=audit.entries(store()),
                           at=datetime.now(UTC).isoformat())


@bp.post("/partnerships")
@director_required
def new_partnership() -> Any:
    f = request.form
    team_a, team_b = f.get("team_A", "").strip()[:40], f.get("team_B", "").strip()[:40]
    try:
        boards = [whole_number(f.get(f"board_{n}"), f"board_{n}", 1, label=f"board {n}")
                  for n in (1, 2)]
        rules = {t.id: store().state(t.id).rules for t in store().tables()}
        check_teams(team_a, team_b, boards, rules)
    except (CommandError, PartnershipError) as exc:
        return _refused(_refusal(exc), "partnerships")
    teams = {"A": {"name": team_a, "members": _members(f.get("members_A", ""))},
             "B": {"name": team_b, "members": _members(f.get("members_B", ""))}}
    with store().Session() as s:
        s.add(Partnership(name=f"{team_a} v {team_b}", teams=teams, boards=boards))
        s.commit()
    return _done(
        AuditAction.PARTNERSHIP,
        f"partnership match {team_a} v {team_b} on boards {boards[0]} and {boards[1]}",
        f"Partnership match {team_a} v {team_b} set up.",
        "partnerships",
    )


def _members(text: str) -> list[str]:
    return [m.strip()[:40] for m in text.split(",") if m.strip()][:2]


@bp.get("/bundle.zip")
@director_required
def bundle() -> Any:
    """Every signed score sheet of the event in one zip (signed PDFs, JSON, manifest): the
    last built zip when no game was signed (or reopened) since; else a build starts in the
    background and this answers 202 with its progress (the page reloads until it is done)."""
    bundler: Bundler = current_app.extensions["gintray.bundler"]
    built = bundler.current(signed_set(store()))
    if built is not None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
        return send_file(built, mimetype="application/zip", as_attachment=True,
                         download_name=f"gintray-event-{stamp}.zip", max_age=0)
    if not bundler.running():
        ev = event_json()
        bundler.start({"standings": ev["standings"], "partnerships": ev["partnerships"]})
    status = bundler.status()
    if wants_json():
        return jsonify(status.to_json()), 202
    return render_template("hall/bundle.html", status=status), 202


@bp.get("/bundle/status")
@director_required
def bundle_status() -> Any:
    """The background bundle build's progress (JSON)."""
    return jsonify(current_app.extensions["gintray.bundler"].status().to_json())
