"""The tables: each created with a PIN, its settings event and game 1; listed and looked up."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from webui.common.refusal import Refusal
from webui.store import engine
from webui.store.db import EventRow, TableRow
from webui.store.event_kind import EventKind
from webui.store.log import Actor


class Tables:
    """The ``tables`` rows; ``notify(table_id, seq)`` is told of a new table's first events."""

    def __init__(self, session: sessionmaker, notify: Callable[[int, int], None]) -> None:
        self.Session, self.notify = session, notify

    def create(self, name: str, settings: dict[str, Any], actor: Actor) -> int:
        """Create a table with a fresh PIN, its settings event and game 1 (raises Refusal
        400 on rules the engine refuses: a table's rules are always ones the engine plays)."""
        try:
            engine.rules_json(settings.get("rules"))
        except engine.ScorerError as exc:
            raise Refusal(exc.message, code=exc.code, status=400) from None
        with self.Session() as s:
            row = TableRow(name=name, pin=new_pin())
            s.add(row)
            s.flush()
            for seq, (kind, payload) in enumerate(
                [(EventKind.TABLE_CREATED, {"name": name, **settings}),
                 (EventKind.GAME_STARTED,
                  {"game": 1, "dealer": settings.get("first_dealer", "A")})],
                start=1,
            ):
                s.add(EventRow(table_id=row.id, seq=seq, kind=kind, payload=payload,
                               actor=actor.name, device_id=actor.device_id))
            s.commit()
            table_id = row.id
        self.notify(table_id, 2)
        return table_id

    def all(self) -> list[TableRow]:
        with self.Session() as s:
            return list(s.scalars(select(TableRow).order_by(TableRow.id)))

    def get(self, table_id: int) -> TableRow | None:
        with self.Session() as s:
            return s.get(TableRow, table_id)

    def new_pin(self, table_id: int) -> str:
        """Give the table a fresh PIN; returns it."""
        with self.Session() as s:
            row = s.get(TableRow, table_id)
            row.pin = new_pin()
            s.commit()
            return row.pin


def new_pin() -> str:
    """A fresh six-digit table PIN."""
    return f"{secrets.randbelow(10**6):06d}"
