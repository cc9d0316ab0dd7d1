"""A table app belongs to one event at a time: the event database's identity, the check every
sync makes first, and joining another event (``gintray sync --join-event``).

The event database gets a permanent id and a name (``hall_event_id``, ``hall_event_name``:
the database's name unless set) when the hall or a sync first opens it. A table database's
first sync records that identity (``webui.common.membership``); a later sync to another
event's database is refused before anything is written there, with both events named. A
table database that synced before identities were recorded is taken as the event's when the
event database knows its origin, and refused when it does not (it played another event).

Joining is explicit: it copies the database file beside it (SQLite's backup, checked event
for event), lists the old event's tables as archived (they stay in the database, never synced
again), drops the old sync identity (origin, home, generation: they are the old event's) and
records the new event. Nothing is deleted.
"""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from webui.common.membership import (
    ARCHIVED_KEY,
    MEMBER_KEY,
    ArchivedEvent,
    EventIdentity,
    archived_events,
    current_tables,
    held_event,
)
from webui.common.seating import ORIGIN_KEY
from webui.hall.identity import HOME_KEY, NEXT_KEY, SYNC_KEY, IdentityRefused
from webui.hall.schema import OriginState
from webui.store import Store
from webui.store.db import utcnow

EVENT_ID_KEY = "hall_event_id"
EVENT_NAME_KEY = "hall_event_name"
_TRIES = 100


class OtherEvent(IdentityRefused):
    """This table database belongs to another event: join this one first."""


def event_identity(central: Store) -> EventIdentity:
    """The event database's identity (made once, the first time it is asked for)."""
    event_id = central.set_setting(EVENT_ID_KEY, uuid.uuid4().hex, only_if_missing=True)
    name = central.set_setting(EVENT_NAME_KEY, central.engine.url.database or "event",
                               only_if_missing=True)
    return EventIdentity(event_id, name)


def _join_hint(event: EventIdentity) -> str:
    return (f"join event {event.words} first: run gintray sync with the same --from and --to "
            "and --join-event (it archives the old event's tables at this table app, in the "
            "database and in a copy of its file, and deletes nothing)")


def check(local: Store, central: Store) -> EventIdentity:
    """Raise ``OtherEvent`` unless ``local`` belongs to ``central``'s event (recorded on its
    first sync); returns the event."""
    event = event_identity(central)
    for _ in range(_TRIES):
        held = held_event(local)
        if held is not None and held.id != event.id and local.get_setting(SYNC_KEY) is None:
            # recorded by a first sync that never completed: nothing reached that event
            local.settings.compare_and_set(MEMBER_KEY, held.to_text(), event.to_text())
            continue
        if held is not None:
            if held.id != event.id:
                raise OtherEvent(f"this table app holds event {held.words}; {_join_hint(event)}. "
                                 "Nothing was sent to this event")
            return event
        origin = _synced_origin(local)
        if origin is not None and not _knows(central, origin):
            raise OtherEvent(f"this table app synced to another event before (as table "
                             f"database {origin[:8]}), not to event {event.words}; "
                             f"{_join_hint(event)}. Nothing was sent to this event")
        if local.settings.compare_and_set(MEMBER_KEY, None, event.to_text()):
            return event
    raise RuntimeError("the table database's event kept changing; try again")


def _synced_origin(local: Store) -> str | None:
    """The origin this database synced as (None: it never completed a sync: an origin made
    by a first sync that was cut off, or by ``--adopt``, names no event yet)."""
    if local.get_setting(SYNC_KEY) is None:
        return None
    return local.get_setting(ORIGIN_KEY)


def _knows(central: Store, origin: str) -> bool:
    with central.Session() as s:
        return s.scalar(select(OriginState.origin).where(OriginState.origin == origin)) \
            is not None


@dataclass(frozen=True)
class Joined:
    """What ``join`` did: the event joined, the one left (None: none, or it was this one
    already), the tables archived and the copy of the file."""

    event: EventIdentity
    left: EventIdentity | None
    tables: tuple[int, ...] = ()
    archive: str | None = None

    def line(self) -> str:
        if self.left is None:
            return f"this table app is in event {self.event.words}"
        copy = f"; a copy of the database is at {self.archive}" if self.archive else ""
        return (f"left event {self.left.words}: its {len(self.tables)} table(s) are archived "
                f"(kept in this database, never synced to the new event{copy}); joined event "
                f"{self.event.words}")


def join(local: Store, central: Store) -> Joined:
    """Make ``local`` leave the event it holds and belong to ``central``'s (see the module)."""
    event = event_identity(central)
    held = held_event(local)
    origin = _synced_origin(local)
    if held is not None and held.id == event.id:
        return Joined(event, None)
    if held is None and (origin is None or _knows(central, origin)):
        check(local, central)  # never synced to another event: nothing to archive
        return Joined(event, None)
    left = held or EventIdentity(origin or "unknown", "an earlier event")
    tables = tuple(t.id for t in current_tables(local))
    archive = archive_copy(local, left)
    entry = ArchivedEvent(left, local.get_setting(ORIGIN_KEY), tables, archive,
                          utcnow().isoformat())
    for _ in range(_TRIES):  # add the entry; concurrent joins of one database are refused
        before = local.get_setting(ARCHIVED_KEY)
        listed = [a.to_json() for a in archived_events(local)] + [entry.to_json()]
        if local.settings.compare_and_set(ARCHIVED_KEY, before, json.dumps(listed)):
            break
    else:
        raise RuntimeError("the table database's archive list kept changing; try again")
    for key in (ORIGIN_KEY, HOME_KEY, SYNC_KEY, NEXT_KEY):  # the old event's sync identity
        local.settings.compare_and_set(key, local.get_setting(key), None)
    local.settings.compare_and_set(MEMBER_KEY, local.get_setting(MEMBER_KEY), event.to_text())
    return Joined(event, left, tables, archive)


def archive_copy(local: Store, event: EventIdentity) -> str | None:
    """A copy of a SQLite table database beside it, named after the event it leaves (checked
    event for event); None for another kind of database (its tables stay archived in it)."""
    url = local.engine.url
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    source = Path(url.database)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", event.name).strip("-")[:40] or "event"
    stem = f"{source.stem}.event-{slug}-{event.id[:8]}"
    target = source.with_name(f"{stem}.sqlite3")
    n = 1
    while target.exists():
        n += 1
        target = source.with_name(f"{stem}-{n}.sqlite3")
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    query = "SELECT count(*) FROM events"
    try:
        before = src.execute(query).fetchone()[0]
        src.backup(dst)
        if dst.execute(query).fetchone()[0] < before:
            raise RuntimeError(f"the copy {target} lacks events of {source}; nothing was "
                               "changed")
    finally:
        src.close()
        dst.close()
    return str(target)
