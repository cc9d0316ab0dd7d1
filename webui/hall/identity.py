"""A table database's identity towards the event database, so that a copy cannot take over.

Each table database has an id made once (``hall_origin``), the place it was made at
(``hall_home``: the SQLite file's device and inode, which a copy does not share; the URL for
other databases) and a sync generation (``hall_sync``: a counter and a random token). The
event database keeps the generation it last saw from each origin (``hall_origins``).

Every sync first claims the next generation: the table stores it as pending, the event
database swaps its generation for it only if it still holds the table's current one
(compare-and-set), then the table makes it current. A copy made after a sync holds an older
generation as soon as either database syncs again, so its claim fails: its history has
diverged from what the event database has, and it is refused with the reason. The copy's
own file is also not the origin's home, so it is refused even if it syncs first. The claim
survives a crash at any step (a pending generation the event database already holds is
taken as done) and two syncs of one database at once (both claim the same pending one).

The repair is explicit: ``adopt_location`` says this file is the table's database now (a
moved or restored original), once the director approved its ``gintray sync --adopt`` at the
hall (``webui.hall.adoption``); the generation check still refuses it if it is behind. A
copy cannot become new tables of the event: it shares the original's hands and request ids
up to the copy.
"""

from __future__ import annotations

import os
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from webui.common.seating import ORIGIN_KEY  # the table app reads it too
from webui.hall.schema import OriginState
from webui.store import Store

HOME_KEY = "hall_home"
SYNC_KEY = "hall_sync"
NEXT_KEY = "hall_sync_next"
_CLAIM_TRIES = 100  # rereads of the next generation while concurrent syncs move it on


class SyncConflict(RuntimeError):
    """The event database holds something else where this table's data belongs."""


class IdentityRefused(SyncConflict):
    """This table database may not sync as the origin it carries (a copy, or behind)."""


@dataclass(frozen=True)
class Generation:
    """One sync generation of a table database: a counter and a random token."""

    number: int
    token: str

    def text(self) -> str:
        return f"{self.number}:{self.token}"

    @staticmethod
    def parse(text: str | None) -> Generation | None:
        if not text or ":" not in text:
            return None
        number, token = text.split(":", 1)
        # ASCII digits only: str.isdigit() also takes "²", which int() then refuses
        return Generation(int(number), token) if number.isascii() and number.isdigit() else None

    def following(self) -> Generation:
        return Generation(self.number + 1, secrets.token_hex(8))


NONE = Generation(0, "")


def home_of(local: Store) -> str:
    """Where this database lives: device and inode of a SQLite file, else its URL."""
    url = local.engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        st = os.stat(url.database)
        return f"sqlite:{st.st_dev}:{st.st_ino}"
    return url.render_as_string(hide_password=True)


def origin_of(local: Store) -> str:
    """This table database's permanent id (made on first sync, kept in its settings)."""
    origin = local.get_setting(ORIGIN_KEY)
    if origin is None:
        local.set_setting(HOME_KEY, home_of(local), only_if_missing=True)
        origin = local.set_setting(ORIGIN_KEY, uuid.uuid4().hex, only_if_missing=True)
    return origin


def check_home(local: Store, origin: str) -> None:
    """Refuse a database that is not where its origin was made (a copied file)."""
    here = home_of(local)
    home = local.set_setting(HOME_KEY, here, only_if_missing=True)  # older databases: now
    if home != here:
        raise IdentityRefused(
            f"this table database is a copy of table database {origin[:8]} (it was made in "
            f"another file), so it cannot sync as that table: the original keeps syncing. "
            f"Nothing was changed. Enter hands played on this copy at the original table (or "
            f"ask the director to); only if this file is now the table's one database "
            f"(moved, or restored after the original was lost), run gintray sync --adopt: it "
            f"asks the director, who approves it at the hall once the original is gone")


def _next_generation(local: Store) -> tuple[Generation, Generation]:
    """This database's generation and the next one it claims, written down before claiming.
    A concurrent sync may claim and clear the next one meanwhile: then read again."""
    for _ in range(_CLAIM_TRIES):
        current = Generation.parse(local.get_setting(SYNC_KEY)) or NONE
        seen_next = local.get_setting(NEXT_KEY)
        pending = Generation.parse(seen_next)
        if pending is not None and pending.number == current.number + 1:
            return current, pending
        # replace only what this sync saw: a concurrent sync's new claim is never overwritten
        # (it could then hold a generation this database no longer knows, read as diverged)
        local.settings.compare_and_set(NEXT_KEY, seen_next, current.following().text())
    raise RuntimeError(f"could not claim a sync generation in {_CLAIM_TRIES} tries: other "
                       f"syncs of this table database kept moving it on; try again")


def claim_generation(local: Store, central: Store, origin: str) -> Generation:
    """Move this origin to its next generation on both sides, or raise ``IdentityRefused``
    when the event database has moved on without this database (a diverged copy)."""
    current, pending = _next_generation(local)
    insert = postgresql.insert if central.engine.dialect.name == "postgresql" else sqlite.insert
    table = OriginState.__table__
    with central.engine.begin() as conn:
        conn.execute(insert(table).values(origin=origin, generation=current.number,
                                          token=current.token).on_conflict_do_nothing())
        moved = conn.execute(
            update(table).where(table.c.origin == origin,
                                table.c.generation == current.number,
                                table.c.token == current.token)
            .values(generation=pending.number, token=pending.token)).rowcount == 1
        there = conn.execute(select(table.c.generation, table.c.token)
                             .where(table.c.origin == origin)).one()
    held = Generation(there.generation, there.token)
    if not moved and held != pending:
        if _ours(local, held):  # a concurrent sync of this database claimed it meanwhile
            return held
        raise IdentityRefused(
            f"this table database has diverged from what the event database holds from it: "
            f"table database {origin[:8]} last synced its generation {there.generation} and "
            f"this one is at generation {current.number}. It is a copy or an older backup of "
            f"a table database that has synced since; nothing was changed and the other one "
            f"keeps syncing. Enter hands played on this one at the table that syncs (or ask "
            f"the director to)")
    old = current.text() if current is not NONE else None
    if local.settings.compare_and_set(SYNC_KEY, old, pending.text()) or _at_least(local, pending):
        local.settings.compare_and_set(NEXT_KEY, pending.text(), None)
    return pending


def _ours(local: Store, held: Generation) -> bool:
    """Whether the event database's generation is this database's own, made meanwhile by a
    concurrent sync of it (a copy never holds the tokens the original made after copying)."""
    return held.text() in (local.get_setting(SYNC_KEY), local.get_setting(NEXT_KEY))


def _at_least(local: Store, generation: Generation) -> bool:
    """Whether a concurrent sync already made ``generation`` (or a later one) current."""
    now = Generation.parse(local.get_setting(SYNC_KEY)) or NONE
    return now.number >= generation.number


def adopt_location(local: Store) -> None:
    """Take this file as the origin's home (the original moved or restored from a backup);
    the generation check still refuses it when it is behind the event database."""
    local.set_setting(HOME_KEY, home_of(local))
