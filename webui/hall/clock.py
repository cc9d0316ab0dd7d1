"""The round clock: the director starts a round with a length in minutes; the hall shows the
time left and which of the round's tables are still playing. Kept in the event database
(``hall_rounds``), so a restart of the hall keeps the clock running."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from webui.common.refusal import Refusal
from webui.hall.health import as_utc
from webui.hall.schema import HallRound
from webui.store import Store
from webui.store.db import commit_first, utcnow
from webui.store.state import TableState

MIN_MINUTES, MAX_MINUTES = 1, 600


class RoundError(Refusal):
    """A round that cannot start (already started, a wrong number, a bad length)."""


def now() -> datetime:
    """The current time (UTC); tests move it."""
    return utcnow()


def table_playing(state: TableState) -> bool:
    """Whether a table still plays its round: its match is not over, or its current game is
    not finished and signed by both players (a table not started yet is playing)."""
    game = state.game
    if game is None:
        return True
    return not state.match().complete or not (game.ended and game.locked)


@dataclass(frozen=True)
class RoundClock:
    """A started round: number, length, start (UTC), who started it, its tables (empty:
    every table)."""

    number: int
    minutes: int
    started_at: datetime
    started_by: str
    table_ids: tuple[int, ...] = ()
    seated: bool = False  # table_ids are the round's seated tables (even none yet)

    @property
    def ends_at(self) -> datetime:
        return self.started_at + timedelta(minutes=self.minutes)

    def seconds_left(self, at: datetime) -> int:
        """Seconds until the end (negative once time is up)."""
        return int((self.ends_at - at).total_seconds() // 1)

    def to_json(self, at: datetime) -> dict[str, Any]:
        left = self.seconds_left(at)
        return {"number": self.number, "minutes": self.minutes,
                "started_at": self.started_at.isoformat(), "ends_at": self.ends_at.isoformat(),
                "started_by": self.started_by, "tables": list(self.table_ids),
                "seconds_left": left, "left": clock_text(left)}


def clock_text(seconds_left: int) -> str:
    """``12:05 left`` or ``time up 3:10 ago``."""
    shown = abs(seconds_left)
    text = f"{shown // 60}:{shown % 60:02d}"
    return f"{text} left" if seconds_left >= 0 else f"time up {text} ago"


def _clock(row: HallRound) -> RoundClock:
    return RoundClock(row.number, row.minutes, as_utc(row.started_at), row.started_by,
                      tuple(row.table_ids or ()))


def current_round(store: Store) -> RoundClock | None:
    """The latest started round, or None before the first."""
    with store.Session() as s:
        row = s.scalar(select(HallRound).order_by(HallRound.number.desc()).limit(1))
        return _clock(row) if row else None


def start_round(store: Store, number: int, minutes: int, by: str,
                table_ids: list[int] | None = None) -> RoundClock:
    """Start round ``number`` for ``minutes``: a round after the last one started (the page
    says which it starts, so a second director's or a repeated submit starts nothing)."""
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise RoundError(f"a round lasts {MIN_MINUTES} to {MAX_MINUTES} minutes")
    latest = current_round(store)
    if latest is not None and number <= latest.number:
        raise RoundError(f"round {number} cannot start: round {latest.number} was started "
                         f"last, so the next is round {latest.number + 1}")
    row = HallRound(number=number, minutes=minutes, started_at=now(), started_by=by[:80],
                    table_ids=list(table_ids or []))
    with store.Session() as s:
        s.add(row)
        if not commit_first(s):
            raise RoundError(f"round {number} was just started by another director")
        return _clock(row)


@dataclass(frozen=True)
class RoundStatus:
    """The clock of the current round and its tables still playing (id and name)."""

    clock: RoundClock
    playing: list[tuple[int, str]]
    tables: int
    waiting: tuple[str, ...] = ()

    def to_json(self, at: datetime) -> dict[str, Any]:
        return {**self.clock.to_json(at), "playing": [
            {"table": t, "name": n} for t, n in self.playing], "table_count": self.tables,
            "waiting": list(self.waiting)}


@dataclass(frozen=True)
class TablePlay:
    """A table as the clock sees it: id, name, whether it still plays (``table_playing``)."""

    table_id: int
    name: str
    playing: bool


def round_tables(clock: RoundClock, table_ids: Sequence[int],
                 others: Collection[int] = frozenset()) -> list[int]:
    """Which of the event's ``table_ids`` play ``clock``'s round: the tables it names, or
    for a round that names none (one not seated from a pairing) every table but ``others``
    (the tables seated for other rounds)."""
    mine = set(clock.table_ids)
    return [t for t in table_ids if (t in mine if mine or clock.seated else t not in others)]


def round_status(clock: RoundClock, tables: Sequence[TablePlay],
                 others: Collection[int] = frozenset(),
                 waiting: Sequence[str] = ()) -> RoundStatus:
    """Which of ``clock``'s tables (``round_tables``) are still playing, from every table of
    the event; ``waiting``: the round's tables pushed to a table app whose sync has not
    brought them up yet (they count as playing)."""
    mine = set(round_tables(clock, [t.table_id for t in tables], others))
    chosen = [t for t in tables if t.table_id in mine]
    return RoundStatus(clock, [(t.table_id, t.name) for t in chosen if t.playing],
                       len(chosen) + len(waiting), tuple(waiting))
