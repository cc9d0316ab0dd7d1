"""Adopting a table database (``gintray sync --adopt``) safely, decided by the director.

A moved or restored table database is refused as "a copy" (its file is not the origin's
home). ``--adopt`` used to take the file as home at once, so a *copy* adopted while the
original still played took the table over: the original was refused from then on as behind,
and ``--adopt`` on it was refused too. Now ``--adopt`` only asks: it records the database's
home and its history (events and signed games per table) at the event database, and its
sync stays refused until the director approves it at the hall. The hall refuses to approve
when that would orphan the history the event holds: while the database that syncs now is
alive (it synced within the stall time), or when the asking one is behind the event
database on any table (fewer events, or fewer signed games). After an approval the asking
database's next sync takes its file as home; the other one is refused from then on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from webui.common.membership import current_tables
from webui.common.refusal import Refusal
from webui.hall.health import as_utc
from webui.hall.identity import HOME_KEY, adopt_location, home_of, origin_of
from webui.hall.schema import HallAdoption, HallStation, OriginSeen, TableLink, TableSync
from webui.store import Store
from webui.store.db import utcnow


class AdoptionStatus(enum.Enum):
    ASKED = "asked"
    APPROVED = "approved"
    REFUSED = "refused"


class AdoptionRefused(Refusal):
    """An adoption the hall will not approve, with why."""


@dataclass(frozen=True)
class TableHistory:
    """How far one table's history goes: its last event and its signed games."""

    events: int
    signed: int


@dataclass(frozen=True)
class Adoption:
    """A database's request to be its table's database, and the director's decision."""

    id: int
    origin: str
    home: str
    history: dict[int, TableHistory]  # local table id -> its history
    status: AdoptionStatus
    director: str | None
    reason: str
    at: datetime


def _adoption(row: HallAdoption) -> Adoption:
    history = {int(k): TableHistory(int(v["events"]), int(v["signed"]))
               for k, v in row.history.items()}
    return Adoption(row.id, row.origin, row.home, history, AdoptionStatus(row.status),
                    row.director, row.reason, as_utc(row.created_at))


def local_history(local: Store) -> dict[int, TableHistory]:
    """This database's history per table."""
    out = {}
    for table in current_tables(local):
        state = local.state(table.id)
        out[table.id] = TableHistory(state.last_seq, sum(g.locked for g in state.games))
    return out


def ask(local: Store, central: Store) -> Adoption:
    """``gintray sync --adopt``: ask the director to take this file as its table's
    database (nothing changes until approved)."""
    history = local_history(local)
    with central.Session() as s:
        row = HallAdoption(origin=origin_of(local), home=home_of(local)[:200], history={
            str(k): {"events": v.events, "signed": v.signed} for k, v in history.items()},
            status=AdoptionStatus.ASKED.value)
        s.add(row)
        s.commit()
        return _adoption(row)


def adoptions(central: Store, status: AdoptionStatus | None = None) -> list[Adoption]:
    """Adoption requests, newest first."""
    q = select(HallAdoption).order_by(HallAdoption.id.desc())
    if status is not None:
        q = q.where(HallAdoption.status == status.value)
    with central.Session() as s:
        return [_adoption(r) for r in s.scalars(q)]


def event_history(central: Store, origin: str) -> dict[int, TableHistory]:
    """What the event database holds of an origin's tables, by local table id."""
    with central.Session() as s:
        links = list(s.scalars(select(TableLink).where(TableLink.origin == origin)))
    return {link.origin_table_id: TableHistory(
        central.last_seq(link.table_id),
        sum(g.locked for g in central.state(link.table_id).games)) for link in links}


def seen(central: Store, origin: str, home: str) -> None:
    """Record a good sync of ``origin`` from ``home`` (every pass, tables or not)."""
    insert = postgresql.insert if central.engine.dialect.name == "postgresql" else sqlite.insert
    row = {"origin": origin, "home": home[:200], "synced_at": utcnow()}
    with central.engine.begin() as conn:
        conn.execute(insert(OriginSeen.__table__).values(**row).on_conflict_do_update(
            index_elements=["origin"], set_={"home": row["home"],
                                             "synced_at": row["synced_at"]}))


@dataclass(frozen=True)
class Syncing:
    """The database that syncs as an origin now: its station, where it is, its last sync."""

    station: int | None
    home: str | None
    at: datetime | None


def syncing(central: Store, origin: str) -> Syncing:
    """Who syncs as ``origin`` now (the database an adoption would replace)."""
    with central.Session() as s:
        tables = s.scalar(select(func.max(TableSync.synced_at)).join(
            TableLink, TableLink.table_id == TableSync.table_id).where(
            TableLink.origin == origin))
        row = s.get(OriginSeen, origin)
        station = s.scalar(select(HallStation.number).where(HallStation.origin == origin))
    times = [as_utc(t) for t in (tables, row.synced_at if row else None) if t is not None]
    return Syncing(station, row.home if row else None, max(times) if times else None)


def last_sync(central: Store, origin: str) -> datetime | None:
    """When the database that syncs as ``origin`` last synced well (with or without
    tables)."""
    return syncing(central, origin).at


def refusal(central: Store, adoption: Adoption, alive_within: timedelta,
            now: datetime | None = None) -> str | None:
    """Why approving ``adoption`` would orphan the event's history (None: it may be)."""
    now = now or utcnow()
    synced = last_sync(central, adoption.origin)
    if synced is not None and now - synced < alive_within:
        ago = int((now - synced).total_seconds())
        live = syncing(central, adoption.origin)
        station = f"station {live.station}" if live.station else "the table database"
        return (f"the database that syncs as this table synced {ago} s ago: it is alive, so "
                f"this one is a copy and cannot take its place ({station} syncs from "
                f"{live.home or 'its own file'}; the one asking is at {adoption.home}). Keep "
                f"{station}; enter at it any hand played on the copy, and refuse this request")
    held = event_history(central, adoption.origin)
    for table_id, there in held.items():
        mine = adoption.history.get(table_id, TableHistory(0, 0))
        if mine.events < there.events or mine.signed < there.signed:
            return (f"it is behind the event database at its table {table_id} ({mine.events} "
                    f"events and {mine.signed} signed games, the event has {there.events} and "
                    f"{there.signed}): adopting it would lose them")
    return None


def decide(central: Store, adoption_id: int, approve: bool, director: str,
           alive_within: timedelta) -> Adoption:
    """Approve (checked by ``refusal``) or refuse an asked adoption."""
    found = next((a for a in adoptions(central) if a.id == adoption_id), None)
    if found is None or found.status is not AdoptionStatus.ASKED:
        raise AdoptionRefused("this adoption is not waiting for a decision")
    why = refusal(central, found, alive_within) if approve else None
    if why:
        raise AdoptionRefused(why)
    status = AdoptionStatus.APPROVED if approve else AdoptionStatus.REFUSED
    with central.Session() as s:
        done = s.execute(update(HallAdoption).where(
            HallAdoption.id == adoption_id, HallAdoption.status == AdoptionStatus.ASKED.value)
            .values(status=status.value, director=director[:80])).rowcount == 1
        s.commit()
    if not done:
        raise AdoptionRefused("another director decided it meanwhile")
    return next(a for a in adoptions(central) if a.id == adoption_id)


def take_if_approved(local: Store, central: Store, origin: str) -> bool:
    """At sync: when the director approved this file's adoption, take it as the origin's
    home (the generation check still refuses it if it fell behind)."""
    here = home_of(local)[:200]
    with central.Session() as s:
        approved = s.scalar(select(HallAdoption.id).where(
            HallAdoption.origin == origin, HallAdoption.home == here,
            HallAdoption.status == AdoptionStatus.APPROVED.value).limit(1))
    if approved is None or local.get_setting(HOME_KEY) == home_of(local):
        return False
    adopt_location(local)
    return True
