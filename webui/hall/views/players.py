"""The event's players: entered (before the draw or late), withdrawn, listed by id, and one
person typed two ways merged into one player (or the merge undone)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from webui.common.security import director_required, store
from webui.common.validate import whole_number
from webui.hall import clock, entries, merges, roster
from webui.hall.audit import AuditAction
from webui.hall.views.base import director_name, done, refusals, standings_now

bp = Blueprint("players", __name__)
PAGE = "players.players_page"


@bp.post("/entries")
@director_required
@refusals("entries", prefix="Not entered")
def enter_players() -> Any:
    """Enter players (one a line): before the draw, or late (paired from the next round)."""
    after = clock.current_round(store())
    from_round = after.number + 1 if after else 1
    made = entries.enter(store(), request.form.get("names", "").splitlines(), from_round,
                         director_name())
    names = ", ".join(e.name for e in made)
    return done(AuditAction.ENTRY, f"entered from round {from_round}: {names}",
                f"Entered from round {from_round}: {names}.", "entries")


@bp.post("/entries/<int:player_id>/withdraw")
@director_required
@refusals("entries", prefix="Not withdrawn")
def withdraw_player(player_id: int) -> Any:
    """Withdraw a player: their results stand, they are paired no more."""
    after = clock.current_round(store())
    gone = entries.withdraw(store(), player_id, after.number if after else 0)
    return done(AuditAction.WITHDRAW, f"{gone.name} (player {gone.player_id}) withdrew "
                f"after round {gone.withdrawn_after}",
                f"{gone.name} withdrew: not paired any more.", "entries")


@bp.get("/players")
@director_required
def players_page() -> Any:
    """Every player of the event by id, with a form to merge one id into another."""
    ranked = standings_now()
    merged = merges.merged_ids(store())
    names = roster.player_names(store())
    choices = sorted(((pid, name) for pid, name in names.items() if pid not in merged),
                     key=lambda c: (c[1].casefold(), c[0]))
    return render_template("hall/players.html", standings=ranked.rows, choices=choices,
                           merges=merges.merges(store()))


@bp.post("/players/merge")
@director_required
@refusals(prefix="Not merged", endpoint=PAGE)
def merge_players() -> Any:
    """Merge one player id into another (one person whose name was typed two ways)."""
    f = request.form
    from_id = whole_number(f.get("from_id"), "from_id", 1, label="the player to merge")
    into_id = whole_number(f.get("into_id"), "into_id", 1, label="the player to merge into")
    made = merges.merge(store(), from_id, into_id, director_name(), f.get("reason", ""),
                        standings_now().meetings)
    return done(AuditAction.MERGE,
                f"{made.from_name} (player {made.from_id}) merged into {made.into_name} "
                f"(player {made.into_id}): {made.reason}",
                f"{made.from_name} (player {made.from_id}) merged into {made.into_name} "
                f"(player {made.into_id}): the standings count them as one player.",
                endpoint=PAGE)


@bp.post("/players/<int:player_id>/unmerge")
@director_required
@refusals(prefix="Not undone", endpoint=PAGE)
def unmerge_player(player_id: int) -> Any:
    """Undo a merge: the merged id counts for itself again."""
    undone = merges.unmerge(store(), player_id)
    return done(AuditAction.UNMERGE,
                f"{undone.from_name} (player {undone.from_id}) no longer merged into "
                f"{undone.into_name} (player {undone.into_id})",
                f"{undone.from_name} (player {undone.from_id}) counts on its own again.",
                endpoint=PAGE)
