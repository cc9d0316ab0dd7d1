"""The hall's own tables in the event database, beside the web app's (``webui.store.db``).

They are kept in a separate SQLAlchemy metadata so the table app's schema stays untouched:
links from a table's local database to its copy in the event database, the director's
requests waiting for a table to apply them, blind draws and partnership matches.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Integer, String, Text, UniqueConstraint
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from webui.store.db import utcnow


class HallBase(DeclarativeBase):
    """Declarative base of the hall's tables."""


class TableLink(HallBase):
    """A table scoring on its own database (``origin``, its local table id), mirrored as
    ``table_id`` in the event database. Unique both ways, so a second sync cannot fork it."""

    __tablename__ = "hall_table_links"
    __table_args__ = (UniqueConstraint("origin", "origin_table_id", name="uq_hall_link_origin"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    origin: Mapped[str] = mapped_column(String(40))
    origin_table_id: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[int] = mapped_column(Integer, unique=True)
    linked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class OriginState(HallBase):
    """The sync generation the event database last took from a table database (its origin):
    a table database syncs only from this generation on (``webui.hall.identity``)."""

    __tablename__ = "hall_origins"
    origin: Mapped[str] = mapped_column(String(40), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, default=0)
    token: Mapped[str] = mapped_column(String(40), default="")


class OriginSeen(HallBase):
    """A table database's last good sync as a whole (``origin``), from where (its ``home``):
    a station with no table yet is alive too, so a copy's adoption is refused while it
    syncs (``webui.hall.adoption``)."""

    __tablename__ = "hall_origin_seen"
    origin: Mapped[str] = mapped_column(String(40), primary_key=True)
    home: Mapped[str] = mapped_column(String(200))
    synced_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SyncRefusal(HallBase):
    """A table database's sync the event database refused (a copy or a diverged history),
    shown to the director: which origin, from where, why, when."""

    __tablename__ = "hall_sync_refusals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    origin: Mapped[str] = mapped_column(String(40), index=True)
    home: Mapped[str] = mapped_column(String(200))
    message: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableSync(HallBase):
    """A mirrored table's sync health: its last good sync (and the table database's last
    event then), and the last error of a sync of it (cleared by the next good one)."""

    __tablename__ = "hall_table_syncs"
    table_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    local_seq: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class DirectorRequest(HallBase):
    """A director's correction for a mirrored table: the table's sync applies it to the
    table's own database (as an event with this ``request_id``) and uploads the result."""

    __tablename__ = "hall_director_requests"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[str] = mapped_column(String(48), unique=True)
    table_id: Mapped[int] = mapped_column(Integer, index=True)
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    actor: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class DirectorReply(HallBase):
    """What became of a director's request at the table: applied (with its seq) or refused."""

    __tablename__ = "hall_director_replies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[str] = mapped_column(String(48), unique=True)
    status: Mapped[str] = mapped_column(String(12))
    message: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RequestSlot(HallBase):
    """The one waiting director request of a mirrored table's hand (or game): stored in the
    transaction that stores the request, removed in the one that stores the table's reply,
    so two directors at the same instant cannot both send one (``slot``: ``correct:1:3``,
    ``reopen:2``)."""

    __tablename__ = "hall_request_slots"
    table_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slot: Mapped[str] = mapped_column(String(40), primary_key=True)
    request_id: Mapped[str] = mapped_column(String(48), unique=True)


class Draw(HallBase):
    """A blind draw for the first match (000 singles rule 1): who, the seed, the pairs."""

    __tablename__ = "hall_draws"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # "singles" or "partnership"
    seed: Mapped[str] = mapped_column(String(64))
    entrants: Mapped[list[Any]] = mapped_column(JSON)
    pairs: Mapped[list[Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Partnership(HallBase):
    """A partnership match: two teams of two, playing on two boards (two table-app tables
    where seat A is a member of the first team and seat B a member of the second)."""

    __tablename__ = "hall_partnerships"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    teams: Mapped[dict[str, Any]] = mapped_column(JSON)  # {"A": {"name", "members"}, "B": ...}
    boards: Mapped[list[int]] = mapped_column(JSON)  # two table ids
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class DrawSeating(HallBase):
    """The tables opened for a draw: one row per draw (unique), claimed before the tables are
    made, so two directors seating the same draw open its tables once."""

    __tablename__ = "hall_draw_seatings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    draw_id: Mapped[int] = mapped_column(Integer, unique=True)
    table_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallRound(HallBase):
    """A round of the event on the clock: its number (unique, so two directors starting it
    at once start it once), its length, when it started and by whom, and its tables (empty:
    every table of the event)."""

    __tablename__ = "hall_rounds"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, unique=True)
    minutes: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_by: Mapped[str] = mapped_column(String(80), default="director")
    table_ids: Mapped[list[int]] = mapped_column(JSON, default=list)


class HallPlayer(HallBase):
    """A player of the event with a stable id: the typed name's identity (``player_key``,
    unique) and the name shown. Results follow the id, not the typed name."""

    __tablename__ = "hall_players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerMerge(HallBase):
    """One player id merged into another (one person whose name was typed two ways the
    name's identity cannot join, "Frank" and "Franck"): results of ``from_id`` count for
    ``into_id``. A merged id is merged once (unique)."""

    __tablename__ = "hall_player_merges"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_id: Mapped[int] = mapped_column(Integer, unique=True)
    into_id: Mapped[int] = mapped_column(Integer, index=True)
    director: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallSeat(HallBase):
    """Who sits in a seat of a table the hall opened (from a pairing): the player's id, so a
    name typed otherwise at the table is still that player."""

    __tablename__ = "hall_seats"
    __table_args__ = (UniqueConstraint("table_id", "seat", name="uq_hall_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(Integer, index=True)
    seat: Mapped[str] = mapped_column(String(1))
    player_id: Mapped[int] = mapped_column(Integer)


class HallPairing(HallBase):
    """A next-round pairing: proposed from the standings, approved by a director (once:
    then its tables are opened), or replaced by a newer proposal."""

    __tablename__ = "hall_pairings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round: Mapped[int] = mapped_column(Integer, index=True)
    status: Mapped[str] = mapped_column(String(12), default="proposed")
    pairs: Mapped[list[Any]] = mapped_column(JSON)
    bye: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    proposed_by: Mapped[str] = mapped_column(String(80))
    approved_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    table_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallBracket(HallBase):
    """The bracket of a knockout pairing (one per pairing of a knockout round): the round's
    stage (1 = the knockout's first round) and its places in bracket order, each
    ``{"A": player, "B": player or None}`` (None: a bye)."""

    __tablename__ = "hall_brackets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pairing_id: Mapped[int] = mapped_column(Integer, unique=True)
    stage: Mapped[int] = mapped_column(Integer)
    slots: Mapped[list[Any]] = mapped_column(JSON)


class HallDirector(HallBase):
    """A named director account (made with ``gintray hall --add-director NAME``): the name
    shown in the audit, its identity (``player_key`` of the name, unique) and password hash."""

    __tablename__ = "hall_directors"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(80), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuditEntry(HallBase):
    """One thing a director did (a correction, reopening, adjustment, penalty, draw, pairing,
    round...), by name, with the table (if any) and what was done."""

    __tablename__ = "hall_audit"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    director: Mapped[str] = mapped_column(String(80), index=True)
    action: Mapped[str] = mapped_column(String(20))
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    detail: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Adjustment(HallBase):
    """A director's points adjustment or penalty to a player's standing (signed points: a
    penalty is negative), with the reason and who gave it."""

    __tablename__ = "hall_adjustments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, index=True)
    kind: Mapped[str] = mapped_column(String(12))  # "adjustment" or "penalty"
    points: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    director: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallStation(HallBase):
    """A table app that syncs to the event (one table database, its ``origin``), numbered in
    the order it first synced: the hall seats round tables at stations by this number."""

    __tablename__ = "hall_stations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, unique=True)
    origin: Mapped[str] = mapped_column(String(40), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallTableSeating(HallBase):
    """One table of a seated round (from the draw or an approved pairing): its number, both
    players (``{"A": {"id", "name"}, "B": ...}``), the station (table app) it is pushed to, or
    none for a table the hall opened on the event database; ``table_id`` is the event
    database's table once known (a station's: when its sync opened and uploaded it).
    ``status``: ``seated`` or ``withdrawn`` (the director undid it before play)."""

    __tablename__ = "hall_table_seatings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(40), unique=True)
    round: Mapped[int] = mapped_column(Integer, index=True)
    table: Mapped[int] = mapped_column(Integer)
    pairing_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    station: Mapped[int | None] = mapped_column(Integer, nullable=True)
    players: Mapped[dict[str, Any]] = mapped_column(JSON)
    rules: Mapped[Any] = mapped_column(JSON)
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(12), default="seated")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallWithdrawalTold(HallBase):
    """A withdrawn seating (its pairing undone) told to its table app by the station's sync:
    when, and how many hands the table app had recorded at its table by then (kept, not
    counted, and said so)."""

    __tablename__ = "hall_withdrawals_told"
    token: Mapped[str] = mapped_column(String(40), primary_key=True)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    told_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallAward(HallBase):
    """A match result the hall gives without a game (``awards``): a bye, or a forfeit won or
    lost at a table (``table_id``) where a player did not show; one per player and round."""

    __tablename__ = "hall_awards"
    __table_args__ = (UniqueConstraint("round", "player_id", name="uq_hall_award"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(Integer, index=True)
    kind: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    director: Mapped[str] = mapped_column(String(80), default="director")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallEntry(HallBase):
    """A player entered in the event (``entries``): from which round, and withdrawn (after
    which round) or not. Entered players are paired; withdrawn ones keep their results."""

    __tablename__ = "hall_entries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, unique=True)
    from_round: Mapped[int] = mapped_column(Integer, default=1)
    withdrawn_after: Mapped[int | None] = mapped_column(Integer, nullable=True)
    director: Mapped[str] = mapped_column(String(80), default="director")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HallAdoption(HallBase):
    """A table database asking to be taken as its table's database (``gintray sync --adopt``:
    moved, or restored after the original was lost), with its history per local table; the
    director approves or refuses it at the hall (``adoption``)."""

    __tablename__ = "hall_adoptions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    origin: Mapped[str] = mapped_column(String(40), index=True)
    home: Mapped[str] = mapped_column(String(200))
    history: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(12), default="asked")
    director: Mapped[str | None] = mapped_column(String(80), nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)



class HallTableDeck(HallBase):
    """A deck profile taught at a synced table app's table (``origin``, its local table id;
    the event database's ``table_id``), brought up by its station's sync: the profile's file
    name and text, its checksum and cards, when it was taught (``webui.hall.decks``)."""

    __tablename__ = "hall_table_decks"
    __table_args__ = (UniqueConstraint("origin", "origin_table_id", name="uq_hall_table_deck"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    origin: Mapped[str] = mapped_column(String(40))
    origin_table_id: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80))
    checksum: Mapped[str] = mapped_column(String(64))
    cards: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    taught_at: Mapped[str] = mapped_column(String(40))


class HallDeckHeld(HallBase):
    """The event deck a station's table app holds (the checksum its sync delivered, when)."""

    __tablename__ = "hall_deck_held"
    origin: Mapped[str] = mapped_column(String(40), primary_key=True)
    checksum: Mapped[str] = mapped_column(String(64))
    held_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

def ensure_schema(engine: Engine) -> None:
    """Create the hall's tables if they are missing (safe to call from many processes)."""
    from sqlalchemy.exc import IntegrityError, ProgrammingError

    try:
        HallBase.metadata.create_all(engine)
    except (IntegrityError, ProgrammingError):  # another process created them at the same time
        HallBase.metadata.create_all(engine)
