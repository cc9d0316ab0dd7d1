"""Wrong PINs and director passwords, limited per address: a few are free, then each one
more doubles the wait before the next attempt (capped: never a permanent lockout).

Counted per (scope, address), scope ``pin:<table id>`` or ``director``: a stranger guessing
a table's PIN waits, while the players' own tablets (other addresses) still join. The counts
live in the table app's database (``attempt_failures``), so a restart resets nothing. A right
PIN or password clears the address's count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, delete
from sqlalchemy.dialects import postgresql, sqlite

from webui.store import Store
from webui.store.db import AttemptFailure

FREE_ATTEMPTS = 5
FIRST_WAIT_S = 30
MAX_WAIT_S = 15 * 60
FORGET_AFTER = timedelta(hours=24)


def now() -> datetime:
    """The limiter's clock (UTC; tests replace it)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Block:
    """An address that must wait before its next attempt."""

    failures: int
    retry_after_s: int


def wait_for(failures: int) -> timedelta:
    """How long an address waits after ``failures`` wrong attempts in a row."""
    if failures < FREE_ATTEMPTS:
        return timedelta(0)
    return timedelta(seconds=min(FIRST_WAIT_S * 2 ** min(failures - FREE_ATTEMPTS, 20),
                                 MAX_WAIT_S))


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)  # SQLite gives naive UTC times


def blocked(store: Store, scope: str, address: str) -> Block | None:
    """The wait ``address`` is under for ``scope`` now, or None when it may try."""
    with store.Session() as s:
        row = s.get(AttemptFailure, (scope[:32], address[:64]))
    if row is None:
        return None
    left = (_aware(row.last_failed_at) + wait_for(row.failures) - now()).total_seconds()
    if left <= 0:
        return None
    return Block(row.failures, max(1, int(left + 0.999)))


def record_failure(store: Store, scope: str, address: str) -> None:
    """One more wrong attempt (atomic; a count older than a day starts again)."""
    at = now()
    insert = postgresql.insert if store.engine.dialect.name == "postgresql" else sqlite.insert
    table = AttemptFailure.__table__
    stmt = insert(table).values(scope=scope[:32], address=address[:64], failures=1,
                                last_failed_at=at)
    stmt = stmt.on_conflict_do_update(index_elements=[table.c.scope, table.c.address], set_={
        "failures": case((table.c.last_failed_at < at - FORGET_AFTER, 1),
                         else_=table.c.failures + 1),
        "last_failed_at": at})
    with store.engine.begin() as conn:
        conn.execute(stmt)


def clear(store: Store, scope: str, address: str) -> None:
    """Forget ``address``'s wrong attempts for ``scope`` (after a right one)."""
    with store.engine.begin() as conn:
        conn.execute(delete(AttemptFailure).where(AttemptFailure.scope == scope[:32],
                                                  AttemptFailure.address == address[:64]))


def wait_words(seconds: int) -> str:
    """A wait in words: "30 seconds", "4 minutes"."""
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{(seconds + 59) // 60} minutes"
