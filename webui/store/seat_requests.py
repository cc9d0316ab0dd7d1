"""Asking for a held seat: a tablet that lost its cookie (cleared data, a private tab, a QR
scanner's own browser) takes its player's seat back with the PIN and a confirmation.

The asking tablet sends the PIN; a ``seat_requests`` row is written with the hash of a token
the tablet keeps in its session. The table screen and the seated tablets show the request
with Allow / Refuse; allowing it is one write (``Seats._claim``): the request marked allowed,
a device with that token made, the seat moved to it and its old holder signed out. A request
waits ``REQUEST_TTL`` at most; a newer one for the same seat replaces it. Nobody takes a held
seat silently: a stranger with the PIN (it is on the screen) gets a request the players see.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from webui.store.db import Device, SeatHolder, SeatRequest, as_utc
from webui.store.devices import hash_token
from webui.store.seats import Joined, Seats

REQUEST_TTL = timedelta(minutes=2)


def now() -> datetime:
    """The requests' clock (UTC; tests replace it)."""
    return datetime.now(UTC)


class Status(StrEnum):
    PENDING = "pending"
    ALLOWED = "allowed"
    REFUSED = "refused"
    REPLACED = "replaced"
    EXPIRED = "expired"  # never stored: a pending request past its time


@dataclass(frozen=True)
class Asked:
    """A seat request as the pages show it: who asks (``label``) for which seat, the tablet
    holding the seat when it asked (``holder``), when it expires, where it stands."""

    id: int
    table_id: int
    seat: str
    label: str
    holder: Device | None
    asker_id: int | None
    asked_at: datetime
    expires_at: datetime
    status: Status


class SeatRequests:
    """Writing, reading and deciding the ``seat_requests`` rows."""

    def __init__(self, session: sessionmaker, seats: Seats) -> None:
        self.Session, self.seats = session, seats

    def ask(self, table_id: int, seat: str, label: str, asker: Device | None = None) -> str:
        """A new request for ``seat`` (an older pending one for the seat is replaced); returns
        the token the asking tablet keeps: the device's once it is allowed. ``asker``: the
        device the asking browser joined this table with before (signed out on Allow)."""
        token = secrets.token_urlsafe(32)
        holder = self.seats.holder(table_id, seat)
        with self.Session() as s:
            s.execute(update(SeatRequest)
                      .where(SeatRequest.table_id == table_id, SeatRequest.seat == seat,
                             SeatRequest.status == Status.PENDING)
                      .values(status=Status.REPLACED))
            s.add(SeatRequest(table_id=table_id, seat=seat, label=label,
                              token_hash=hash_token(token),
                              holder_id=holder.id if holder else None,
                              asker_id=asker.id if asker else None,
                              status=Status.PENDING, created_at=now()))
            s.commit()
        return token

    def pending(self, table_id: int) -> list[Asked]:
        """The table's requests still waiting for an answer, oldest first."""
        with self.Session() as s:
            rows = list(s.scalars(select(SeatRequest).where(
                SeatRequest.table_id == table_id, SeatRequest.status == Status.PENDING)
                .order_by(SeatRequest.id)))
            asked = [self._asked(s, row) for row in rows]
        return [a for a in asked if a.status is Status.PENDING]

    def for_token(self, token: str | None) -> Asked | None:
        """The request made with ``token`` (the asking tablet's view of it)."""
        if not token:
            return None
        with self.Session() as s:
            row = s.scalar(select(SeatRequest).where(
                SeatRequest.token_hash == hash_token(token)))
            return self._asked(s, row) if row is not None else None

    def allow(self, table_id: int, request_id: int, decided_by: str) -> Joined | str:
        """Give the seat to the asking tablet (its old holder is signed out), or say why not."""
        for _attempt in range(5):
            with self.Session() as s:
                row = s.get(SeatRequest, request_id)
                if row is None or row.table_id != table_id:
                    return "No such request."
                asked = self._asked(s, row)
                held = s.get(SeatHolder, (table_id, row.seat))
                old_id = held.device_id if held else None
                holder = s.get(Device, old_id) if old_id is not None else None
                asker = s.get(Device, row.asker_id) if row.asker_id is not None else None
                token_hash = row.token_hash
            if asked.status is not Status.PENDING:
                return _no_longer(asked.status)
            live = holder if holder is not None and not holder.revoked else None
            if live is not None and (asked.holder is None or live.id != asked.holder.id):
                self._decide(request_id, Status.REFUSED, "the seat changed hands")
                return "The seat changed hands since this request was made: ask again."

            def mark_allowed(s: Session) -> bool:
                return s.execute(update(SeatRequest).where(
                    SeatRequest.id == request_id, SeatRequest.status == Status.PENDING)
                    .values(status=Status.ALLOWED, decided_by=decided_by[:80])
                    .execution_options(synchronize_session=False)).rowcount == 1

            joined = self.seats._claim(table_id, asked.label, asked.seat, old_id,
                                       asker if asker is not None and not asker.revoked
                                       else None, live, token_hash=token_hash,
                                       also=mark_allowed)
            if joined is not None:
                return joined
        return "The seat kept changing: try again."

    def refuse(self, table_id: int, request_id: int, decided_by: str) -> str | None:
        """Refuse a pending request; None when done, else why not."""
        with self.Session() as s:
            row = s.get(SeatRequest, request_id)
            if row is None or row.table_id != table_id:
                return "No such request."
        if not self._decide(request_id, Status.REFUSED, decided_by):
            return "That request was answered already."
        return None

    def _decide(self, request_id: int, status: Status, decided_by: str) -> bool:
        with self.Session() as s:
            done = s.execute(update(SeatRequest).where(
                SeatRequest.id == request_id, SeatRequest.status == Status.PENDING)
                .values(status=status, decided_by=decided_by[:80])).rowcount
            s.commit()
        return done == 1

    @staticmethod
    def _asked(s: Session, row: SeatRequest) -> Asked:
        asked_at = as_utc(row.created_at)
        expires = asked_at + REQUEST_TTL
        status = Status(row.status)
        if status is Status.PENDING and now() >= expires:
            status = Status.EXPIRED
        holder = s.get(Device, row.holder_id) if row.holder_id is not None else None
        return Asked(row.id, row.table_id, row.seat, row.label, holder, row.asker_id, asked_at,
                     expires, status)


def _no_longer(status: Status) -> str:
    return {Status.ALLOWED: "That request was allowed already.",
            Status.REFUSED: "That request was refused already.",
            Status.REPLACED: "A newer request for this seat replaced that one.",
            Status.EXPIRED: "That request expired: the tablet must ask again."}.get(
                status, "That request was answered already.")
