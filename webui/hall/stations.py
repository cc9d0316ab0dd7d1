"""Seating a round at the event's tables: the table apps that sync (stations) get their
round's table pushed, the rest are opened on the event database.

A station is a table database that syncs to the event (its origin), numbered in the order it
first synced. Seating a round (the draw's first round, or an approved pairing) gives table k
to station k; its sync opens that table in the table app's own database with the players'
names (``webui.common.seating``) and uploads it, and the hall then knows it as that table (its
mirror). Tables past the last station open on the event database as before (direct tables).
The clock, the board and the projector follow these tables, so a synced round shows the tables
the table apps actually play, never empty ones opened beside them.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update

from webui.common.seating import Seating
from webui.hall import awards, roster
from webui.hall.clock import RoundClock
from webui.hall.schema import HallStation, HallTableSeating, HallWithdrawalTold, OriginSeen
from webui.store import Actor, Store
from webui.store.db import as_utc, commit_first

DIRECTOR = Actor("director")


class SeatStatus(enum.Enum):
    """A seated table's state: seated, or withdrawn by the director before play."""

    SEATED = "seated"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True)
class SeatedPlayer:
    """A player in a seat: stable id and the name shown."""

    player_id: int
    name: str


@dataclass(frozen=True)
class TableSeat:
    """One table of a seated round: number in the room, both players, the station it is
    pushed to (None: opened on the event database), the event database's table once known."""

    token: str
    round: int
    table: int
    a: SeatedPlayer
    b: SeatedPlayer
    station: int | None
    table_id: int | None
    status: SeatStatus
    pairing_id: int | None = None

    @property
    def waiting(self) -> bool:
        """Pushed to a station whose sync has not brought the table up yet."""
        return self.table_id is None and self.status is SeatStatus.SEATED

    @property
    def seating(self) -> Seating:
        """What the table app gets (``webui.common.seating``)."""
        return Seating(self.token, self.round, self.table, self.a.name, self.b.name)

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "table": self.table, "A": self.a.name, "B": self.b.name,
                "station": self.station, "table_id": self.table_id,
                "status": self.status.value, "waiting": self.waiting}


@dataclass(frozen=True)
class RoundSeats:
    """A seated round's tables: the event database's ids known so far, and those still
    waiting for their station's sync."""

    number: int
    seats: tuple[TableSeat, ...]

    @property
    def table_ids(self) -> tuple[int, ...]:
        return tuple(s.table_id for s in self.seats
                     if s.table_id is not None and s.status is SeatStatus.SEATED)

    @property
    def waiting(self) -> tuple[TableSeat, ...]:
        return tuple(s for s in self.seats if s.waiting)


def _seat(row: HallTableSeating) -> TableSeat:
    p = row.players
    return TableSeat(row.token, row.round, row.table,
                     SeatedPlayer(int(p["A"]["id"]), str(p["A"]["name"])),
                     SeatedPlayer(int(p["B"]["id"]), str(p["B"]["name"])),
                     row.station, row.table_id, SeatStatus(row.status), row.pairing_id)


# stations --------------------------------------------------------------------------------------

MAX_REGISTER_TRIES = 1000


def register(central: Store, origin: str) -> int:
    """The station number of a syncing table database (the next number on its first sync)."""
    # table apps syncing for the first time at once race for the next number: each lost race
    # means another station took that number, so the tries needed are at most the number of
    # table apps registering together (50 tables in tests/test_hall_sync.py)
    for _ in range(MAX_REGISTER_TRIES):
        with central.Session() as s:
            found = s.scalar(select(HallStation.number).where(HallStation.origin == origin))
            if found is not None:
                return found
            top = s.scalar(select(func.max(HallStation.number))) or 0
            s.add(HallStation(number=top + 1, origin=origin))
            if commit_first(s):
                return top + 1
    raise RuntimeError(f"table database {origin[:8]} could not be given a station number")


def station_numbers(store: Store) -> list[int]:
    """Every station's number, in order."""
    with store.Session() as s:
        return list(s.scalars(select(HallStation.number).order_by(HallStation.number)))


# seating a round -------------------------------------------------------------------------------

def seat_round(store: Store, number: int, pairs: list[tuple[int, SeatedPlayer, SeatedPlayer]],
               rules: Any, pairing_id: int | None = None) -> list[TableSeat]:
    """Seat round ``number``: each pair (table number, seat A, seat B) goes to the station
    of that number when there is one (its sync opens the table), else a table opens on the
    event database now with the players in the seats. The caller makes sure a round is
    seated once (a draw's claim, a pairing's approval)."""
    stations = set(station_numbers(store))
    out = []
    with store.Session() as s:
        for table, a, b in pairs:
            station = table if table in stations else None
            table_id = None
            if station is None:
                name = f"Round {number} Table {table}"
                table_id = store.create_table(name, {
                    "name": name, "players": {"A": a.name, "B": b.name}, "rules": rules,
                    "camera": None}, DIRECTOR)
                roster.seat_players(s, table_id, {"A": a.player_id, "B": b.player_id})
            row = HallTableSeating(
                token=uuid.uuid4().hex, round=number, table=table, pairing_id=pairing_id,
                station=station, rules=rules, table_id=table_id, status="seated",
                players={"A": {"id": a.player_id, "name": a.name},
                         "B": {"id": b.player_id, "name": b.name}})
            s.add(row)
            s.flush()
            out.append(_seat(row))
        s.commit()
    return out


def seats(store: Store, pairing_ids: list[int] | None = None) -> list[TableSeat]:
    """Every seated table (of the given pairings only, when given), by round and number."""
    q = select(HallTableSeating).order_by(HallTableSeating.round, HallTableSeating.table)
    if pairing_ids is not None:
        q = q.where(HallTableSeating.pairing_id.in_(pairing_ids))
    with store.Session() as s:
        return [_seat(r) for r in s.scalars(q)]


def by_round(store: Store) -> dict[int, RoundSeats]:
    """The seated rounds by number (withdrawn seatings left out)."""
    out: dict[int, list[TableSeat]] = {}
    for seat in seats(store):
        if seat.status is SeatStatus.SEATED:
            out.setdefault(seat.round, []).append(seat)
    return {n: RoundSeats(n, tuple(v)) for n, v in out.items()}


def withdraw_pairing(store: Store, pairing_id: int) -> None:
    """Withdraw a pairing's seatings (its pairing undone): a station's sync no longer opens
    them, and their tables leave the clock and the standings."""
    with store.Session() as s:
        s.execute(update(HallTableSeating).where(HallTableSeating.pairing_id == pairing_id)
                  .values(status=SeatStatus.WITHDRAWN.value))
        s.commit()


def withdrawn_tables(store: Store) -> set[int]:
    """The event database's tables of withdrawn seatings."""
    with store.Session() as s:
        return set(s.scalars(select(HallTableSeating.table_id).where(
            HallTableSeating.status == SeatStatus.WITHDRAWN.value,
            HallTableSeating.table_id.is_not(None))))


def withdrawn_at(central: Store, station: int) -> list[TableSeat]:
    """The withdrawn seatings of a station (to tell its table app)."""
    with central.Session() as s:
        rows = list(s.scalars(select(HallTableSeating).where(
            HallTableSeating.station == station,
            HallTableSeating.status == SeatStatus.WITHDRAWN.value)))
    return [_seat(r) for r in rows]


def told(central: Store, token: str, hands: int) -> bool:
    """Record that a withdrawn seating was told to its table app, with the hands recorded
    there by then; whether this is the first time (False: told before)."""
    with central.Session() as s:
        if s.get(HallWithdrawalTold, token) is not None:
            return False
        s.add(HallWithdrawalTold(token=token, hands=hands))
        return commit_first(s)


@dataclass(frozen=True)
class Undone:
    """A withdrawn seating as the hall tells it: told to its table app (when) or not yet, and
    the hands its table app had recorded by then."""

    seat: TableSeat
    told_at: datetime | None
    hands: int


def undone(store: Store) -> dict[int, Undone]:
    """The withdrawn seatings whose table exists (at the event database), by its id."""
    with store.Session() as s:
        told_rows = {r.token: r for r in s.scalars(select(HallWithdrawalTold))}
    out = {}
    for seat in seats(store):
        if seat.status is SeatStatus.WITHDRAWN and seat.table_id is not None:
            row = told_rows.get(seat.token)
            out[seat.table_id] = Undone(seat, row.told_at if row else None,
                                        row.hands if row else 0)
    return out


def station_synced_at(store: Store, station: int) -> datetime | None:
    """When a station last synced well (tables or not)."""
    with store.Session() as s:
        found = s.scalar(select(OriginSeen.synced_at).join(
            HallStation, HallStation.origin == OriginSeen.origin).where(
            HallStation.number == station))
    return as_utc(found) if found is not None else None


def settled_tables(store: Store) -> set[int]:
    """Tables that play no more whatever their hands say: a forfeit decided their match, or
    their pairing was undone (the board, the clock and the projector agree on it)."""
    return awards.forfeited_tables(store) | withdrawn_tables(store)


def round_of_table(store: Store, table_id: int) -> int | None:
    """The round a table was seated for (None: not seated by the hall)."""
    with store.Session() as s:
        return s.scalar(select(HallTableSeating.round).where(
            HallTableSeating.table_id == table_id))


@dataclass(frozen=True)
class RoundScope:
    """Which tables a round on the clock follows: the clock with its seated tables, the
    tables of other rounds, and the round's tables still waiting for a station's sync."""

    clock: RoundClock
    others: frozenset[int]
    waiting: tuple[TableSeat, ...]

    @property
    def waiting_words(self) -> tuple[str, ...]:
        return tuple(f"Table {w.table} ({w.a.name} v {w.b.name}: waiting for table app "
                     f"{w.station}'s sync)" for w in self.waiting)


def round_scope(store: Store, clock: RoundClock, other_pairings: set[int]) -> RoundScope:
    """The tables of ``clock``'s round: its seated tables when it was seated here (the draw
    or a pairing), else every table not seated for another round (``other_pairings``: the
    tables of pairings approved before seatings were kept)."""
    rounds = by_round(store)
    others = set(other_pairings) | {t for n, r in rounds.items() if n != clock.number
                                    for t in r.table_ids}
    mine = rounds.get(clock.number)
    if mine is None:
        return RoundScope(clock, frozenset(others), ())
    return RoundScope(replace(clock, table_ids=mine.table_ids, seated=True),
                      frozenset(others), mine.waiting)


# the sync's side -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pushed:
    """A seating waiting at a station, with the rules its table plays."""

    seat: TableSeat
    rules: Any


def pending(central: Store, station: int) -> list[Pushed]:
    """The seated tables a station's sync still has to open, oldest round first."""
    with central.Session() as s:
        rows = list(s.scalars(select(HallTableSeating).where(
            HallTableSeating.station == station, HallTableSeating.table_id.is_(None),
            HallTableSeating.status == SeatStatus.SEATED.value)
            .order_by(HallTableSeating.round, HallTableSeating.table)))
    return [Pushed(_seat(r), r.rules) for r in rows]


def placed(central: Store, token: str, table_id: int) -> None:
    """A station's sync opened and linked the table of seating ``token``: it is the event
    database's ``table_id``, its seats the seating's player ids (once)."""
    with central.Session() as s:
        row = s.scalar(select(HallTableSeating).where(HallTableSeating.token == token))
        if row is None or row.table_id is not None:
            return
        done = s.execute(update(HallTableSeating).where(
            HallTableSeating.token == token, HallTableSeating.table_id.is_(None))
            .values(table_id=table_id)).rowcount == 1
        if done:
            p = row.players
            roster.seat_players(s, table_id, {"A": int(p["A"]["id"]), "B": int(p["B"]["id"])})
        if not commit_first(s):  # a concurrent sync of the same table placed it first
            return
