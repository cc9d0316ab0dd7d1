"""The players' seats: a tablet joins a table for one player, and holds that seat alone.

One ``seat_holders`` row per (table, seat) names the device holding it. A seat held by a
joined tablet is refused to any other device until that tablet leaves (or is signed out), or
the director moves it; a tablet joining again (a new token for the same browser) takes its own
seat back. Every claim is one write whose key or compare-and-set decides a race: two devices
joining for Ben at the same moment get one seat holder, never two. A tablet that lost its
cookie asks for its seat back (``webui.store.seat_requests``): it moves only once allowed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from webui.store import engine
from webui.store.db import REVOKED, Device, SeatHolder, commit_first
from webui.store.devices import hash_token

SEATS = engine.PLAYERS


@dataclass(frozen=True)
class Joined:
    """A device that now holds its seat: its row, its secret token (shown once), and the
    tablet it displaced (a director's move), if any."""

    device: Device
    token: str
    displaced: Device | None = None


@dataclass(frozen=True)
class SeatTaken:
    """The seat is held by another joined tablet (``holder``)."""

    holder: Device


class Seats:
    """Claiming, reading and freeing the ``seat_holders`` rows."""

    def __init__(self, session: sessionmaker) -> None:
        self.Session = session

    def holder(self, table_id: int, seat: str) -> Device | None:
        """The joined device holding ``seat`` (None: free, or its holder was signed out)."""
        with self.Session() as s:
            row = s.get(SeatHolder, (table_id, seat))
            device = s.get(Device, row.device_id) if row else None
            return device if device is not None and not device.revoked else None

    def holders(self, table_id: int) -> dict[str, Device]:
        """Each held seat of the table and the joined device holding it."""
        with self.Session() as s:
            q = (select(SeatHolder.seat, Device).join(Device, Device.id == SeatHolder.device_id)
                 .where(SeatHolder.table_id == table_id,
                        Device.token_hash.not_like(f"{REVOKED}%")))
            return {seat: device for seat, device in s.execute(q)}

    def holds(self, device: Device) -> bool:
        """Whether ``device`` holds the seat it joined for. A tablet joined before seats were
        held (no row yet) claims its seat now if it is free."""
        if device.revoked or device.seat not in SEATS:
            return False
        with self.Session() as s:
            row = s.get(SeatHolder, (device.table_id, device.seat))
            if row is not None:
                return row.device_id == device.id
            s.add(SeatHolder(table_id=device.table_id, seat=device.seat, device_id=device.id))
            if commit_first(s):
                return True
        held = self.holder(device.table_id, device.seat)
        return held is not None and held.id == device.id

    def join(self, table_id: int, label: str, seat: str, current: Device | None = None,
             director: bool = False) -> Joined | SeatTaken:
        """A new device for ``seat``, unless another joined tablet holds it.

        ``current``: the device this browser joined the table with before (it may take its
        own seat back, or change seats; its old token stops working). ``director``: the
        director moves the seat, signing its holder out.
        """
        if seat not in SEATS:
            raise ValueError(f"seat must be one of {SEATS}")
        for _attempt in range(5):
            with self.Session() as s:
                row = s.get(SeatHolder, (table_id, seat))
                old_id = row.device_id if row else None
                holder = s.get(Device, old_id) if old_id is not None else None
            held = holder is not None and not holder.revoked
            own = current is not None and held and holder.id == current.id
            if held and not own and not director:
                return SeatTaken(holder)
            joined = self._claim(table_id, label, seat, old_id, current,
                                 holder if held and not own else None)
            if joined is not None:
                return joined
        held_now = self.holder(table_id, seat)
        if held_now is None:
            raise RuntimeError("the seat kept changing while joining; try again")
        return SeatTaken(held_now)

    def _claim(self, table_id: int, label: str, seat: str, old_id: int | None,
               current: Device | None, displaced: Device | None, token_hash: str | None = None,
               also: Callable[[Session], bool] | None = None) -> Joined | None:
        """One write: the new device, the seat moved to it from ``old_id`` (compare-and-set),
        the browser's earlier device and a displaced holder signed out. None: lost a race.

        ``token_hash``: the new device's token is one the tablet already holds (an allowed
        seat request: ``Joined.token`` is then empty); ``also``: one more write of the same
        transaction, which must succeed (False: nothing is written)."""
        token = "" if token_hash is not None else secrets.token_urlsafe(32)
        with self.Session() as s:
            device = Device(table_id=table_id, token_hash=token_hash or hash_token(token),
                            label=label, seat=seat)
            s.add(device)
            s.flush()
            if old_id is None:
                s.add(SeatHolder(table_id=table_id, seat=seat, device_id=device.id))
            else:
                moved = s.execute(
                    update(SeatHolder)
                    .where(SeatHolder.table_id == table_id, SeatHolder.seat == seat,
                           SeatHolder.device_id == old_id)
                    .values(device_id=device.id)
                    .execution_options(synchronize_session=False)).rowcount
                if moved != 1:
                    s.rollback()
                    return None
            gone = [d.id for d in (current, displaced)
                    if d is not None and d.table_id == table_id]
            if gone:
                s.execute(delete(SeatHolder).where(SeatHolder.device_id.in_(gone))
                          .execution_options(synchronize_session=False))
                for device_id in gone:
                    s.execute(update(Device).where(Device.id == device_id,
                                                   Device.token_hash.not_like(f"{REVOKED}%"))
                              .values(token_hash=REVOKED + secrets.token_hex(28))
                              .execution_options(synchronize_session=False))
            if also is not None and not also(s):
                s.rollback()
                return None
            if not commit_first(s):
                return None
            return Joined(device, token, displaced)
