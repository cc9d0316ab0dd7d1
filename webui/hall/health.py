"""Sync health of every table, for the director: when each synced table last synced, and
whether its sync is fine, stalled, in conflict or refused, with what to do about it.

``gintray sync`` records each table's good syncs and errors (``record_sync``,
``record_sync_error``) in ``hall_table_syncs``; refused table databases (copies, diverged
histories) are in ``hall_sync_refusals``. Times are stored timezone-aware (UTC).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from webui.hall.schema import SyncRefusal, TableLink, TableSync
from webui.store import Store

STALL_AFTER = timedelta(minutes=3)


class SyncState(enum.Enum):
    """How a table reaches the event database, and whether that works."""

    DIRECT = "direct"  # scores on the event database itself: nothing to sync
    OK = "ok"
    IDLE = "idle"  # no recent sync, but the match is over and everything is synced
    STALLED = "stalled"
    CONFLICT = "conflict"
    REFUSED = "refused"


@dataclass(frozen=True)
class TableHealth:
    """One table's sync health: its state, last good sync, and what the director can do."""

    table_id: int
    state: SyncState
    synced_at: datetime | None = None
    unsynced: int = 0
    problem: str = ""
    todo: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table_id, "state": self.state.value,
                "synced_at": self.synced_at.isoformat() if self.synced_at else None,
                "unsynced": self.unsynced, "problem": self.problem, "todo": self.todo}


def as_utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC time: naive times are UTC (the table app writes
    ``webui.store.db.utcnow()``, and SQLite keeps it without its zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _upsert(central: Store, values: dict[str, Any], update: list[str]) -> None:
    dialect = central.engine.dialect.name
    insert: Callable[[Any], Any] = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(TableSync.__table__).values(**values)
    stmt = stmt.on_conflict_do_update(index_elements=["table_id"],
                                      set_={k: stmt.excluded[k] for k in update})
    with central.engine.begin() as conn:
        conn.execute(stmt)


def record_sync(central: Store, table_id: int, local_seq: int) -> None:
    """A good sync of a mirrored table (clears its last error)."""
    _upsert(central, {"table_id": table_id, "synced_at": datetime.now(UTC),
                      "local_seq": local_seq, "error": None, "error_at": None},
            ["synced_at", "local_seq", "error", "error_at"])


def record_sync_error(central: Store, table_id: int, local_seq: int, error: str) -> None:
    """A sync of a mirrored table that stopped on a conflict (its last good sync is kept)."""
    _upsert(central, {"table_id": table_id, "local_seq": local_seq, "error": error[:2000],
                      "error_at": datetime.now(UTC)}, ["local_seq", "error", "error_at"])


def _ago(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


SYNC_TODO = ("At the table, check that `gintray sync --from ... --to ... --loop 5` is still "
             "running and that the table's computer reaches the event database; start it "
             "again if not. The table keeps scoring meanwhile, and the sync catches up.")
CONFLICT_TODO = ("The table keeps scoring on its own database; nothing was merged or lost. "
                 "Make sure the sync runs from the table's own database (not a copy or an "
                 "old backup); if the event database's copy was written into, stop, keep the "
                 "table's database and ask for the event database to be repaired from it.")
REFUSED_TODO = ("Run the sync from the table's original database. If that file was lost "
                "and this is a restored or moved one, `gintray sync --adopt` asks to take it: "
                "approve it under \"Syncs refused\" once the original is gone (refused while "
                "the original still syncs, or if it is behind the event database).")


def table_health(central: Store, summaries: list[Mapping[str, Any]],
                 now: datetime | None = None, stall_after: timedelta = STALL_AFTER,
                 settled: Collection[int] = ()) -> dict[int, TableHealth]:
    """The sync health of each table in ``summaries`` (``event.table_summary``), by id.

    A synced table is stalled when it has not synced for ``stall_after`` while its match is
    open or the table database had events not yet in the event database; in conflict when
    its last sync stopped on a conflict; refused when its table database was refused (a copy
    or a diverged history) after its last good sync. A ``settled`` table (a forfeit, an undone
    pairing) has no open match, whatever its hands say."""
    now = now or datetime.now(UTC)
    with central.Session() as s:
        syncs = {r.table_id: r for r in s.scalars(select(TableSync))}
        links = {link.table_id: link for link in s.scalars(select(TableLink))}
        refused_q = (select(SyncRefusal.origin, func.max(SyncRefusal.id))
                     .group_by(SyncRefusal.origin))
        latest_ids = [rid for _origin, rid in s.execute(refused_q)]
        refusals = {r.origin: r for r in s.scalars(
            select(SyncRefusal).where(SyncRefusal.id.in_(latest_ids)))}
    out: dict[int, TableHealth] = {}
    for t in summaries:
        tid = int(t["id"])
        link = links.get(tid)
        if link is None:
            out[tid] = TableHealth(tid, SyncState.DIRECT)
            continue
        row = syncs.get(tid)
        synced_at = as_utc(row.synced_at) if row and row.synced_at else None
        unsynced = max(0, (row.local_seq if row else 0) - int(t["last_seq"]))
        refusal = refusals.get(link.origin)
        if row and row.error:
            out[tid] = TableHealth(tid, SyncState.CONFLICT, synced_at, unsynced,
                                   f"sync stopped: {row.error}", CONFLICT_TODO)
        elif refusal and (synced_at is None or as_utc(refusal.created_at) > synced_at):
            out[tid] = TableHealth(tid, SyncState.REFUSED, synced_at, unsynced,
                                   f"sync refused: {refusal.message}", REFUSED_TODO)
        elif synced_at is None or now - synced_at > stall_after:
            since = f"for {_ago(now - synced_at)}" if synced_at else "since it was linked"
            still_open = not t["match"].complete and tid not in settled
            if still_open or unsynced:
                why = (f"{unsynced} event(s) at the table not in the event database" if unsynced
                       else "its match is still being played")
                out[tid] = TableHealth(tid, SyncState.STALLED, synced_at, unsynced,
                                       f"no sync {since} while {why}", SYNC_TODO)
            else:
                out[tid] = TableHealth(tid, SyncState.IDLE, synced_at)
        else:
            out[tid] = TableHealth(tid, SyncState.OK, synced_at)
    return out
