"""Live updates: a per-process notifier that server-sent-event streams wait on.

The store calls :meth:`Notifier.publish` after each commit; streams also poll the database's
last event number every few seconds, so several server processes still see each other's changes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
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
    """Too many open live streams (per device or overall)."""


class StreamSlots:
    """Open live streams (events, camera) counted per device and overall: each holds one of
    the server's threads for up to ten minutes, so a device may hold ``per_device`` and all
    together ``total``; the server's other threads keep answering pages."""

    def __init__(self, per_device: int, total: int) -> None:
        self.per_device, self.total = per_device, total
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str) -> None:
        """Take a slot for ``key`` or raise ``StreamLimit`` (with the reason)."""
        with self._lock:
            if self._open.get(key, 0) >= self.per_device:
                raise StreamLimit(f"this device already has {self.per_device} live streams "
                                  "open; close a page first")
            if sum(self._open.values()) >= self.total:
                raise StreamLimit("the table's computer has too many live streams open; "
                                  "try again in a moment")
            self._open[key] = self._open.get(key, 0) + 1

    def release(self, key: str) -> None:
        with self._lock:
            left = self._open.get(key, 0) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)

    def open_count(self, key: str | None = None) -> int:
        with self._lock:
            return self._open.get(key, 0) if key else sum(self._open.values())

    def held(self, key: str, stream: Iterator[Any]) -> _HeldStream:
        """``stream``, releasing ``key``'s slot when it ends or is closed (the client went
        away), even if it never started."""
        return _HeldStream(self, key, stream)


class _HeldStream:
    """An iterator over a live stream that gives its slot back exactly once."""

    def __init__(self, slots: StreamSlots, key: str, stream: Iterator[Any]) -> None:
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
