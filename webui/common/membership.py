"""Which event a table database belongs to (one at a time), and the tables it archived when it
left an earlier one: read by the table app (its list shows the current event's tables) and
written by the hall's sync (``webui.hall.joining``).

The first sync to an event records the event's identity in the table database
(``hall_event``). Joining another event is an explicit step (``gintray sync --join-event``)
that archives the old event's tables: they stay in the database (nothing is deleted) and in a
copy of its file, listed under ``hall_archived_events``, and they are never synced to the new
event nor listed as the table app's tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webui.store import Store
from webui.store.db import TableRow

MEMBER_KEY = "hall_event"
ARCHIVED_KEY = "hall_archived_events"


@dataclass(frozen=True)
class EventIdentity:
    """An event database's identity: a permanent random id and the name shown."""

    id: str
    name: str

    @property
    def words(self) -> str:
        """``"spring open" (3f2a9c1d)``: how the event is named in messages."""
        return f'"{self.name}" ({self.id[:8]})'

    def to_text(self) -> str:
        return json.dumps({"id": self.id, "name": self.name})

    @staticmethod
    def from_text(text: str | None) -> EventIdentity | None:
        if not text:
            return None
        try:
            data = json.loads(text)
            return EventIdentity(str(data["id"]), str(data["name"]))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class ArchivedEvent:
    """An event this table database left: its identity, the origin it synced as, its tables
    (kept here, never synced again), the copy of the database file made then, and when."""

    event: EventIdentity
    origin: str | None
    tables: tuple[int, ...]
    archive: str | None
    at: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.event.id, "name": self.event.name, "origin": self.origin,
                "tables": list(self.tables), "archive": self.archive, "at": self.at}

    @staticmethod
    def from_json(data: dict[str, Any]) -> ArchivedEvent:
        return ArchivedEvent(EventIdentity(str(data["id"]), str(data["name"])),
                             data.get("origin"), tuple(int(t) for t in data.get("tables", [])),
                             data.get("archive"), str(data.get("at", "")))


def held_event(store: Store) -> EventIdentity | None:
    """The event this table database belongs to (None: it never synced to one since this
    was recorded)."""
    return EventIdentity.from_text(store.get_setting(MEMBER_KEY))


def archived_events(store: Store) -> list[ArchivedEvent]:
    """The events this table database left, oldest first."""
    text = store.get_setting(ARCHIVED_KEY)
    if not text:
        return []
    return [ArchivedEvent.from_json(d) for d in json.loads(text)]


def archived_table_ids(store: Store) -> set[int]:
    """The tables of the events this table database left."""
    return {t for a in archived_events(store) for t in a.tables}


def current_tables(store: Store) -> list[TableRow]:
    """The tables of the event this database belongs to now (every table but the archived
    ones), by id."""
    archived = archived_table_ids(store)
    return [t for t in store.tables() if t.id not in archived]
