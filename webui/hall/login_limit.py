"""Director login attempts, limited per address: a few wrong passwords are free, then each
one more doubles the wait before the next attempt (capped, so never a permanent lockout).

The count lives in the event database (``hall_login_failures``): restarting the hall does not
reset it, and every hall process on the event database shares it. A right password clears it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, delete
from sqlalchemy.dialects import postgresql, sqlite

from webui.hall.schema import LoginFailure
from webui.store import Store

FREE_ATTEMPTS = 5
FIRST_WAIT_S = 30
MAX_WAIT_S = 15 * 60
FORGET_AFTER = timedelta(hours=24)


def now() -> datetime:
    """The limiter's clock (UTC; tests replace it)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class LoginBlock:
    """An address that must wait before its next attempt."""

    address: str
    failures: int
    retry_after_s: int


def wait_for(failures: int) -> timedelta:
    """How long an address waits after ``failures`` wrong passwords in a row."""
    if failures < FREE_ATTEMPTS:
        return timedelta(0)
    return timedelta(seconds=min(FIRST_WAIT_S * 2 ** min(failures - FREE_ATTEMPTS, 20),
                                 MAX_WAIT_S))


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)  # SQLite gives naive UTC times


def blocked(store: Store, address: str) -> LoginBlock | None:
    """The wait ``address`` is under now, or None when it may try a password."""
    with store.Session() as s:
        row = s.get(LoginFailure, address[:64])
    if row is None:
        return None
    until = _aware(row.last_failed_at) + wait_for(row.failures)
    left = (until - now()).total_seconds()
    if left <= 0:
        return None
    return LoginBlock(address, row.failures, max(1, int(left + 0.999)))


def record_failure(store: Store, address: str) -> None:
    """One more wrong password from ``address`` (atomic; failures older than a day are
    forgotten first)."""
    at = now()
    dialect = store.engine.dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    table = LoginFailure.__table__
    stmt = insert(table).values(address=address[:64], failures=1, last_failed_at=at)
    stmt = stmt.on_conflict_do_update(index_elements=[table.c.address], set_={
        "failures": case((table.c.last_failed_at < at - FORGET_AFTER, 1),
                         else_=table.c.failures + 1),
        "last_failed_at": at})
    with store.engine.begin() as conn:
        conn.execute(stmt)


def clear(store: Store, address: str) -> None:
    """Forget ``address``'s wrong passwords (after a right one)."""
    with store.engine.begin() as conn:
        conn.execute(delete(LoginFailure).where(LoginFailure.address == address[:64]))
