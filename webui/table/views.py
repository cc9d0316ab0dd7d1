"""Pages: table list, the tablet's table page (and its live panel), joining, the table screen."""

from __future__ import annotations

import hmac
import io
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from webui.common import attempts, sheetview, words
from webui.common.errors import refuse
from webui.common.membership import current_tables
from webui.common.refusal import Refusal
from webui.common.seating import (
    finished,
    forfeit_of,
    next_seated,
    seating_of,
    syncs_to_hall,
    undone,
)
from webui.common.security import client_address, is_director, is_local, store
from webui.common.validate import plain_text
from webui.store import commands, engine
from webui.store.db import Device
from webui.store.engine import PLAYERS
from webui.store.event_kind import EventKind
from webui.store.proposal import Kind
from webui.store.record import RecordedProposal
from webui.store.seats import SeatTaken
from webui.store.state import TableState
from webui.table.addresses import is_loopback_host, join_base
from webui.table.live import stream_slots
from webui.table.parts import table_parts
from webui.table.seat_asks import ask_for_seat, pending_for_page
from webui.table.security import (
    current_device,
    forget_device,
    may_act_for,
    may_see_screen,
    remember_device,
    require_viewer,
    sign_out,
)

bp = Blueprint("views", __name__)
NO_CAMERA = "camera unavailable (no camera is set for this table, or no demo footage found)"


def table_or_404(table_id: int) -> Any:
    table = store().table(table_id)
    if table is None:
        refuse(404, "no such table")
    return table


def page_context(table_id: int) -> dict[str, Any]:
    """Everything the table templates need."""
    table = table_or_404(table_id)
    state = store().state(table_id)
    cameras = table_parts().cameras
    feed = cameras.get(table_id)
    seats = [p for p in PLAYERS if may_act_for(table_id, p)]
    sheets = [sheetview.game_view(state, g) for g in state.games]
    return {"table": table, "state": state, "table_match": state.match(),
            "knock_card": state.knock_card(),
            "device": current_device(table_id), "director": is_director(),
            "sheets": sheets,
            "camera": feed.status() if feed else {"state": "off", "message": NO_CAMERA},
            "players": state.players, "seats": seats,
            "undo": undo_offers(table_id, state, seats),
            "recorded": recorded_line(state, sheets[-1]) if sheets else None,
            "recorded_hand": sheets[-1]["rows"][-1]["hand"] if sheets and sheets[-1]["rows"]
            else None,
            "short_hash": sheetview.short_hash, "seen_changes": [],
            "seat_requests": pending_for_page(table_id)}


def undo_offers(table_id: int, state: TableState, seats: list[str]) -> list[dict[str, Any]]:
    """What this device may undo, named in words ({"seq", "label", "hand"}): the latest change
    of the latest hand, and its player's own confirmation of the hand before while the latest
    has only its knock card (``commands.reopens_previous``)."""
    game = state.game
    if game is None or game.locked or not game.hands:
        return []
    offers: list[dict[str, Any]] = []
    hands = game.hands[-2:] if len(game.hands) > 1 and game.hands[-1].proposal is None \
        else game.hands[-1:]
    for hand in reversed(hands):
        for seq in reversed(hand.seqs):
            ev = store().event(table_id, seq)
            if ev is None or (ev.kind == EventKind.CONFIRMED
                              and ev.payload.get("player") not in seats):
                continue
            if hand is not game.hands[-1] and ev.kind != EventKind.CONFIRMED:
                break  # of the hand before, only a confirmation may be undone
            label = undo_label(state, ev.kind, ev.payload, hand.number)
            if hand is not game.hands[-1]:
                label += f" (the knock card of hand {game.hands[-1].number} is taken back too)"
            offers.append({"seq": seq, "label": label, "hand": hand.number,
                           "first": not offers})
            break
    return offers


def undo_label(state: TableState, kind: str, payload: dict[str, Any], hand: int) -> str:
    """What undoing an event does, e.g. "Undo Ben's confirmation of hand 1"."""
    names = state.players
    if kind == EventKind.CONFIRMED:
        return f"Undo {names.get(payload.get('player'), '?')}'s confirmation of hand {hand}"
    if kind == EventKind.KNOCK_CARD_SET:
        return f"Undo the knock card {words.card_words(str(payload.get('card')))} of hand {hand}"
    recorded = RecordedProposal.from_json(payload.get("proposal") or {})
    if recorded.kind is Kind.DEAD:
        what = "dead hand"
    elif recorded.winner in names:
        points = recorded.result.points if recorded.result is not None else None
        what = f"{names[recorded.winner]} scores {points}"
    else:
        what = "not scored"
    return f"Undo the result entered for hand {hand} ({what})"


def recorded_line(state: TableState, view: dict[str, Any]) -> str | None:
    """The latest confirmed hand of the current game, e.g. "Hand 1 recorded: Ann +22, 22-0"."""
    if not view["rows"]:
        return None
    row = view["rows"][-1]
    names = state.players
    what = (f"{names[row['winner']]} +{row['points']}" if row["winner"] in names
            else "dead hand, no score")
    return (f"Hand {row['hand']} recorded: {what}, "
            f"{row['totals']['A']}-{row['totals']['B']}")


@bp.get("/")
def index() -> Any:
    # an event this table app left (gintray sync --join-event) is archived, not listed
    return render_template("index.html", tables=current_tables(store()), director=is_director(),
                           local=may_see_screen())


@bp.get("/t/<int:table_id>")
def table_page(table_id: int) -> Any:
    ctx = page_context(table_id)
    if ctx["device"] is None and not ctx["director"]:
        return redirect(url_for("views.join", table_id=table_id))
    return render_template("table.html", **ctx)


def changes_since(table_id: int, state: TableState, seen: int | None) -> list[str]:
    """What changed in the current hand's proposal since a tablet showed revision ``seen``
    (the proposal it saw then), in words; nothing when it saw no proposal of this hand."""
    hand = state.current_hand()
    if hand is None or hand.proposal is None or seen is None or seen >= hand.revision:
        return []
    if seen not in hand.seqs:
        return []  # not a version of this hand: the tablet saw another hand
    ev = store().event(table_id, seen)
    if ev is None:
        return []
    earlier = (ev.payload.get("proposal") if ev.kind == EventKind.PROPOSAL_SET
               else ev.payload.get("rescored") if ev.kind == EventKind.KNOCK_CARD_SET else None)
    if not isinstance(earlier, dict):
        return []  # the tablet saw a knock card and no proposal: this one is the first
    changes = []
    up_then = _knock_card_at(table_id, hand.seqs, seen)
    if up_then is not None and up_then != engine.card_code(hand.up_card):
        changes.append(f"knock card {hand.up_card} (was {up_then})")
    return changes + commands.describe_changes(
        state.players, RecordedProposal.from_json(earlier), hand.proposal)


def _knock_card_at(table_id: int, seqs: list[int], seen: int) -> str | None:
    """The hand's knock card as it stood at event ``seen``."""
    card = None
    for seq in seqs:
        if seq > seen:
            break
        ev = store().event(table_id, seq)
        if ev is not None and ev.kind == EventKind.KNOCK_CARD_SET:
            card = ev.payload.get("card")
    return card


@bp.get("/t/<int:table_id>/panel")
def panel(table_id: int) -> Any:
    """The live part of the table page (fetched again on every server-sent change; ``seen``:
    the revision of the hand the tablet showed until now, so it is told what changed)."""
    ctx = page_context(table_id)
    if ctx["device"] is None and not ctx["director"]:
        refuse(403, "this device has not joined the table")
    seen = request.args.get("seen", type=int)
    ctx["seen_changes"] = changes_since(table_id, ctx["state"], seen)
    return render_template("panel.html", **ctx)


@bp.route("/t/<int:table_id>/join", methods=["GET", "POST"])
def join(table_id: int) -> Any:
    """Join a table for one player with its PIN; a held seat can be asked back (``take_back``:
    the table screen or a seated tablet allows it, ``webui.table.seat_asks``)."""
    table = table_or_404(table_id)
    state = store().state(table_id)
    error = None
    status = 200
    take_back = None
    if request.method == "POST":
        pin = (request.form.get("pin") or "").strip()
        seat = request.form.get("seat", "")
        label, label_error = tablet_label(request.form.get("label"))
        scope, address, local = "pin", client_address(), is_local()
        if label_error is not None:
            error, status = label_error, 400
        elif seat not in PLAYERS:
            error, status = ("Choose whose tablet this is: each player joins on their own "
                             "tablet.", 400)
        elif (block := attempts.begin(store(), scope, address, local)) is not None \
                and not block.everyone:
            error, status = attempts.block_words(block, "PINs"), 429
        elif block is not None:  # all addresses together wait: checked, answered alike
            right = hmac.compare_digest(pin.encode(), table.pin.encode())
            return ask_for_seat(table_id, seat, label, right, hidden=True)
        elif not hmac.compare_digest(pin.encode(), table.pin.encode()):
            error, status = "Wrong PIN. Read it again from the table's screen.", 403
        else:
            attempts.succeeded(store(), scope, address, local)
            if request.form.get("take_back"):
                return ask_for_seat(table_id, seat, label, True, hidden=False)
            before = current_device(table_id)
            joined = store().join_seat(table_id, label, seat, before, director=is_director())
            if isinstance(joined, SeatTaken):
                error, status = seat_taken_words(state.players[seat], joined.holder), 409
                take_back = {"seat": seat, "name": state.players[seat], "pin": pin,
                             "label": label}
            else:
                for gone in (before, joined.displaced):  # signed out: their streams end
                    if gone is not None:
                        stream_slots().end_device(table_id, gone.id)
                remember_device(table_id, joined.token)
                flash(f"This tablet joined {table.name} for {state.players[seat]}."
                      + (f" The tablet {joined.displaced.label!r} was signed out of that seat."
                         if joined.displaced else ""))
                return redirect(url_for("views.table_page", table_id=table_id))
    # on the table's own computer the PIN is on its screen anyway: fill it in
    suggested = request.args.get("pin", "") or (table.pin if may_see_screen() else "")
    return no_store(render_template("join.html", table=table, state=state, error=error,
                                    pin=suggested, take_back=take_back), status)


def tablet_label(value: Any) -> tuple[str, str | None]:
    """The name a tablet joins with ("tablet" when left blank), or why it is refused."""
    try:
        return plain_text(value, "label", 40, "tablet"), None
    except Refusal as exc:
        return "tablet", f"Name of this tablet: {exc.message}."


def no_store(html: str, status: int = 200) -> Response:
    """A page that may show the table's PIN: never kept by the browser or a proxy (a PIN
    left in a shared tablet's cache or history would let the next person in)."""
    return Response(html, status, mimetype="text/html",
                    headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


def seat_taken_words(name: str, holder: Device) -> str:
    """Why a join is refused: the seat's holder, named so the players can sort it out."""
    since = words.local_time(holder.joined_at, "%H:%M", current_app.config.get("TIMEZONE"))
    return (f"{name}'s seat is held by the tablet {holder.label!r} (joined at {since}). "
            f"That tablet can leave the seat (\"Leave {name}'s seat\" on its page), or the "
            f"director can move it. If this is {name}'s own tablet (it lost its sign-in), ask "
            "for the seat back below: the table's screen or the other player's tablet allows "
            "it.")


@bp.post("/t/<int:table_id>/leave")
def leave(table_id: int) -> Any:
    """This tablet gives its seat up (and its token stops working): another may join for it."""
    table = table_or_404(table_id)
    device = current_device(table_id)
    if device is None:
        refuse(403, "this device has not joined the table")
    sign_out(table_id, device.id)
    forget_device(table_id)
    flash(f"This tablet left {table.name}: the seat is free for another tablet.")
    return redirect(url_for("views.join", table_id=table_id))


@bp.get("/t/<int:table_id>/screen")
def screen(table_id: int) -> Any:
    """The table's own screen: PIN, QR code to join, live score sheet."""
    if not may_see_screen():
        refuse(403, "the table screen (with its PIN) opens only on the table's "
                   "own computer or for the director")
    ctx = page_context(table_id)
    ctx["seating"] = seating_of(store(), table_id)
    ctx["next_seated"] = next_seated(store(), table_id)
    ctx["undone"] = undone(store(), table_id)  # the hall undid its pairing: not to be played
    ctx["forfeit"] = forfeit_of(store(), table_id)  # the hall decided it: nothing to play
    over = finished(ctx["state"]) or ctx["undone"] is not None or ctx["forfeit"] is not None
    if ctx["next_seated"] and over:  # the hall seated the next round here
        return redirect(url_for("views.screen", table_id=ctx["next_seated"][0]))
    ctx["await_next"] = syncs_to_hall(store()) and over
    ctx["join_url"] = join_url(table_id, ctx["table"].pin)
    ctx["join_unreachable"] = is_loopback_host(urlsplit(ctx["join_url"]).hostname or "")
    ctx["devices"] = store().devices(table_id, joined_only=True)
    ctx["seat_holders"] = store().seat_holders(table_id)
    return no_store(render_template("screen.html", **ctx))


@bp.get("/t/<int:table_id>/qr.svg")
def qr_svg(table_id: int) -> Response:
    if not may_see_screen():
        refuse(403, "the join code is shown only on the table's own screen")
    table = table_or_404(table_id)
    buf = io.BytesIO()
    segno.make(join_url(table_id, table.pin), error="m").save(buf, kind="svg", scale=8,
                                                              border=2)
    return Response(buf.getvalue(), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


def join_url(table_id: int, pin: str) -> str:
    """The link (and QR code) a tablet joins with: an address tablets can reach
    (``webui.table.addresses.join_base``)."""
    base = join_base(current_app.config.get("PUBLIC_URL"), current_app.config.get("LAN_URL"),
                     request.host_url)
    return f"{base}/t/{table_id}/join?pin={pin}"


@bp.get("/t/<int:table_id>/sheet")
def sheet(table_id: int) -> Any:
    return render_template("sheet.html", **page_context(table_id))


@bp.get("/t/<int:table_id>/history")
def history(table_id: int) -> Any:
    require_viewer(table_id)
    ctx = page_context(table_id)
    seats = {d.id: d.seat for d in store().devices(table_id)}
    ctx["history"] = words.history_lines(store().events(table_id), ctx["players"], seats,
                                         current_app.config.get("TIMEZONE"))
    return render_template("history.html", **ctx)


@bp.get("/t/<int:table_id>/games/<int:game_no>/sign")
def sign_page(table_id: int, game_no: int) -> Any:
    ctx = page_context(table_id)
    game = ctx["state"].game_by_number(game_no)
    if game is None:
        refuse(404, "no such game")
    if ctx["device"] is None and not ctx["director"]:
        return redirect(url_for("views.join", table_id=table_id))
    ctx["game"] = game
    ctx["view"] = sheetview.game_view(ctx["state"], game)
    return render_template("sign.html", **ctx)
