"""The tables' syncs as the director sees them: refused syncs (copied or diverged table
databases) and the adoptions asked with ``gintray sync --adopt``, approved or refused here."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, current_app
from sqlalchemy import select

from webui.common.security import director_required, store
from webui.hall import adoption
from webui.hall.audit import AuditAction
from webui.hall.schema import SyncRefusal
from webui.hall.views.base import director_name, done, refusals

bp = Blueprint("sync", __name__)


def stall_after() -> timedelta:
    """How long a synced table may go without a sync before it counts as stalled."""
    return timedelta(minutes=float(current_app.config.get("STALL_MINUTES", 3)))


def adoptions_json(alive_within: timedelta) -> list[dict[str, Any]]:
    """Databases asking to be adopted, each beside what the event holds of its table, and
    why approving it would be refused (None: it may be approved)."""
    out = []
    for a in adoption.adoptions(store(), adoption.AdoptionStatus.ASKED):
        held = adoption.event_history(store(), a.origin)
        live = adoption.syncing(store(), a.origin)
        out.append({"id": a.id, "origin": a.origin, "home": a.home, "at": a.at.isoformat(),
                    "station": live.station, "syncing_home": live.home,
                    "synced_at": live.at.isoformat() if live.at else None,
                    "tables": [{"table": t, "events": h.events, "signed": h.signed,
                                "event_events": held[t].events if t in held else 0,
                                "event_signed": held[t].signed if t in held else 0}
                               for t, h in sorted(a.history.items())],
                    "refusal": adoption.refusal(store(), a, alive_within)})
    return out


def sync_refusals() -> list[dict[str, Any]]:
    """The latest refused syncs (copied or diverged table databases), newest first."""
    with store().Session() as s:
        rows = list(s.scalars(select(SyncRefusal).order_by(SyncRefusal.id.desc()).limit(20)))
    return [{"origin": r.origin, "home": r.home, "message": r.message,
             "at": r.created_at.isoformat()} for r in rows]


@bp.post("/adoptions/<int:adoption_id>/<any(approve, refuse):decision>")
@director_required
@refusals("sync-refusals", prefix="Not adopted")
def decide_adoption(adoption_id: int, decision: str) -> Any:
    """Approve or refuse a database's ``gintray sync --adopt``."""
    made = adoption.decide(store(), adoption_id, decision == "approve", director_name(),
                           stall_after())
    words = ("adopted: it syncs as its table from now on, the other database is refused"
             if made.status is adoption.AdoptionStatus.APPROVED else "refused")
    return done(AuditAction.ADOPT, f"table database {made.origin[:8]} at {made.home}: {words}",
                f"Table database {made.origin[:8]} at {made.home} {words}.", "sync-refusals")
