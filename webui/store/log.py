"""Appending events and reading table state, safely under concurrent requests.

Writes are optimistic: a command reads the state, decides, and inserts its events with the next
``seq`` numbers; the unique (table, seq) constraint turns a lost race into a retry against the
fresh state. A ``request_id`` makes a retried request (e.g. after a dropped connection or a
killed server) land exactly once. Every command commits before the caller answers.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from webui.store import engine
from webui.store import state as state_mod
from webui.store.db import (
    REVOKED,
    Device,
    EventRow,
    Setting,
    TableRow,
    make_engine,
    make_sessionmaker,
)


class CommandError(Exception):
    """A request the table's state does not allow; ``status`` is the HTTP status to answer."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class DatabaseUnwritable(Exception):
    """The database refuses writes (read-only file or folder, read-only server, full disk)."""


def database_problem(exc: Exception) -> str:
    """What a database error means for the people at the table, with the database's words."""
    detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0][:200]
    if "readonly" in detail.replace("-", "").replace(" ", "").lower():
        return (f"the database is read-only ({detail}): nothing can be recorded until the "
                "director fixes its file or folder permissions")
    return f"the database cannot be used ({detail}); nothing was recorded"


MAX_EVENTS_PER_COMMAND = 100
NewEvent = tuple[str, dict[str, Any]]
Command = Callable[[state_mod.TableState], list[NewEvent]]


@dataclass(frozen=True)
class Actor:
    """Who does something: a name, the device it came from (None for director/camera/system)."""

    name: str
    device_id: int | None = None


@dataclass
class Outcome:
    """What a command did: the appended events (empty for a no-op) and whether it was a retry."""

    events: list[EventRow]
    duplicate: bool = False


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    """The web app's persistence: tables, devices, events, settings."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.Session = make_sessionmaker(self.engine)
        self._lock = threading.RLock()
        self._fold_lock = threading.Lock()
        self._cache: dict[int, tuple[int, state_mod.TableState]] = {}
        self.listeners: list[Callable[[int, int], None]] = []

    # settings -------------------------------------------------------------------------------
    def get_setting(self, key: str) -> str | None:
        with self.Session() as s:
            row = s.get(Setting, key)
            return row.value if row else None

    def set_setting(self, key: str, value: str, only_if_missing: bool = False) -> str:
        """Store a setting; with only_if_missing, keep (and return) an existing value."""
        with self.Session() as s:
            row = s.get(Setting, key)
            if row is not None and only_if_missing:
                return row.value
            if row is None:
                s.add(Setting(key=key, value=value))
            else:
                row.value = value
            try:
                s.commit()
            except IntegrityError:  # another process stored it first
                s.rollback()
                return self.get_setting(key) or value
            return value

    # tables and devices ---------------------------------------------------------------------
    def create_table(self, name: str, settings: dict[str, Any], actor: Actor) -> int:
        """Create a table with a fresh PIN, its settings event and game 1 (raises CommandError
        400 on rules the engine refuses: a table's rules are always ones the engine plays)."""
        try:
            engine.rules_json(settings.get("rules"))
        except engine.ScorerError as exc:
            raise CommandError(exc.code, exc.message, 400) from None
        with self.Session() as s:
            row = TableRow(name=name, pin=new_pin())
            s.add(row)
            s.flush()
            for seq, (kind, payload) in enumerate(
                [("table_created", {"name": name, **settings}),
                 ("game_started", {"game": 1, "dealer": settings.get("first_dealer", "A")})],
                start=1,
            ):
                s.add(EventRow(table_id=row.id, seq=seq, kind=kind, payload=payload,
                               actor=actor.name, device_id=actor.device_id))
            s.commit()
            table_id = row.id
        self._notify(table_id, 2)
        return table_id

    def tables(self) -> list[TableRow]:
        with self.Session() as s:
            return list(s.scalars(select(TableRow).order_by(TableRow.id)))

    def table(self, table_id: int) -> TableRow | None:
        with self.Session() as s:
            return s.get(TableRow, table_id)

    def set_pin(self, table_id: int) -> str:
        with self.Session() as s:
            row = s.get(TableRow, table_id)
            row.pin = new_pin()
            s.commit()
            return row.pin

    def add_device(self, table_id: int, label: str, seat: str) -> tuple[Device, str]:
        """Register a tablet for a table; returns it and its secret token (shown once)."""
        token = secrets.token_urlsafe(32)
        with self.Session() as s:
            device = Device(table_id=table_id, token_hash=hash_token(token), label=label,
                            seat=seat)
            s.add(device)
            s.commit()
            return device, token

    def device_for(self, token: str | None) -> Device | None:
        if not token:
            return None
        with self.Session() as s:
            return s.scalar(select(Device).where(Device.token_hash == hash_token(token)))

    def devices(self, table_id: int, joined_only: bool = False) -> list[Device]:
        """The table's devices, in the order they joined (``joined_only``: not signed out)."""
        with self.Session() as s:
            q = select(Device).where(Device.table_id == table_id).order_by(Device.id)
            if joined_only:
                q = q.where(Device.token_hash.not_like(f"{REVOKED}%"))
            return list(s.scalars(q))

    def revoke_devices(self, table_id: int, device_id: int | None = None) -> int:
        """Sign out one device of the table (or all, ``device_id`` None): its token stops
        working, the row stays (events name it). Returns how many were signed out."""
        with self.Session() as s:
            q = select(Device).where(Device.table_id == table_id,
                                     Device.token_hash.not_like(f"{REVOKED}%"))
            if device_id is not None:
                q = q.where(Device.id == device_id)
            rows = list(s.scalars(q))
            for row in rows:
                row.token_hash = REVOKED + secrets.token_hex(28)
            s.commit()
            return len(rows)

    # events ---------------------------------------------------------------------------------
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
            table = self.table(table_id)
            folded.name = folded.name or (table.name if table else "")
            self._cache[table_id] = (folded.last_seq, folded)
            return folded

    def execute(self, table_id: int, command: Command, actor: Actor,
                request_id: str | None = None) -> Outcome:
        """Run ``command`` against the fresh state and append its events atomically."""
        for _attempt in range(20):
            if request_id:
                done = self._by_request(table_id, request_id)
                if done:
                    return Outcome(done, duplicate=True)
            with self._lock:
                current = self.state(table_id)
                new = command(current)
                if not new:
                    return Outcome([])
                rows = []
                with self.Session() as s:
                    for i, (kind, payload) in enumerate(new):
                        rows.append(EventRow(
                            table_id=table_id, seq=current.last_seq + 1 + i, kind=kind,
                            payload=payload, actor=actor.name, device_id=actor.device_id,
                            request_id=f"{request_id}#{i}" if request_id else None))
                    s.add_all(rows)
                    try:
                        s.commit()
                    except IntegrityError:
                        s.rollback()
                        continue
            self._notify(table_id, rows[-1].seq)
            return Outcome(rows)
        raise CommandError("busy", "the table is busy, try again", 503)

    def _by_request(self, table_id: int, request_id: str) -> list[EventRow]:
        """The events an earlier request with this exact id appended to this table.

        A command's events are consecutive (seq n, n+1, ...) and tagged ``id#0``, ``id#1``...
        An id already used at another table is refused (409), showing nothing of it.
        """
        with self.Session() as s:
            first = s.scalar(select(EventRow).where(EventRow.request_id == f"{request_id}#0"))
            if first is None:
                return []
            if first.table_id != table_id:
                raise CommandError("request_id_taken", "this request_id was used for another "
                                   "table; send the request with a new one", 409)
            q = (select(EventRow)
                 .where(EventRow.table_id == table_id, EventRow.seq >= first.seq)
                 .order_by(EventRow.seq).limit(MAX_EVENTS_PER_COMMAND))
            done = []
            for i, row in enumerate(s.scalars(q)):
                if row.request_id != f"{request_id}#{i}":
                    break
                done.append(row)
            return done

    def check_writable(self) -> None:
        """Raise ``DatabaseUnwritable`` (with the database's reason) unless a write can be
        committed; nothing is kept."""
        from sqlalchemy.exc import DBAPIError

        with self.Session() as s:
            try:
                s.add(Setting(key="_write_check", value=""))
                s.flush()
            except DBAPIError as exc:
                raise DatabaseUnwritable(database_problem(exc)) from exc
            finally:
                s.rollback()

    def _notify(self, table_id: int, seq: int) -> None:
        for listener in list(self.listeners):
            listener(table_id, seq)


def new_pin() -> str:
    """A fresh six-digit table PIN."""
    return f"{secrets.randbelow(10**6):06d}"
