"""The tablets joined to a table, known by a secret token stored only as its hash."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import delete, select
from sqlalchemy.orm import sessionmaker

from webui.store.db import REVOKED, Device, SeatHolder


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Devices:
    """The ``devices`` rows: registered, found by token, listed, signed out."""

    def __init__(self, session: sessionmaker) -> None:
        self.Session = session

    def add(self, table_id: int, label: str, seat: str) -> tuple[Device, str]:
        """Register a tablet for a table; returns it and its secret token (shown once)."""
        token = secrets.token_urlsafe(32)
        with self.Session() as s:
            device = Device(table_id=table_id, token_hash=hash_token(token), label=label,
                            seat=seat)
            s.add(device)
            s.commit()
            return device, token

    def for_token(self, token: str | None) -> Device | None:
        if not token:
            return None
        with self.Session() as s:
            return s.scalar(select(Device).where(Device.token_hash == hash_token(token)))

    def joined(self, device_id: int) -> bool:
        """Whether the device is still joined (not signed out, nor left)."""
        with self.Session() as s:
            device = s.get(Device, device_id)
            return device is not None and not device.revoked

    def of_table(self, table_id: int, joined_only: bool = False) -> list[Device]:
        """The table's devices, in the order they joined (``joined_only``: not signed out)."""
        with self.Session() as s:
            q = select(Device).where(Device.table_id == table_id).order_by(Device.id)
            if joined_only:
                q = q.where(Device.token_hash.not_like(f"{REVOKED}%"))
            return list(s.scalars(q))

    def revoke(self, table_id: int, device_id: int | None = None) -> int:
        """Sign out one device of the table (or all, ``device_id`` None): its token stops
        working, the row stays (events name it), its seat is free. Returns how many were
        signed out."""
        with self.Session() as s:
            q = select(Device).where(Device.table_id == table_id,
                                     Device.token_hash.not_like(f"{REVOKED}%"))
            if device_id is not None:
                q = q.where(Device.id == device_id)
            rows = list(s.scalars(q))
            for row in rows:
                row.token_hash = REVOKED + secrets.token_hex(28)
            if rows:
                s.execute(delete(SeatHolder).where(SeatHolder.device_id.in_([r.id for r in rows]))
                          .execution_options(synchronize_session=False))
            s.commit()
            return len(rows)
