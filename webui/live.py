"""Live updates: a per-process notifier that server-sent-event streams wait on.

The store calls :meth:`Notifier.publish` after each commit; streams also poll the database's
last event number every few seconds, so several server processes still see each other's changes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


class Notifier:
    """Wakes waiting streams when a table changes."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version: dict[int, int] = {}
        self._extra: dict[int, int] = {}  # camera status changes (not events)
        self.closed = False

    def publish(self, table_id: int, seq: int = 0) -> None:
        with self._cond:
            self._version[table_id] = max(self._version.get(table_id, 0), seq)
            self._extra[table_id] = self._extra.get(table_id, 0) + 1
            self._cond.notify_all()

    def wait(self, table_id: int, seen: int, timeout: float) -> int:
        """Wait until the table's change counter passes ``seen``; returns the counter."""
        with self._cond:
            self._cond.wait_for(lambda: self._extra.get(table_id, 0) != seen or self.closed,
                                timeout)
            return self._extra.get(table_id, 0)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


def sse_stream(notifier: Notifier, table_id: int, last_seq: Callable[[], int],
               max_seconds: float = 600.0, poll: float = 2.0) -> Iterator[str]:
    """Server-sent events: ``change`` with the table's last seq whenever something happens."""
    import time

    yield "retry: 2000\n\n"
    seen_counter = notifier.wait(table_id, -1, 0)
    seq = last_seq()
    yield f"event: change\ndata: {json.dumps({'seq': seq})}\n\n"
    started = time.monotonic()
    while time.monotonic() - started < max_seconds and not notifier.closed:
        counter = notifier.wait(table_id, seen_counter, poll)
        now_seq = last_seq()
        if counter != seen_counter or now_seq != seq:
            seen_counter, seq = counter, now_seq
            yield f"event: change\ndata: {json.dumps({'seq': seq})}\n\n"
        else:
            yield ": keepalive\n\n"


class StreamLimit(Exception):
    """Too many open live streams (per device, per table or overall)."""


@dataclass(frozen=True)
class StreamKey:
    """Whose live stream of which table: ``holder`` is ``device:<id>`` for a joined tablet,
    ``address:<ip>`` for the table's screen or the director."""

    table_id: int
    holder: str


class StreamSlots:
    """Open live streams (events, camera) counted per device, per table and overall: each
    holds one of the server's threads for up to ten minutes, so a device may hold
    ``per_device``, one table's viewers ``per_table`` and all together ``total``; one table
    (however many devices joined it) cannot take the slots of the others, and the server's
    other threads keep answering pages."""

    def __init__(self, per_device: int, total: int, per_table: int | None = None) -> None:
        self.per_device, self.total = per_device, total
        self.per_table = total if per_table is None else per_table
        self._open: dict[StreamKey, int] = {}
        self._lock = threading.Lock()

    def acquire(self, key: StreamKey) -> None:
        """Take a slot for ``key`` or raise ``StreamLimit`` (with the reason)."""
        with self._lock:
            device = sum(n for k, n in self._open.items() if k.holder == key.holder)
            if device >= self.per_device:
                raise StreamLimit(f"this device already has {self.per_device} live streams "
                                  "open; close a page first")
            table = sum(n for k, n in self._open.items() if k.table_id == key.table_id)
            if table >= self.per_table:
                raise StreamLimit(f"this table already has {self.per_table} live streams open "
                                  "(pages on its tablets and screen); close a page first")
            if sum(self._open.values()) >= self.total:
                raise StreamLimit("the table's computer has too many live streams open; "
                                  "try again in a moment")
            self._open[key] = self._open.get(key, 0) + 1

    def release(self, key: StreamKey) -> None:
        with self._lock:
            left = self._open.get(key, 0) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)

    def open_count(self, key: StreamKey | None = None, table_id: int | None = None) -> int:
        """Open streams: of ``key``, of table ``table_id``, or all."""
        with self._lock:
            if key is not None:
                return self._open.get(key, 0)
            return sum(n for k, n in self._open.items()
                       if table_id is None or k.table_id == table_id)

    def held(self, key: StreamKey, stream: Iterator[Any]) -> _HeldStream:
        """``stream``, releasing ``key``'s slot when it ends or is closed (the client went
        away), even if it never started."""
        return _HeldStream(self, key, stream)


class _HeldStream:
    """An iterator over a live stream that gives its slot back exactly once."""

    def __init__(self, slots: StreamSlots, key: StreamKey, stream: Iterator[Any]) -> None:
        self._slots, self._key, self._stream = slots, key, stream
        self._released = False

    def __iter__(self) -> _HeldStream:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._stream)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if not self._released:
            self._released = True
            self._slots.release(self._key)
            close = getattr(self._stream, "close", None)
            if close is not None:
                close()
