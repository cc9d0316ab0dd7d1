"""Appending events and reading table state, safely under concurrent requests.

Writes are optimistic: a command reads the state, decides, and inserts its events with the next
``seq`` numbers; the unique (table, seq) constraint turns a lost race into a retry against the
fresh state. A ``request_id`` makes a retried request (e.g. after a dropped connection or a
killed server) land exactly once. Every command commits before the caller answers.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import sessionmaker

from webui.common.refusal import Refusal
from webui.store import state as state_mod
from webui.store.db import EventRow, TableRow, commit_first

MAX_EVENTS_PER_COMMAND = 100
NewEvent = tuple[str, dict[str, Any]]
Command = Callable[[state_mod.TableState], list[NewEvent]]


@dataclass(frozen=True)
class Actor:
    """Who does something: a name, the device it came from (None for director/camera/system)."""

    name: str
    device_id: int | None = None


@dataclass(frozen=True)
class RequestKey:
    """A client's id for one request (``id``: letters, digits, - and _) and a fingerprint of
    what it asked (``body``): a retry carries both; the same id sent with another body is
    another request, refused rather than answered as a retry."""

    id: str
    body: str = ""

    @property
    def stored(self) -> str:
        """The key as the events' ``request_id`` holds it (``id.body``, then ``#n``)."""
        return f"{self.id}.{self.body}" if self.body else self.id


@dataclass
class CommandResult:
    """What a command did: the appended events (empty for a no-op) and whether it was a retry."""

    events: list[EventRow]
    duplicate: bool = False


class EventLog:
    """The ``events`` rows: appended by commands, read back, folded into a table's state.
    ``listeners`` are called with ``(table_id, seq)`` after each append."""

    def __init__(self, session: sessionmaker) -> None:
        self.Session = session
        self._lock = threading.RLock()
        self._fold_lock = threading.Lock()
        self._cache: dict[int, tuple[int, state_mod.TableState]] = {}
        self.listeners: list[Callable[[int, int], None]] = []

    def events(self, table_id: int, after: int = 0) -> list[EventRow]:
        with self.Session() as s:
            q = (select(EventRow).where(EventRow.table_id == table_id, EventRow.seq > after)
                 .order_by(EventRow.seq))
            return list(s.scalars(q))

    def event(self, table_id: int, seq: int) -> EventRow | None:
        """One event of a table by its number."""
        with self.Session() as s:
            return s.scalar(select(EventRow).where(EventRow.table_id == table_id,
                                                   EventRow.seq == seq))

    def last_seq(self, table_id: int) -> int:
        with self.Session() as s:
            q = select(func.max(EventRow.seq)).where(EventRow.table_id == table_id)
            return s.scalar(q) or 0

    def state(self, table_id: int) -> state_mod.TableState:
        """The table's state folded from all its events (cached until a new event lands)."""
        last = self.last_seq(table_id)
        with self._fold_lock:
            cached = self._cache.get(table_id)
            if cached and cached[0] == last:
                return cached[1]
            folded = None
            if cached and cached[0] < last:
                new = self.events(table_id, after=cached[0])
                if not state_mod.has_undo(new):
                    folded = copy.deepcopy(cached[1])  # readers may still hold the old one
                    state_mod.advance(folded, new)
            if folded is None:
                folded = state_mod.fold(table_id, self.events(table_id))
            with self.Session() as s:
                table = s.get(TableRow, table_id)
            folded.name = folded.name or (table.name if table else "")
            self._cache[table_id] = (folded.last_seq, folded)
            return folded

    def execute(self, table_id: int, command: Command, actor: Actor,
                request_id: RequestKey | str | None = None,
                kind: str | None = None) -> CommandResult:
        """Run ``command`` against the fresh state and append its events atomically.

        ``request_id``: a retry of a request that landed answers its events (``duplicate``);
        ``kind``: the kind of event the command appends first, so an id reused for another
        kind of request is refused (409) rather than answered as a duplicate."""
        key = RequestKey(request_id) if isinstance(request_id, str) else request_id
        for _attempt in range(20):
            if key:
                done = self._by_request(table_id, key, actor, kind)
                if done:
                    return CommandResult(done, duplicate=True)
            with self._lock:
                current = self.state(table_id)
                new = command(current)
                if not new:
                    return CommandResult([])
                rows = []
                with self.Session() as s:
                    for i, (kind, payload) in enumerate(new):
                        rows.append(EventRow(
                            table_id=table_id, seq=current.last_seq + 1 + i, kind=kind,
                            payload=payload, actor=actor.name, device_id=actor.device_id,
                            request_id=f"{key.stored}#{i}" if key else None))
                    s.add_all(rows)
                    if not commit_first(s):
                        continue
            self.notify(table_id, rows[-1].seq)
            return CommandResult(rows)
        raise Refusal("the table is busy, try again", code="busy", status=503)

    def _by_request(self, table_id: int, key: RequestKey, actor: Actor,
                    kind: str | None) -> list[EventRow]:
        """The events an earlier request with this exact id appended to this table.

        A command's events are consecutive (seq n, n+1, ...) and tagged ``id#0``, ``id#1``...
        An id already used at another table, by another device (or actor), or for another
        kind of request is refused (409), showing nothing of it: only the very request
        retried is answered as done.
        """
        with self.Session() as s:
            first = s.scalar(select(EventRow).where(EventRow.request_id == f"{key.stored}#0"))
            if first is None:  # the id with another body (or none) is another request
                first = s.scalar(select(EventRow).where(
                    or_(EventRow.request_id == f"{key.id}#0",
                        and_(EventRow.request_id >= f"{key.id}.",
                             EventRow.request_id < f"{key.id}/"))).limit(1))
                if first is None:
                    return []
                if first.table_id == table_id:
                    raise Refusal("this request_id was used for "
                                  "another request; nothing was done: send it with a "
                                  "new one", code="request_id_reused", status=409)
            if first.table_id != table_id:
                raise Refusal("this request_id was used for another "
                              "table; send the request with a new one",
                              code="request_id_taken", status=409)
            if (first.device_id != actor.device_id or first.actor != actor.name
                    or (kind is not None and first.kind != kind)):
                raise Refusal("this request_id was used for another "
                              "request (another device, or another kind of change); "
                              "nothing was done: send the request with a new one",
                              code="request_id_reused", status=409)
            q = (select(EventRow)
                 .where(EventRow.table_id == table_id, EventRow.seq >= first.seq)
                 .order_by(EventRow.seq).limit(MAX_EVENTS_PER_COMMAND))
            done = []
            for i, row in enumerate(s.scalars(q)):
                if row.request_id != f"{key.stored}#{i}":
                    break
                done.append(row)
            return done

    def notify(self, table_id: int, seq: int) -> None:
        for listener in list(self.listeners):
            listener(table_id, seq)
