"""The director's page: the whole event at a glance (tables live, standings, draw, entries,
partnerships, round and pairing, requests and syncs), its live parts, the status board, the
audit log and the same as JSON. Blueprint ``hall``, which also serves the hall's own static
files (``/hall-static/``)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, jsonify, render_template, request

from webui.common.security import director_required, store
from webui.hall import audit, awards, clock, entries, pairing, stations, tiebreaks, tournament
from webui.hall.health import SyncState, table_health
from webui.hall.partnership import partnership_view
from webui.hall.sync import linked_tables
from webui.hall.views.base import partnerships
from webui.hall.views.draw import latest_draw
from webui.hall.views.rounds import pairing_json
from webui.hall.views.sync import adoptions_json, stall_after, sync_refusals
from webui.hall.views.tables import requests_json
from webui.store import engine

bp = Blueprint("hall", __name__, static_folder=Path(__file__).resolve().parent.parent / "static",
               static_url_path="/hall-static")


def tables_json() -> dict[str, Any]:
    """The tables part of the director's page: every table's summary (remembered until its
    next event, ``event.table_summaries``) with its sync health, forfeit and undone pairing,
    the sync problems and the round clock. The live refresh and the board need no more."""
    links = linked_tables(store())
    tables = tournament.table_summaries(store(), [t.id for t in store().tables()], set(links))
    forfeited = awards.forfeit_words(store())
    undone = stations.undone(store())
    rounds = {x.table_id: x.round for x in stations.seats(store())
              if x.table_id is not None and x.status is stations.SeatStatus.SEATED}
    health = table_health(store(), tables, stall_after=stall_after(),
                          settled=set(forfeited) | set(undone))
    for t in tables:
        t["sync"] = health[t["id"]].to_json()
        t["forfeit"] = t["id"] in forfeited
        t["forfeit_words"] = forfeited.get(t["id"])
        gone = undone.get(t["id"])
        t["undone"] = None if gone is None else {
            "round": gone.seat.round, "table": gone.seat.table, "hands": gone.hands,
            "told_at": gone.told_at.isoformat() if gone.told_at else None}
        t["playing"] = t["playing"] and not t["forfeit"] and gone is None
        t["round"] = rounds.get(t["id"])
    return {
        "tables": tables,
        "sync_problems": [h.to_json() for t_id, h in health.items() if t_id not in undone
                          and h.state in (SyncState.STALLED, SyncState.CONFLICT,
                                          SyncState.REFUSED)],
        "round": _round_json(tables),
        "at": datetime.now(UTC).isoformat(),
    }


def tournament_json() -> dict[str, Any]:
    """Everything on the director's page: plain values and the engine's types (a partnership's
    match and games), which the JSON edges write by their ``to_json``."""
    part = tables_json()
    tables = part["tables"]
    teams = partnerships()
    boards = {b for p in teams for b in p.boards}
    singles = [t["id"] for t in tables if t["id"] not in boards]
    draw = latest_draw()
    rules = tournament.rules_of(store())
    ranked = tournament.standings_of(store(), singles, rules)
    return {
        **part,
        "event_rules": rules,
        "rule_presets": engine.preset_names(),
        "standings": ranked.rows,
        "ranked_by": ranked.ranked_by,
        "tiebreaks": [t.value for t in ranked.order],
        "tiebreak_choices": [(t.value, t.label) for t in tiebreaks.TieBreak],
        "entries": [asdict(e) for e in entries.entries(store())],
        "stations": stations.station_numbers(store()),
        "bye_rule": awards.bye_rule(store()).value,
        "bye_rules": [(r.value, r.label) for r in awards.ByeRule],
        "standings_left_out": [t.to_json() for t in ranked.left_out],
        "partnerships": [partnership_view(store(), p) for p in teams],
        "draw": ({"id": draw.id, "kind": draw.kind, "seed": draw.seed, "entrants": draw.entrants,
                  "pairs": draw.pairs, "at": draw.created_at.isoformat()} if draw else None),
        "requests": requests_json(),
        "sync_refusals": sync_refusals(),
        "adoptions": adoptions_json(stall_after()),
        "pairing": pairing_json(pairing.latest(store())),
        "next_round": pairing.next_round(store()),
        "clock_next": _clock_next(),
    }


def _clock_next() -> int:
    """The round the director's clock form starts: the latest approved pairing's round when
    it is not on the clock yet, else the round after the clock's."""
    current = clock.current_round(store())
    after = current.number + 1 if current else 1
    return max([after, *(p.round for p in pairing.approved(store()))])


def _round_json(tables: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The current round's clock and its tables still playing (None before round 1), from the
    event's table summaries."""
    current = clock.current_round(store())
    if current is None:
        return None
    scope = stations.round_scope(store(), current, pairing.other_rounds_tables(
        pairing.approved(store()), current.number))
    plays = [clock.TablePlay(t["id"], t["name"], t["playing"]) for t in tables]
    return clock.round_status(scope.clock, plays, scope.others,
                              scope.waiting_words).to_json(clock.now())


def shown_tables(ev: dict[str, Any], every: bool) -> dict[str, Any]:
    """The rows of the director's tables section: the current round's tables (the clock's,
    else the latest seated round), tables no round seated, and every table still playing or
    with a problem; an earlier round's finished tables and undone pairings' tables are a
    click away (``every``)."""
    tables = ev["tables"]
    clock = ev["round"]
    seated = [t["round"] for t in tables if t["round"] is not None]
    current = clock["number"] if clock else (max(seated) if seated else None)

    def shown(t: dict[str, Any]) -> bool:
        if every:
            return True
        if t["undone"]:  # its pairing was undone: under "Not counted", off the list
            return False
        return (t["round"] is None or t["round"] == current or t["playing"]
                or bool(t["problems"] or t["waiting"] or t["sync"]["problem"]))

    rows = [t for t in tables if shown(t)]
    return {"rows": rows, "hidden": len(tables) - len(rows), "current": current,
            "every": every}


def _every() -> bool:
    return request.args.get("tables") == "all"


@bp.get("/")
@director_required
def index() -> Any:
    ev = tournament_json()
    return render_template("hall/index.html", ev=ev, shown=shown_tables(ev, _every()))


@bp.get("/live")
@director_required
def live() -> Any:
    """The tables section alone (the page refreshes it every few seconds): the tables part
    only, not the standings and the rest of the page."""
    ev = tables_json()
    return render_template("hall/_tables.html", ev=ev, shown=shown_tables(ev, _every()))


@bp.get("/api/event")
@director_required
def api_event() -> Any:
    return jsonify(tournament_json())


@bp.get("/board")
@director_required
def board() -> Any:
    """The table status board: every table as a tile (playing or over, who must confirm,
    sync state and last sync, what to do), refreshed every 10 s without a script."""
    ev = tables_json()
    seated = {x.table_id: x for x in stations.seats(store())
              if x.table_id is not None and x.status is stations.SeatStatus.SEATED}
    tiles = [{**t, "seat": seated.get(t["id"])} for t in ev["tables"]
             if t["undone"] is None]  # an undone pairing's tables leave the board
    # by round and table number in the room (the event database's ids follow sync order)
    tiles.sort(key=lambda t: (t["seat"] is None, t["seat"].round if t["seat"] else 0,
                              t["seat"].table if t["seat"] else 0, t["id"]))
    playing = [t for t in tiles if t["playing"]]
    return render_template("hall/board.html", ev=ev, tiles=tiles, playing=playing)


@bp.get("/audit")
@director_required
def audit_page() -> Any:
    """Every director action, newest first, with the director's name."""
    return render_template("hall/audit.html", entries=audit.entries(store()),
                           at=datetime.now(UTC).isoformat())
