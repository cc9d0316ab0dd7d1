"""Sync: a table's local database -> the event's database, idempotently, in both directions.

A table always scores on its own database (SQLite by default). ``sync_once`` copies its events
up to the event database, where every table of the event is mirrored with the same ``seq``
numbers (events refer to each other by seq: confirmations name the revision they confirm,
undos their target). Upload is insert-if-absent on the web app's unique (table, seq)
constraint, and every uploaded row is read back and compared, so a sync that is cut off,
repeated or run twice at once neither loses nor doubles an event, and a stream that diverged
is reported, never overwritten.

The event database never writes into a mirrored table's stream itself: a director's
correction is stored as a request (``hall_director_requests``); the table's next sync runs it
against the table's own state with the request's id (so it lands exactly once) and uploads
the result with everything else. The event's deck profile goes down the same way, and the
decks taught at the table come up (``webui.hall.decks``).
"""

from __future__ import annotations

import secrets
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError, ProgrammingError

from webui.common.membership import current_tables
from webui.common.proposal_form import parse_proposal
from webui.common.refusal import Refusal
from webui.common.seating import (
    ORIGIN_KEY,
    mark_forfeit,
    mark_withdrawn,
    open_seated_table,
    seated_tables,
)
from webui.common.validate import plain_text, whole_number
from webui.hall import adoption, awards, decks, joining, stations
from webui.hall.actions import at_revision, request_words
from webui.hall.guard import as_sync_writer, install_mirror_guard, mark_event_database
from webui.hall.health import as_utc, record_sync, record_sync_error
from webui.hall.identity import (
    IdentityRefused,
    SyncConflict,
    check_home,
    claim_generation,
    home_of,
    origin_of,
)
from webui.hall.schema import (
    AuditEntry,
    DirectorReply,
    DirectorRequest,
    RequestSlot,
    SyncRefusal,
    TableLink,
    ensure_schema,
)
from webui.store import Actor, Store, commands
from webui.store.db import EventRow, TableRow, commit_first, database_url

BATCH = 500
DIRECTOR = Actor("director")


@dataclass
class SyncReport:
    """What one sync pass did."""

    tables: int = 0
    uploaded: int = 0
    present: int = 0
    applied: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.tables} table(s): {self.uploaded} event(s) uploaded, {self.present} "
                f"already there; director requests applied {len(self.applied)}, refused "
                f"{len(self.refused)}")


def open_store(url: str) -> Store:
    """The web app's Store on ``url`` (plain postgresql:// URLs use psycopg 3), with the hall's
    tables created; retried once when another process creates the schema at the same time."""
    url = database_url(url)
    try:
        store = Store(url)
    except (IntegrityError, ProgrammingError):  # tables created by another process meanwhile
        store = Store(url)
    ensure_schema(store.engine)
    return store


_EVENT_DATABASES: weakref.WeakSet[Engine] = weakref.WeakSet()


def prepare_event_database(central: Store) -> None:
    """Mark ``central`` as an event database and install the mirror guard (once per engine
    in this process; ``webui.hall.guard``)."""
    if central.engine in _EVENT_DATABASES:
        return
    mark_event_database(central.engine)
    install_mirror_guard(central.engine)
    _EVENT_DATABASES.add(central.engine)


def link_table(central: Store, origin: str, local_table: TableRow) -> int:
    """The event database's id of a local table, creating its mirror on first sync."""
    with central.Session() as s:
        q = select(TableLink.table_id).where(TableLink.origin == origin,
                                             TableLink.origin_table_id == local_table.id)
        found = s.scalar(q)
        if found is not None:
            return found
        # not the table's real PIN: the copy is not joined here, and the PIN stays at the table
        row = TableRow(name=local_table.name, pin=secrets.token_hex(6))
        s.add(row)
        s.flush()
        s.add(TableLink(origin=origin, origin_table_id=local_table.id, table_id=row.id))
        if commit_first(s):
            return row.id
        found = s.scalar(q)  # a concurrent sync of the same table linked it first
        if found is None:
            raise RuntimeError(f"table {local_table.id} of {origin} could not be linked")
        return found


def linked_tables(central: Store) -> dict[int, TableLink]:
    """Mirrored tables of the event database by their id there."""
    with central.Session() as s:
        return {link.table_id: link for link in s.scalars(select(TableLink))}


def _insert(engine: Engine) -> Callable[[Any], Any]:
    dialect = engine.dialect.name
    if dialect == "postgresql":
        return postgresql.insert
    if dialect == "sqlite":
        return sqlite.insert
    raise ValueError(f"sync supports PostgreSQL and SQLite event databases, not {dialect}")


def _same(a: EventRow, b: EventRow) -> bool:
    return (a.kind, a.payload, a.actor) == (b.kind, b.payload, b.actor)


def upload(local: Store, local_id: int, central: Store, central_id: int) -> tuple[int, int]:
    """Copy the table's events the event database lacks; returns (uploaded, already there)."""
    top = central.last_seq(central_id)
    if top:
        mine = local.events(local_id, after=top - 1)
        theirs = central.events(central_id, after=top - 1)
        if not mine or not theirs or not _same(mine[0], theirs[0]):
            raise SyncConflict(f"table {central_id} of the event database has event {top} that "
                               f"this table's database does not have; nothing was changed")
    insert = _insert(central.engine)
    uploaded = present = 0
    pending = local.events(local_id, after=top)
    for start in range(0, len(pending), BATCH):
        batch = pending[start:start + BATCH]
        rows = [{"table_id": central_id, "seq": e.seq, "kind": e.kind, "payload": e.payload,
                 "actor": e.actor, "device_id": e.device_id, "request_id": e.request_id,
                 "created_at": as_utc(e.created_at)} for e in batch]
        before = _seqs(central, central_id, batch[0].seq, batch[-1].seq)
        with central.engine.begin() as conn:
            as_sync_writer(conn)
            conn.execute(insert(EventRow.__table__).on_conflict_do_nothing(), rows)
        stored = {e.seq: e for e in central.events(central_id, after=batch[0].seq - 1)
                  if e.seq <= batch[-1].seq}
        for e in batch:
            there = stored.get(e.seq)
            if there is None or not _same(e, there):
                raise SyncConflict(f"event {e.seq} of table {central_id} could not be stored "
                                   "as recorded at the table (kept locally; fix and sync again)")
        present += len(before)
        uploaded += len(batch) - len(before)
    return uploaded, present


def _seqs(central: Store, table_id: int, first: int, last: int) -> set[int]:
    with central.Session() as s:
        q = select(EventRow.seq).where(EventRow.table_id == table_id, EventRow.seq >= first,
                                       EventRow.seq <= last)
        return set(s.scalars(q))


def pending_requests(central: Store, central_id: int) -> list[DirectorRequest]:
    """Director requests for a mirrored table that the table has not answered yet."""
    with central.Session() as s:
        answered = select(DirectorReply.request_id)
        q = (select(DirectorRequest).where(DirectorRequest.table_id == central_id,
                                           DirectorRequest.request_id.not_in(answered))
             .order_by(DirectorRequest.id))
        return list(s.scalars(q))


def request_command(req: DirectorRequest) -> commands.Command:
    """The table-app command a director request stands for."""
    p = req.payload
    if req.kind == "correct":
        game, hand = whole_number(p.get("game"), "game"), whole_number(p.get("hand"), "hand")
        command = commands.propose(game, hand, parse_proposal(p["proposal"]),
                                   source="director", director=True)
        if p.get("revision") is None:  # a request stored before revisions were sent
            return command
        return at_revision(command, game, hand, whole_number(p["revision"], "revision"))
    if req.kind == "reopen":
        return commands.reopen(whole_number(p.get("game"), "game"),
                               plain_text(p.get("reason"), "reason", commands.REOPEN_REASON_MAX))
    raise Refusal(f"unknown director request {req.kind!r}", code="bad_request", status=400)


def apply_requests(local: Store, local_id: int, central: Store, central_id: int,
                   report: SyncReport) -> None:
    """Run the director's pending requests at the table (exactly once each) and answer them."""
    for req in pending_requests(central, central_id):
        actor = Actor(req.actor or DIRECTOR.name)
        try:
            outcome = local.execute(local_id, request_command(req), actor,
                                    request_id=req.request_id)
        except Refusal as exc:
            status, message = "refused", exc.message
            report.refused.append(req.request_id)
        else:
            seqs = [e.seq for e in outcome.events]
            status = "applied"
            message = f"event {seqs[0]}" if seqs else "nothing to change"
            report.applied.append(req.request_id)
        with central.Session() as s:  # the answer, its audit, the hand's slot freed: at once
            s.add(DirectorReply(request_id=req.request_id, status=status, message=message))
            words = request_words(req.kind, req.payload)
            s.add(AuditEntry(director=(req.actor or DIRECTOR.name)[:80], action=req.kind,
                             table_id=central_id,
                             detail=f"the table {status} it: {words} ({req.request_id}): "
                                    f"{message}"[:2000]))
            s.execute(delete(RequestSlot).where(RequestSlot.request_id == req.request_id))
            commit_first(s)  # False: answered by a concurrent sync of the same table


def open_seatings(local: Store, central: Store, station: int) -> dict[int, str]:
    """Open at the table app the round tables the hall seated at this ``station`` (once each,
    with the players' names: ``webui.common.seating``); returns their seatings' tokens by local
    table id, for the tables the event database does not know yet."""
    out: dict[int, str] = {}
    for pushed in stations.pending(central, station):
        tables = local.tables()
        like = local.state(tables[-1].id) if tables else None
        local_id = open_seated_table(local, pushed.seat.seating, pushed.rules, like, DIRECTOR)
        out[local_id] = pushed.seat.token
    return out


def tell_withdrawals(local: Store, central: Store, station: int) -> None:
    """Tell the table app the seatings the hall withdrew (a pairing undone): its screen stops
    sending players there. Hands it recorded there by then are kept and said so (audited
    once), never silently dropped."""
    gone = stations.withdrawn_at(central, station)
    if not gone:
        return
    mark_withdrawn(local, {w.token for w in gone})
    opened = seated_tables(local)
    for w in gone:
        local_id = opened.get(w.token)
        hands = 0 if local_id is None else sum(
            len(g.confirmed_hands) for g in local.state(local_id).games)
        if stations.told(central, w.token, hands) and hands:
            with central.Session() as s:
                s.add(AuditEntry(
                    director=DIRECTOR.name, action="undo", table_id=w.table_id,
                    detail=f"table app {station} had recorded {hands} hand(s) at "
                           f"{w.seating.table_name} ({w.a.name} v {w.b.name}) before it "
                           "learned that its pairing was undone: kept at the table and in "
                           "the event database, not counted"))
                s.commit()


def sync_once(local: Store, central: Store) -> SyncReport:
    """One pass over every table of the local database: director requests down, events up.
    A copied or diverged table database is refused first (``IdentityRefused``)."""
    prepare_event_database(central)
    try:
        joining.check(local, central)  # another event's table app sends nothing here
        origin = origin_of(local)
        adoption.take_if_approved(local, central, origin)
        check_home(local, origin)
        claim_generation(local, central, origin)
    except IdentityRefused as exc:
        with central.Session() as s:  # the director sees it on the hall's page
            s.add(SyncRefusal(origin=(local.get_setting(ORIGIN_KEY) or "none")[:40],
                              home=home_of(local)[:200], message=str(exc)))
            s.commit()
        raise
    adoption.seen(central, origin, home_of(local))  # alive, with or without tables
    station = stations.register(central, origin)
    decks.deliver(local, central, origin)  # the event's deck, when the director pushed one
    seated = open_seatings(local, central, station)
    tell_withdrawals(local, central, station)
    report = SyncReport()
    forfeits = awards.forfeit_words(central)
    for table in current_tables(local):  # an event left earlier stays at the table app
        central_id = link_table(central, origin, table)
        if central_id in forfeits:  # the table app's screen says so and moves on
            mark_forfeit(local, table.id, forfeits[central_id])
        if table.id in seated:
            stations.placed(central, seated[table.id], central_id)
        apply_requests(local, table.id, central, central_id, report)
        decks.bring_up(local, table.id, central, origin, central_id)  # a deck taught there
        local_seq = local.last_seq(table.id)
        try:
            up, present = upload(local, table.id, central, central_id)
        except SyncConflict as exc:  # the director sees it on the hall's page
            record_sync_error(central, central_id, local_seq, str(exc))
            raise
        record_sync(central, central_id, local_seq)
        report.tables += 1
        report.uploaded += up
        report.present += present
    return report


def sync_loop(local_url: str, central_url: str, every: float,
              log: Callable[[str], None] = print, passes: int | None = None,
              stop: threading.Event | None = None) -> None:
    """Sync every ``every`` seconds (``passes`` times, or until ``stop`` is set); an
    unreachable event database is retried, not fatal."""
    stop = stop or threading.Event()
    local = open_store(local_url)
    central: Store | None = None
    done = 0
    while not stop.is_set() and (passes is None or done < passes):
        try:
            central = central or open_store(central_url)
            log(sync_once(local, central).line())
        except (OperationalError, InterfaceError) as exc:
            log(f"event database unreachable, scoring goes on locally: {_first_line(exc)}")
        done += 1
        if passes is None or done < passes:
            stop.wait(every)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
