"""The standings and what decides them: the rules the event plays, how a bye counts, the
order of the tie-breaks, points adjustments and penalties; printed and exported."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, render_template, request

from webui.common.errors import refuse
from webui.common.refusal import Refusal
from webui.common.security import director_required, store
from webui.common.validate import whole_number
from webui.hall import adjustments, awards, results, roster, tiebreaks, tournament
from webui.hall.adjustments import AdjustmentKind
from webui.hall.audit import AuditAction
from webui.hall.views.base import (
    director_name,
    done,
    refusals,
    singles_tables,
    standings_now,
)
from webui.store import engine

bp = Blueprint("standings", __name__)


@bp.post("/event-rules")
@director_required
def set_rules() -> Any:
    """The rules the event plays: only tables on these rules count in the standings."""
    rules = request.form.get("rules", "")
    if rules not in engine.preset_names():
        refuse(400, f"rules must be one of {', '.join(engine.preset_names())}")
    store().set_setting(tournament.RULES_KEY, rules)
    return done(
        AuditAction.RULES,
        f"the event plays {rules} rules",
        f"The event plays {rules} rules: only tables on them count in the standings.",
        "standings",
    )


@bp.post("/bye-rule")
@director_required
@refusals("standings")
def set_bye_rule() -> Any:
    """How a bye counts in the standings (a match won, played, or nothing)."""
    try:
        rule = awards.ByeRule(request.form.get("rule", ""))
    except ValueError:
        raise Refusal("Say how a bye counts.") from None
    awards.set_bye_rule(store(), rule)
    return done(AuditAction.RULES, f"a bye counts as {rule.label}",
                f"A bye counts as {rule.label}.", "standings")


@bp.post("/tiebreaks")
@director_required
@refusals("standings", prefix="Tie-breaks not changed")
def set_tiebreaks() -> Any:
    """The order of the tie-breaks between players with as many matches won."""
    order = tiebreaks.parse_order(request.form.getlist("tiebreak"))
    tiebreaks.save(store(), order)
    rule = tiebreaks.order_text(order)
    return done(
        AuditAction.TIEBREAKS,
        f"standings ranked by {rule}",
        f"Standings ranked by {rule}.",
        "standings",
    )


@bp.post("/adjustments")
@director_required
@refusals("standings")
def give_adjustment() -> Any:
    """A points adjustment or penalty for a player (by player id), with the reason."""
    f = request.form
    if f.get("kind") not in {k.value for k in AdjustmentKind}:
        raise Refusal("Say whether it is an adjustment or a penalty.")
    kind = AdjustmentKind(f["kind"])
    player = whole_number(f.get("player_id"), "player_id", 1, label="player")
    points = whole_number(f.get("points"), "points", -adjustments.MAX_POINTS,
                          adjustments.MAX_POINTS)
    names = roster.player_names(store())
    if player not in names:
        raise adjustments.AdjustmentError("no such player in this event")
    given = adjustments.give(store(), player, kind, points, f.get("reason", ""),
                             director_name())
    return done(
        AuditAction(given.kind.value),
        f"{names[player]} (player {player}) {given.points:+d} points: {given.reason}",
        f"{given.kind.value.capitalize()} for {names[player]}: {given.points:+d} points.",
        "standings",
    )


@bp.get("/standings.csv")
@director_required
def standings_csv() -> Response:
    """The standings as CSV (one row per player; names as typed, first spelling first)."""
    ranked = standings_now()
    body = tournament.standings_csv(ranked.rows, ranked.ranked_by)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    return Response(body, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="gintray-standings-{stamp}.csv"'})


@bp.get("/results.csv")
@director_required
def results_csv() -> Response:
    """Every round's results, a row a table (games, points, won, playing or forfeit), then
    the round's byes (``webui.hall.results``)."""
    rows = results.round_results(store(), singles_tables(), tournament.rules_of(store()))
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    return Response(results.results_csv(rows), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="gintray-results-{stamp}.csv"'})


@bp.get("/results/print")
@director_required
def results_print() -> Any:
    """Every round's results on a page to print or show: round by round, table by table,
    then the round's byes (the rows of ``/results.csv``)."""
    rows = results.round_results(store(), singles_tables(), tournament.rules_of(store()))
    rounds: dict[int | None, list[results.ResultRow]] = {}
    for row in rows:
        rounds.setdefault(row.round, []).append(row)
    return render_template("hall/results_print.html", rounds=rounds,
                           rules=tournament.rules_of(store()),
                           at=datetime.now(UTC).isoformat())


@bp.get("/standings/print")
@director_required
def standings_print() -> Any:
    """The standings on a page to print or show (no forms, no refresh)."""
    ranked = standings_now()
    return render_template("hall/standings_print.html", standings=ranked.rows,
                           left_out=[t.to_json() for t in ranked.left_out],
                           rules=tournament.rules_of(store()),
                           ranked_by=ranked.ranked_by, at=datetime.now(UTC).isoformat())
