"""Wrong PINs and director passwords, limited per address and overall: a few are free, then
each one more doubles the wait before the next attempt (capped: never a permanent lockout).

``begin`` counts an attempt before the PIN or password is checked, in one compare-and-set
write, so a burst of parallel guesses gets exactly the free attempts checked, never more; a
right one (``succeeded``) clears the address's count. Counted per (scope, address): scope
``pin`` (every table of this app: a guesser does not get fresh tries at the next table) or
``director``. Beside each address's count, one count of all non-loopback addresses together
(address ``*``): past ``GLOBAL_FREE`` wrong attempts a day, the next attempt checked openly
waits a while after the last one (a director password ``GLOBAL_WAIT_S``, a PIN
``PIN_GLOBAL_WAIT_S``), so many addresses together guess slowly too. A PIN sent while that
count waits is still checked, but the sender is told nothing either way (a right PIN becomes a
request the table screen allows; ``begin``): so a steady trickle of wrong PINs from rotating
addresses cannot lock the players out, and gives the guessers nothing. Joined tablets and the
table's own computer (loopback, where the PIN is on the screen anyway) are never slowed by
it. The counts live in the table app's database (``attempt_failures``), so a restart resets
nothing.

How many PINs a guesser gets checked openly (the only ones that tell right from wrong): from
one address, 5 at once, then one after 30 s, 1, 2, 4, 8 and 15 minutes, then one every 15
minutes (12 in the first hour, 4 an hour after); from any number of addresses together,
``GLOBAL_FREE`` (30) a day, then one every ``PIN_GLOBAL_WAIT_S`` (60 an hour). A six-digit
PIN has 1,000,000 values: a 12-hour event day gives 30 + 720 guesses, a 0.075% chance.

``take`` and ``give_back`` are the same counting over any list of counts (``Limit``), for a
login that is limited on more than its address: the hall counts each director password on its
address, on the account it tries (``account_wait``: ``ACCOUNT_FREE`` free, then doubling, from
every address together) and on everyone's count, or on a known browser's own count alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from webui.store import Store
from webui.store.db import AttemptFailure, as_utc

FREE_ATTEMPTS = 5
FIRST_WAIT_S = 30
MAX_WAIT_S = 15 * 60
FORGET_AFTER = timedelta(hours=24)
EVERYONE = "*"  # the address of the count of all non-loopback addresses together
GLOBAL_FREE = 30
GLOBAL_WAIT_S = 10
PIN_GLOBAL_WAIT_S = 60  # table PINs: the players never wait on it (``begin``)
ACCOUNT_FREE = 20  # wrong passwords for one account, from all addresses, before it waits


def now() -> datetime:
    """The limiter's clock (UTC; tests replace it)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Block:
    """An address that must wait before its next attempt."""

    failures: int
    retry_after_s: int
    everyone: bool = False  # the wait of all addresses together, not this one's own
    who: str = ""  # which count waits (a ``Limit``'s ``who``), where there are several


def wait_for(failures: int) -> timedelta:
    """How long an address waits after ``failures`` wrong attempts in a row."""
    if failures < FREE_ATTEMPTS:
        return timedelta(0)
    return timedelta(seconds=min(FIRST_WAIT_S * 2 ** min(failures - FREE_ATTEMPTS, 20),
                                 MAX_WAIT_S))


def blocked(store: Store, scope: str, address: str) -> Block | None:
    """The wait ``address`` is under for ``scope`` now, or None when it may try."""
    with store.Session() as s:
        row = s.get(AttemptFailure, (scope[:32], address[:64]))
    if row is None:
        return None
    left = (as_utc(row.last_failed_at) + wait_for(row.failures) - now()).total_seconds()
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


def block_words(block: Block, what: str) -> str:
    """Why an attempt waits, e.g. "Too many wrong PINs from this device. Wait 30 seconds and
    try again." (``what``: "PINs", "passwords")."""
    who = "on this network" if block.everyone else "from this device"
    return (f"Too many wrong {what} {who}. Wait {wait_words(block.retry_after_s)} and try "
            "again.")


def wait_words(seconds: int) -> str:
    """A wait in words: "30 seconds", "4 minutes"."""
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{(seconds + 59) // 60} minutes"


def global_wait(failures: int) -> timedelta:
    """How long anyone (off this machine) waits after ``failures`` wrong attempts of all
    addresses together: nothing at first, then a few seconds, never more."""
    return timedelta(0) if failures < GLOBAL_FREE else timedelta(seconds=GLOBAL_WAIT_S)


def pin_everyone_wait(failures: int) -> timedelta:
    """How long the next PIN that is checked openly waits after ``failures`` wrong PINs of
    all addresses together: ``GLOBAL_FREE`` free a day, then one a ``PIN_GLOBAL_WAIT_S``.
    Players never wait on it: while it waits, a PIN is checked without telling the sender
    whether it was right (``begin``), and a right one asks the table screen to let it in."""
    return timedelta(0) if failures < GLOBAL_FREE else timedelta(seconds=PIN_GLOBAL_WAIT_S)


def begin(store: Store, scope: str, address: str, local: bool = False) -> Block | None:
    """Count one PIN attempt of ``address`` before it is checked: None when it may go ahead
    (it stays counted as wrong until ``succeeded``), else the ``Block`` it waits under.
    ``local``: the table's own computer, outside the count of everyone.

    A ``Block`` with ``everyone`` set is not a refusal: the address's own count let it
    through but all addresses together must wait, so the caller checks the PIN and answers
    the same whether it was right or wrong (a right one waits for the table screen's Allow):
    a steady trickle of wrong PINs from many addresses slows the guessers, not the players.
    Such an attempt tells its sender nothing, so it is taken off the address's count again
    (right or wrong alike: the count says nothing either), and a player trying again while
    waiting is never held back by their own tries."""
    block = _reserve(store, scope, address, wait_for)
    if block is not None or local:
        return block
    block = _reserve(store, scope, EVERYONE, pin_everyone_wait)
    if block is not None:
        _refund(store, scope, address)  # answered alike, right or wrong: not a checked guess
    return block


def succeeded(store: Store, scope: str, address: str, local: bool = False) -> None:
    """The attempt ``begin`` counted was right: clear the address, give back everyone's."""
    clear(store, scope, address)
    if not local:
        _refund(store, scope, EVERYONE)


def account_wait(failures: int) -> timedelta:
    """How long everyone waits to try one account after ``failures`` wrong passwords for it
    (from any address): ``ACCOUNT_FREE`` free, then a doubling wait, capped at
    ``MAX_WAIT_S``."""
    if failures < ACCOUNT_FREE:
        return timedelta(0)
    return timedelta(seconds=min(FIRST_WAIT_S * 2 ** min(failures - ACCOUNT_FREE, 20),
                                 MAX_WAIT_S))


@dataclass(frozen=True)
class Limit:
    """One count an attempt goes through: (``scope``, ``address``) in ``attempt_failures``
    (``address`` may be any key: an account's, a browser's), with its rule of waiting, and
    ``who`` for the words of its block."""

    scope: str
    address: str
    wait: Callable[[int], timedelta]
    who: str = "address"


@dataclass(frozen=True)
class Taken:
    """One attempt counted on ``limit``: the count went from ``before`` to ``before + 1``
    (``before`` None: there was no row), at ``at``."""

    limit: Limit
    before: tuple[int, datetime] | None
    at: datetime


def take(store: Store, limits: list[Limit]) -> tuple[list[Taken], Block | None]:
    """Count one attempt on every count of ``limits`` before it is checked, or on none: the
    attempt goes ahead (``[...], None``) only when no count must wait; else ``([], Block)``
    with the first count that waits, and nothing stays counted. An attempt that goes ahead
    stays counted as wrong unless ``give_back`` takes it off (it was right)."""
    for limit in limits:  # a read first: a waiting count touches no other count
        block = _waiting(store, limit)
        if block is not None:
            return [], block
    taken: list[Taken] = []
    for limit in limits:
        got = _take(store, limit.scope, limit.address, limit.wait, limit.who)
        if isinstance(got, Block):
            give_back(store, taken)
            return [], got
        taken.append(got)
    return taken, None


def give_back(store: Store, taken: list[Taken]) -> None:
    """Take back attempts ``take`` counted (they were right, or never checked): each count
    goes back to what it was, time included, when nobody counted on it since; else it is
    one less."""
    table = AttemptFailure.__table__
    for t in reversed(taken):
        key = (t.limit.scope[:32], t.limit.address[:64])
        where = (table.c.scope == key[0], table.c.address == key[1])
        with store.engine.begin() as conn:
            if t.before is None:
                done = conn.execute(delete(table).where(*where, table.c.failures == 1)).rowcount
            else:
                done = conn.execute(update(table).where(
                    *where, table.c.failures == t.before[0] + 1, table.c.last_failed_at == t.at)
                    .values(failures=t.before[0], last_failed_at=t.before[1])).rowcount
        if not done:
            _refund(store, key[0], key[1])


def _waiting(store: Store, limit: Limit) -> Block | None:
    """The wait of one count now, read only."""
    with store.Session() as s:
        row = s.get(AttemptFailure, (limit.scope[:32], limit.address[:64]))
    if row is None:
        return None
    at, last = now(), as_utc(row.last_failed_at)
    failures = 0 if last < at - FORGET_AFTER else row.failures
    left = (last + limit.wait(failures) - at).total_seconds()
    if left <= 0:
        return None
    return Block(failures, max(1, int(left + 0.999)), everyone=limit.address == EVERYONE,
                 who=limit.who)


def _reserve(store: Store, scope: str, address: str,
             wait: Callable[[int], timedelta]) -> Block | None:
    """One more attempt on the (scope, address) count, unless it must wait."""
    got = _take(store, scope, address, wait)
    return got if isinstance(got, Block) else None


def _take(store: Store, scope: str, address: str, wait: Callable[[int], timedelta],
          who: str = "address") -> Taken | Block:
    """One more attempt on the (scope, address) count, unless it must wait: a read, then a
    write that lands only if the count is still what was read (else read again)."""
    key = (scope[:32], address[:64])
    table = AttemptFailure.__table__
    limit = Limit(scope, address, wait, who)
    for _try in range(50):
        at = now()
        with store.Session() as s:
            row = s.get(AttemptFailure, key)
            seen = None if row is None else (row.failures, as_utc(row.last_failed_at))
        if seen is None:
            try:
                with store.engine.begin() as conn:
                    conn.execute(table.insert().values(scope=key[0], address=key[1],
                                                       failures=1, last_failed_at=at))
                return Taken(limit, None, at)
            except IntegrityError:
                continue  # another request counted first: read again
        failures, last = seen
        at = max(at, last)  # a request counted since this one began: no time has passed since
        if last < at - FORGET_AFTER:
            failures = 0
        left = (last + wait(failures) - at).total_seconds()
        if left > 0:
            return Block(failures, max(1, int(left + 0.999)), everyone=address == EVERYONE,
                         who=who)
        with store.engine.begin() as conn:
            done = conn.execute(
                update(table).where(table.c.scope == key[0], table.c.address == key[1],
                                    table.c.failures == seen[0])
                .values(failures=failures + 1, last_failed_at=at)).rowcount
        if done == 1:
            return Taken(limit, (failures, last), at)
    return Block(0, 1, who=who)  # the count kept changing under a burst: try again in a second


def _refund(store: Store, scope: str, address: str) -> None:
    """Take one attempt off a count (one that was not a wrong guess)."""
    table = AttemptFailure.__table__
    with store.engine.begin() as conn:
        conn.execute(update(table).where(table.c.scope == scope[:32],
                                         table.c.address == address[:64],
                                         table.c.failures > 0)
                     .values(failures=table.c.failures - 1))
