"""Setting the event up: the blind draw (made, redone while no table is open, printed, then
seated: its tables opened or sent to the table apps) and the partnership matches on two
boards."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request
from sqlalchemy import select

from webui.common.errors import refuse
from webui.common.refusal import Refusal
from webui.common.security import director_required, store
from webui.common.validate import whole_number
from webui.hall import audit, awards, entries, roster, stations, tournament
from webui.hall.audit import AuditAction
from webui.hall.draw import blind_draw
from webui.hall.partnership import check_teams
from webui.hall.players import alphabetical
from webui.hall.schema import Draw, DrawSeating, Partnership
from webui.hall.views.base import back_to, director_name, done, refusals
from webui.store import Actor
from webui.store.db import commit_first

bp = Blueprint("draw", __name__)


def latest_draw() -> Draw | None:
    with store().Session() as s:
        return s.scalar(select(Draw).order_by(Draw.id.desc()).limit(1))


@bp.post("/draw")
@director_required
@refusals("draw")
def draw() -> Any:
    kind = request.form.get("kind", "singles")
    if kind not in ("singles", "partnership"):
        refuse(400, "kind must be singles or partnership")
    names = request.form.get("entrants", "").splitlines()
    if kind == "singles":  # the registered players (a typed list is checked against them)
        names = entries.draw_entrants(store(), names)
    seed, pairs = blind_draw(names)
    latest = latest_draw()
    refusal = _redraw_refusal(latest, request.form.get("replace", ""))
    if refusal:
        raise Refusal(refusal)
    with store().Session() as s:
        s.add(Draw(kind=kind, seed=seed, entrants=[n.strip() for n in names if n.strip()],
                   pairs=pairs))
        s.commit()
    replaced = (f"; it replaces the draw of {latest.created_at:%H:%M:%S} (seed {latest.seed})"
                if latest else "")
    return done(
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


@bp.get("/draw/print")
@director_required
def draw_print() -> Any:
    """The latest blind draw on a page to print or show: when, the seed (so it can be
    checked), each table with both entrants, the bye, then every entrant in alphabetical
    order with table, seat and opponent (for the wall)."""
    latest = latest_draw()
    if latest is None:
        refuse(404, "no draw yet")
    pairs = [(int(p["table"]), str(p["A"]), str(p["B"])) for p in latest.pairs
             if not p.get("bye")]
    byes = [str(p["A"]) for p in latest.pairs if p.get("bye")]
    return render_template("hall/draw_print.html", draw=latest, pairs=pairs, byes=byes,
                           who=alphabetical(pairs, byes), seated=_seating(latest.id) is not None,
                           at=datetime.now(UTC).isoformat())


@bp.post("/draw/seat")
@director_required
@refusals()
def seat_draw() -> Any:
    """Open a table on the event database for every pair of the latest draw (for tables that
    run on the event database; tables that score locally take the names from the draw)."""
    latest = latest_draw()
    if latest is None:
        refuse(409, "make a draw first")
    rules = "partnership" if latest.kind == "partnership" else "tournament"
    with store().Session() as s:  # claim the draw first: only one director seats it
        claim = DrawSeating(draw_id=latest.id, table_ids=[])
        s.add(claim)
        if not commit_first(s):
            seated = _seating(latest.id)
            tables = ", ".join(str(t) for t in (seated.table_ids if seated else []))
            raise Refusal(f"The tables of the draw of {latest.created_at:%H:%M:%S} are "
                          f"already open{f' (tables {tables})' if tables else ''}.")
        made: list[int] = []
        pushed: list[int] = []
        if latest.kind == "partnership":
            made = _open_board_tables(latest.pairs, rules)
        else:  # round 1: pushed to the table apps that sync, the rest opened here
            seated = stations.seat_round(store(), 1, [
                (int(p["table"]), _seated(p["A"]), _seated(p["B"]))
                for p in latest.pairs if not p.get("bye")], tournament.rules_of(store()))
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
    return redirect(back_to(), 303)


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


@bp.post("/partnerships")
@director_required
@refusals("partnerships")
def new_partnership() -> Any:
    f = request.form
    team_a, team_b = f.get("team_A", "").strip()[:40], f.get("team_B", "").strip()[:40]
    boards = [whole_number(f.get(f"board_{n}"), f"board_{n}", 1, label=f"board {n}")
              for n in (1, 2)]
    check_teams(team_a, team_b, boards,
                {t.id: store().state(t.id).rules for t in store().tables()})
    teams = {"A": {"name": team_a, "members": _members(f.get("members_A", ""))},
             "B": {"name": team_b, "members": _members(f.get("members_B", ""))}}
    with store().Session() as s:
        s.add(Partnership(name=f"{team_a} v {team_b}", teams=teams, boards=boards))
        s.commit()
    return done(
        AuditAction.PARTNERSHIP,
        f"partnership match {team_a} v {team_b} on boards {boards[0]} and {boards[1]}",
        f"Partnership match {team_a} v {team_b} set up.",
        "partnerships",
    )


def _members(text: str) -> list[str]:
    return [m.strip()[:40] for m in text.split(",") if m.strip()][:2]
