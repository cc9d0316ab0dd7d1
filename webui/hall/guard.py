"""The event database is the hall's: a table app must not run on it, and nothing but a
table's own sync may write into the copy of a table that scores on its own database.

``is_event_database(url)`` / ``event_database_refusal(url)`` tell the table app's start
(``gintray serve --database-url ...``) that the URL is an event database, so it can refuse
with a clear message instead of listing the synced tables' copies and their PINs.
``install_mirror_guard`` adds a PostgreSQL trigger that refuses any write into a mirrored
table's events unless the writer is ``gintray sync`` (``SYNC_WRITER``), so even a table app
started there anyway cannot fork a real table's history.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from webui.store.db import database_url, sqlite_engine

#: Setting written into a database when it becomes an event database (by the hall app or as
#: the target of a sync); a table's own database never has it.
EVENT_DATABASE_KEY = "hall_event_database"
#: Session setting with which ``gintray sync`` writes into mirrored tables.
SYNC_WRITER = "gintray.hall_sync"
GUARD = "gintray_hall_mirror_guard"


class EventDatabaseRefused(RuntimeError):
    """A table app was pointed at a tournament hall's event database."""


@dataclass(frozen=True)
class EventDatabaseInfo:
    """What a database is to the hall: an event database or not, how many of its tables are
    copies of tables that score on their own database (mirrored), how many are direct."""

    is_event: bool
    mirrored: int = 0
    tables: int = 0


def _count(conn: Connection, sql: str) -> int:
    return int(conn.execute(text(sql)).scalar() or 0)


def event_database_info(url: str) -> EventDatabaseInfo:
    """Read (never create or change) what ``url`` is to the hall. A SQLite file that does not
    exist is not an event database (and is not created here)."""
    sa_url = make_url(database_url(url))
    sqlite = sa_url.get_backend_name() == "sqlite"
    if sqlite:
        db = sa_url.database or ""
        if not db or db == ":memory:" or not Path(db).exists():
            return EventDatabaseInfo(False)
    engine = sqlite_engine(sa_url) if sqlite else create_engine(sa_url)  # SQLite: as the app
    try:
        with engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
            if "settings" not in names:
                return EventDatabaseInfo(False)
            marked = conn.execute(text("SELECT 1 FROM settings WHERE key = :k"),
                                  {"k": EVENT_DATABASE_KEY}).first() is not None
            mirrored = (_count(conn, "SELECT count(*) FROM hall_table_links")
                        if "hall_table_links" in names else 0)
            origins = (_count(conn, "SELECT count(*) FROM hall_origins")
                       if "hall_origins" in names else 0)
            tables = _count(conn, "SELECT count(*) FROM tables") if "tables" in names else 0
    finally:
        engine.dispose()
    return EventDatabaseInfo(marked or mirrored > 0 or origins > 0, mirrored, tables)


def is_event_database(url: str) -> bool:
    """Whether ``url`` is a tournament hall's event database."""
    return event_database_info(url).is_event


def event_database_refusal(url: str) -> str | None:
    """Why a table app must not start on ``url`` (None when it may): the message to print."""
    info = event_database_info(url)
    if not info.is_event:
        return None
    shown = make_url(database_url(url)).render_as_string(hide_password=True)
    return (f"{shown} is the event database of a tournament hall ({info.mirrored} of its "
            f"{info.tables} table(s) are copies of tables that score on their own database). "
            "A table app must not run on it: it would list those copies with their PINs and "
            "a hand played there would break the real table's sync. Run the table app on its "
            "own database (leave out --database-url) and send it to the event with "
            f"`gintray sync --from sqlite:///instance/gintray.sqlite3 --to {shown} --loop 5`; "
            f"the director's page is `gintray hall --database-url {shown}`.")


def refuse_event_database(url: str) -> None:
    """Raise ``EventDatabaseRefused`` (with the message) when ``url`` is an event database."""
    message = event_database_refusal(url)
    if message:
        raise EventDatabaseRefused(message)


def mark_event_database(engine: Engine) -> None:
    """Record in the database that it is an event database (idempotent)."""
    with engine.begin() as conn:
        found = conn.execute(text("SELECT 1 FROM settings WHERE key = :k"),
                             {"k": EVENT_DATABASE_KEY}).first()
        if found is None:
            try:
                with conn.begin_nested():
                    conn.execute(text("INSERT INTO settings (key, value) VALUES (:k, 'yes')"),
                                 {"k": EVENT_DATABASE_KEY})
            except DBAPIError:  # another process marked it at the same time
                pass


_GUARD_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {GUARD}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tid integer;
BEGIN
  IF TG_OP = 'DELETE' THEN tid := OLD.table_id; ELSE tid := NEW.table_id; END IF;
  IF coalesce(current_setting('{SYNC_WRITER}', true), '') <> 'on'
     AND EXISTS (SELECT 1 FROM hall_table_links WHERE table_id = tid) THEN
    RAISE EXCEPTION 'table % of the event database is the copy of a table that scores '
      'on its own database: only its gintray sync writes here; score at the table itself',
      tid USING HINT = 'a table app must not run on the event database';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
"""


def install_mirror_guard(engine: Engine) -> None:
    """On a PostgreSQL event database, the trigger that refuses writes into a mirrored
    table's events by anything but its sync (safe to run from many processes at once)."""
    if engine.dialect.name != "postgresql":
        return
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": GUARD})
        present = conn.execute(text("SELECT 1 FROM pg_trigger WHERE tgname = :n"),
                               {"n": GUARD}).first()
        if present is None:
            conn.execute(text(_GUARD_FUNCTION))
            conn.execute(text(f"CREATE TRIGGER {GUARD} BEFORE INSERT OR UPDATE OR DELETE "
                              f"ON events FOR EACH ROW EXECUTE FUNCTION {GUARD}()"))


def as_sync_writer(conn: Connection) -> None:
    """Let this transaction write into mirrored tables (``gintray sync`` only)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"SET LOCAL {SYNC_WRITER} = 'on'"))
