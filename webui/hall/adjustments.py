"""Points adjustments and penalties a director gives a player (by player id), kept in
``hall_adjustments``: they count in the player's point difference in the standings."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from webui.common.refusal import Refusal
from webui.hall.health import as_utc
from webui.hall.schema import Adjustment
from webui.store import Store

MAX_POINTS = 1000


class AdjustmentKind(enum.Enum):
    """An adjustment adds or takes points (either sign); a penalty only takes them."""

    ADJUSTMENT = "adjustment"
    PENALTY = "penalty"


class AdjustmentError(Refusal):
    """An adjustment that cannot be given (no points, no reason, too many points)."""


@dataclass(frozen=True)
class Given:
    """An adjustment as stored: whom, what kind, signed points, why, who, when."""

    player_id: int
    kind: AdjustmentKind
    points: int
    reason: str
    director: str
    at: datetime


def signed_points(kind: AdjustmentKind, points: int) -> int:
    """The points as they count: a penalty of 10 is -10; an adjustment keeps its sign."""
    if points == 0 or abs(points) > MAX_POINTS:
        raise AdjustmentError(f"points must be 1 to {MAX_POINTS} (or -1 to -{MAX_POINTS})")
    if kind is AdjustmentKind.PENALTY:
        return -abs(points)
    return points


def give(store: Store, player_id: int, kind: AdjustmentKind, points: int, reason: str,
         director: str) -> Given:
    """Give ``player_id`` an adjustment or penalty (a reason is required)."""
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise AdjustmentError("say why (the reason is shown in the audit)")
    value = signed_points(kind, points)
    row = Adjustment(player_id=player_id, kind=kind.value, points=value, reason=reason,
                     director=director[:80])
    with store.Session() as s:
        s.add(row)
        s.commit()
        return Given(player_id, kind, value, reason, row.director, as_utc(row.created_at))


def totals(store: Store) -> dict[int, int]:
    """Each player's adjustments and penalties summed (signed points)."""
    out: dict[int, int] = {}
    with store.Session() as s:
        for pid, points in s.execute(select(Adjustment.player_id, Adjustment.points)):
            out[pid] = out.get(pid, 0) + points
    return out
