"""The rounds: the round clock, and each round's pairing (Swiss or knockout) proposed from
the standings, changed by hand, approved (its tables opened or sent to the table apps) or
undone before play, printed and exported."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request

from webui.common.errors import refuse
from webui.common.security import director_required, store
from webui.common.validate import whole_number
from webui.hall import audit, clock, pairing, stations, tournament
from webui.hall.audit import AuditAction
from webui.hall.players import alphabetical
from webui.hall.views.base import back_to, director_name, done, refusals, standings_now

bp = Blueprint("rounds", __name__)


def pairing_json(planned: pairing.Planned | None) -> dict[str, Any] | None:
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


@bp.post("/round")
@director_required
@refusals("round")
def start_round() -> Any:
    """Start the next round on the clock (the form names the round it starts)."""
    number = whole_number(request.form.get("number"), "number", 1, 1000, label="round")
    minutes = whole_number(request.form.get("minutes"), "minutes", clock.MIN_MINUTES,
                           clock.MAX_MINUTES)
    tables = [t for p in pairing.approved(store()) if p.round == number
              for t in p.table_ids]
    started = clock.start_round(store(), number, minutes, director_name(), tables)
    return done(
        AuditAction.ROUND,
        f"round {started.number} started for {started.minutes} minutes",
        f"Round {started.number} started: {started.minutes} minutes.",
        "round",
    )


@bp.post("/pairing")
@director_required
@refusals("pairing", prefix="No pairing")
def propose_pairing() -> Any:
    """Pair the next round (Swiss, or knockout: the next knockout round, or the first one
    of the best ``top`` players) from the standings, for a director to approve."""
    try:
        system = pairing.PairingSystem(request.form.get("system", "swiss"))
    except ValueError:
        refuse(400, "system must be swiss or knockout")
    ranked = standings_now()
    if system is pairing.PairingSystem.KNOCKOUT:
        top_text = request.form.get("top", "").strip()
        top = whole_number(top_text, "top", 2) if top_text else None
        planned = pairing.propose_knockout(store(), ranked.rows, director_name(), top)
    else:
        planned = pairing.propose(store(), ranked.rows, ranked.meetings, director_name())
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
    return redirect(back_to(anchor="pairing"), 303)


def _system_words(planned: pairing.Planned) -> str:
    """``Swiss`` or ``knockout (semi-finals)``."""
    return f"knockout ({planned.bracket.name})" if planned.bracket else "Swiss"


@bp.post("/pairing/<int:pairing_id>/approve")
@director_required
@refusals("pairing", prefix="Not approved")
def approve_pairing(pairing_id: int) -> Any:
    """Approve a proposed pairing: its tables open with the players in the seats."""
    planned = pairing.approve(store(), pairing_id, director_name(),
                                  tournament.rules_of(store()))
    seats = stations.seats(store(), [planned.id])
    opened = ", ".join(str(x.table_id) for x in seats if x.station is None)
    pushed = ", ".join(str(x.table) for x in seats if x.station is not None)
    where = "; ".join(([f"tables {opened} opened with the pairs seated"] if opened else [])
                      + ([f"tables {pushed} sent to their table apps"] if pushed else []))
    return done(
        AuditAction.APPROVE,
        f"round {planned.round} pairing approved ({where}): {_pairs_words(planned)}",
        f"Round {planned.round} approved: {where}.",
        "pairing",
    )


@bp.post("/pairing/<int:pairing_id>/undo")
@director_required
@refusals("pairing", prefix="Not undone")
def undo_pairing(pairing_id: int) -> Any:
    """Undo an approved pairing before play (its tables withdrawn, its bye taken back)."""
    planned = pairing.undo(store(), pairing_id)
    return done(AuditAction.UNDO, f"round {planned.round} pairing undone: "
                f"{_pairs_words(planned)}",
                f"Round {planned.round} pairing undone: pair the round again.", "pairing")


@bp.post("/pairing/<int:pairing_id>/swap")
@director_required
@refusals("pairing", prefix="Not swapped")
def swap_players(pairing_id: int) -> Any:
    """Swap two players of a proposed pairing (seats, or a seat and the bye)."""
    first = whole_number(request.form.get("first"), "first", 1, label="first player")
    second = whole_number(request.form.get("second"), "second", 1, label="second player")
    planned = pairing.swap(store(), pairing_id, first, second, standings_now().meetings)
    return done(AuditAction.SWAP, f"round {planned.round} pairing changed by hand: "
                f"{_pairs_words(planned)}",
                f"Players swapped: {_pairs_words(planned)}.", "pairing")


def _pairs_words(planned: pairing.Planned) -> str:
    words = [f"{p.a.name} v {p.b.name}" for p in planned.pairs]
    return "; ".join(words + [f"bye {b.name}" for b in planned.byes])


def _pairing_or_404(pairing_id: int) -> pairing.Planned:
    planned = pairing.get(store(), pairing_id)
    if planned is None:
        refuse(404, "no such pairing")
    return planned


@bp.get("/pairing/<int:pairing_id>/print")
@director_required
def pairing_print(pairing_id: int) -> Any:
    """A pairing on a page to print or show on a projector: each table with both players'
    records going into the round, then every player in alphabetical order with table, seat
    and opponent (for the wall)."""
    pairing = pairing_json(_pairing_or_404(pairing_id))
    assert pairing is not None
    who = alphabetical([(p["table"], p["A"]["name"], p["B"]["name"]) for p in pairing["pairs"]],
                       [b["name"] for b in pairing["byes"]])
    return render_template("hall/pairing_print.html", pairing=pairing, who=who,
                           at=datetime.now(UTC).isoformat())


@bp.get("/pairing/<int:pairing_id>.csv")
@director_required
def pairing_csv(pairing_id: int) -> Response:
    """A pairing as CSV (one row per table, then the bye)."""
    planned = _pairing_or_404(pairing_id)
    return Response(pairing.pairing_csv(planned), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="gintray-round-{planned.round}.csv"'})
