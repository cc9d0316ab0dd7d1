"""Database schema and connection: SQLAlchemy 2, SQLite (WAL) by default, PostgreSQL by URL.

Everything that happens at a table is an appended row of ``events``; nothing is ever updated
in place or deleted, so corrections, undos and reopenings keep the whole history.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from webui.common.durable import fsync_folder


def commit_first(session: Session) -> bool:
    """Commit what ``session`` added; False (rolled back) when a concurrent writer's row won a
    unique key first (a second director, process or sync did the same a moment earlier)."""
    try:
        session.commit()
        return True
    except IntegrityError:
        session.rollback()
        return False


def utcnow() -> datetime:
    """The current time in UTC (timezone-aware)."""
    return datetime.now(UTC)


def as_utc(at: datetime) -> datetime:
    """``at`` as an aware UTC time (SQLite gives back naive UTC times)."""
    return at if at.tzinfo else at.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    """Declarative base of the web app's tables."""


class Setting(Base):
    """Installation-wide settings (session secret, director password hash)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class TableRow(Base):
    """A physical table. Its players, rules and camera live in its events."""

    __tablename__ = "tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    pin: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


REVOKED = "revoked-"  # token_hash of a signed-out device: this, then random hex


class Device(Base):
    """A tablet that joined a table with the table's PIN (token kept only as a hash)."""

    __tablename__ = "devices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(80))
    seat: Mapped[str] = mapped_column(String(8))  # "A", "B" or "both" (one shared tablet)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    @property
    def revoked(self) -> bool:
        """Signed out by the director (or a new PIN): its token hash was replaced by a
        marker no token hashes to, so the tablet must join again."""
        return self.token_hash.startswith(REVOKED)


class SeatHolder(Base):
    """Which tablet holds a player's seat at a table: one row per (table, seat), so two
    devices can never hold the same seat (the primary key decides a race)."""

    __tablename__ = "seat_holders"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(8), primary_key=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id"))


class SeatRequest(Base):
    """A tablet that asked, with the PIN, to take a player's seat (its own, after it lost its
    cookie): it holds the seat only once the table screen or a seated tablet allows it.
    ``token_hash``: the hash of the token the asking tablet will hold (it keeps the token in
    its session meanwhile). ``holder_id``: the device the seat was held by when it asked;
    ``asker_id``: the device the asking browser had joined this table with (for another seat),
    signed out when it takes this one, and never one that may answer its own request.
    ``status``: pending, allowed, refused or replaced (a newer request for the seat)."""

    __tablename__ = "seat_requests"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    seat: Mapped[str] = mapped_column(String(8))
    label: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    holder_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    asker_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # its device, if any
    status: Mapped[str] = mapped_column(String(12), default="pending")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decided_by: Mapped[str | None] = mapped_column(String(80), nullable=True)


class AttemptFailure(Base):
    """Wrong PINs (or director passwords) from one address: ``scope`` is ``pin:<table>`` or
    ``director``. Kept in the database so a restart forgets nothing."""

    __tablename__ = "attempt_failures"
    scope: Mapped[str] = mapped_column(String(32), primary_key=True)
    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_failed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EventRow(Base):
    """One appended change: who, which device, when, what. ``seq`` orders a table's events."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    actor: Mapped[str] = mapped_column(String(80))
    device_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    request_id: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    def to_json(self) -> dict[str, Any]:
        """The event as shown in the history and the JSON export."""
        return {"seq": self.seq, "kind": self.kind, "payload": self.payload, "actor": self.actor,
                "device_id": self.device_id, "at": self.created_at.isoformat()}


# How every SQLite connection of the apps is opened (``sqlite_engine`` registers it on each
# engine): WAL, and ``synchronous=FULL`` so that a commit is on the disk (the WAL synced)
# before the tablet is told it succeeded: a pulled plug loses no acknowledged command
# (tests/test_power_cut.py; in WAL mode NORMAL would only sync at checkpoints).
SQLITE_PRAGMAS = (
    ("journal_mode", "wal"),
    ("synchronous", "full"),
    ("foreign_keys", "1"),
    ("busy_timeout", "10000"),
)


def sqlite_connection_setup(dbapi_connection: Any, _record: Any) -> None:
    """Open a new SQLite connection the one way: ``SQLITE_PRAGMAS``."""
    cursor = dbapi_connection.cursor()
    try:
        for name, value in SQLITE_PRAGMAS:
            cursor.execute(f"PRAGMA {name}={value}")
    finally:
        cursor.close()


def sqlite_engine(url: Any) -> Engine:
    """An engine on a SQLite URL whose every connection is set up by
    ``sqlite_connection_setup``; nothing is created in the file."""
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10},
                           json_serializer=lambda o: json.dumps(o, sort_keys=True))
    event.listen(engine, "connect", sqlite_connection_setup)
    return engine


def database_url(url: str) -> str:
    """A SQLAlchemy URL for ``url``: plain ``postgresql://`` uses psycopg 3 (the driver the
    project installs); other URLs are returned unchanged."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


# A table's network can drop in the middle of a transaction. The server would keep that dead
# session open, holding its row locks, until TCP notices (hours), and the table's next upload
# of the same events would wait on those locks for as long. So: TCP keepalives (both ends)
# find a dead peer within ~25 s, the server ends a session idle inside a transaction after
# 30 s, and a statement waiting on a lock gives up after 15 s (the sync loop tries again). A
# server that does not answer at all (packets silently dropped) is given up after 5 s, so a
# page says "database unreachable" rather than hanging.
POSTGRES_CONNECT_ARGS = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "options": (
        "-c idle_in_transaction_session_timeout=30000 -c lock_timeout=15000"
        " -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"
    ),
}


def make_engine(url: str) -> Engine:
    """Create the engine for ``url``; SQLite gets WAL, full sync and a busy timeout."""
    if url.startswith("sqlite"):
        engine = sqlite_engine(url)
    else:
        engine = create_engine(database_url(url), pool_pre_ping=True,
                               connect_args=POSTGRES_CONNECT_ARGS)
    Base.metadata.create_all(engine)
    if engine.dialect.name == "sqlite":  # a new database file's name lasts a power cut
        with engine.connect() as connection:  # its file as SQLite opened it (a URI too)
            database = connection.exec_driver_sql("PRAGMA database_list").fetchone()[2]
        if database:  # "" for an in-memory database
            fsync_folder(Path(database).parent)
    return engine


def make_sessionmaker(engine: Engine) -> sessionmaker:
    """A session factory whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)
