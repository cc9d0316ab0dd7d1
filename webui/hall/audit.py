"""The audit of the event: every director action (corrections, reopenings, adjustments,
penalties, draws, pairings, rounds, rules, tie-breaks, player merges, partnership
matches) with the
director's name, in ``hall_audit``."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from webui.hall.health import as_utc
from webui.hall.schema import AuditEntry
from webui.store import Store


class AuditAction(enum.Enum):
    """What a director did."""

    CORRECT = "correct"
    REOPEN = "reopen"
    ADJUSTMENT = "adjustment"
    PENALTY = "penalty"
    DRAW = "draw"
    SEAT = "seat"
    PAIRING = "pairing"
    APPROVE = "approve"
    ROUND = "round"
    RULES = "rules"
    PARTNERSHIP = "partnership"
    TIEBREAKS = "tiebreaks"
    MERGE = "merge"
    UNMERGE = "unmerge"
    ENTRY = "entry"
    WITHDRAW = "withdraw"
    FORFEIT = "forfeit"
    UNDO = "undo"
    SWAP = "swap"
    ADOPT = "adopt"
    DECK = "deck"


@dataclass(frozen=True)
class Audited:
    """One audit entry as read back."""

    at: datetime
    director: str
    action: AuditAction
    table_id: int | None
    detail: str


def record(store: Store, director: str, action: AuditAction, detail: str,
           table_id: int | None = None) -> None:
    """Log ``action`` by ``director`` (with the table, if any, and what was done)."""
    with store.Session() as s:
        s.add(AuditEntry(director=director[:80], action=action.value, table_id=table_id,
                         detail=detail[:2000]))
        s.commit()


def entries(store: Store, limit: int = 500) -> list[Audited]:
    """The latest audit entries, newest first."""
    with store.Session() as s:
        rows = list(s.scalars(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)))
    return [Audited(as_utc(r.created_at), r.director, AuditAction(r.action), r.table_id,
                    r.detail) for r in rows]
