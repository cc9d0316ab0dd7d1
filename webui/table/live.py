"""Live updates: a per-process notifier that server-sent-event streams wait on.

The store calls :meth:`Notifier.publish` after each commit; streams also poll the database's
last event number every few seconds, so several server processes still see each other's changes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
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

    def wait(self, table_id: int, seen: int, timeout: float,
             stop: Callable[[], bool] = lambda: False) -> int:
        """Wait until the table's change counter passes ``seen`` (or ``stop()`` after a
        :meth:`wake`); returns the counter."""
        with self._cond:
            self._cond.wait_for(lambda: self._extra.get(table_id, 0) != seen or self.closed
                                or stop(), timeout)
            return self._extra.get(table_id, 0)

    def wake(self) -> None:
        """Wake the waiting streams to look at their ``stop`` (a stream was ended)."""
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class EndReason(StrEnum):
    """Why the server ended a live stream (said to the page in its last message)."""

    TIME = "time"  # it ran its ``max`` seconds: the page reconnects at once
    REPLACED = "replaced"  # the same device opened another page, which took this slot
    LEFT = "left"  # the device left its seat or was signed out
    CLOSING = "closing"  # the server is stopping


class StreamKind(StrEnum):
    """What a live stream carries: live updates (``events``) or the camera picture."""

    EVENTS = "events"
    CAMERA = "camera"


@dataclass(frozen=True)
class StreamKey:
    """Whose live stream of which table: ``holder`` is ``device:<id>`` for a joined tablet
    (``device_id`` its id), ``address:<ip>`` for the table's screen or the director."""

    table_id: int
    holder: str
    device_id: int | None = None


class StreamLimit(Exception):
    """Too many open live streams (per table or overall; per device for a camera picture)."""


class Lease:
    """One open live stream's slot. The stream asks :meth:`alive` on each tick: False once
    the slot was taken back (:attr:`ended` says why) or its device is no longer joined."""

    def __init__(self, slots: StreamSlots, key: StreamKey, kind: StreamKind, order: int) -> None:
        self.slots, self.key, self.kind, self.order = slots, key, kind, order
        self.ended: EndReason | None = None
        self._wakers: list[Callable[[], None]] = []
        self._checked = time.monotonic()

    def on_end(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` when the slot is taken back (to wake the stream waiting for news)."""
        self._wakers.append(wake)
        if self.ended is not None:
            wake()

    def end(self, reason: EndReason) -> None:
        """Mark the stream to end (it says ``reason`` on its next tick) and wake it."""
        if self.ended is None:
            self.ended = reason
        for wake in list(self._wakers):
            wake()

    def alive(self) -> bool:
        """Whether the stream goes on: not ended, and its device (checked at most every
        ``slots.check_every`` seconds) still joined; a departed device's streams all end."""
        if self.ended is not None:
            return False
        now = time.monotonic()
        if self.key.device_id is not None and now - self._checked >= self.slots.check_every:
            self._checked = now
            if not self.slots.joined(self.key.device_id):
                self.slots.end_device(self.key.table_id, self.key.device_id)
        return self.ended is None


def sse_stream(notifier: Notifier, table_id: int, last_seq: Callable[[], int], lease: Lease,
               max_seconds: float = 600.0, poll: float = 2.0) -> Iterator[str]:
    """Server-sent events: ``change`` with the table's last seq whenever something happens; a
    comment each ``poll`` seconds otherwise (a page gone is noticed when it fails); at the
    end ``ended`` with the reason (``EndReason``)."""
    yield "retry: 2000\n\n"
    lease.on_end(notifier.wake)
    seen_counter = notifier.wait(table_id, -1, 0)
    seq = last_seq()
    yield f"event: change\ndata: {json.dumps({'seq': seq})}\n\n"
    started = time.monotonic()
    while True:
        if notifier.closed:
            reason: EndReason | None = EndReason.CLOSING
        elif not lease.alive():
            reason = lease.ended
        elif time.monotonic() - started >= max_seconds:
            reason = EndReason.TIME
        else:
            reason = None
        if reason is not None:
            yield f"event: ended\ndata: {json.dumps({'reason': str(reason)})}\n\n"
            return
        counter = notifier.wait(table_id, seen_counter, poll, stop=lambda: lease.ended is not None)
        if lease.ended is not None:
            continue
        now_seq = last_seq()
        if counter != seen_counter or now_seq != seq:
            seen_counter, seq = counter, now_seq
            yield f"event: change\ndata: {json.dumps({'seq': seq})}\n\n"
        else:
            yield ": keepalive\n\n"


class StreamSlots:
    """Open live streams (events, camera) counted per device, per table and overall: each
    holds one of the server's threads for up to ten minutes, so a device may hold
    ``per_device``, one table's viewers ``per_table`` and all together ``total``; one table
    (however many devices joined it) cannot take the slots of the others, and the server's
    other threads keep answering pages.

    A stream belongs to its device: a device at its limit that opens one more (a new page;
    the page it left is known closed only once a write to it fails) takes the place of its
    own oldest stream (a camera picture only that of another camera picture). The streams
    of a device that left or was signed out end (``end_device``, and each stream's own check
    of ``joined``), and the slots of departed devices are taken back before a table or the
    server refuses anyone.
    """

    def __init__(self, per_device: int, total: int, per_table: int | None = None,
                 joined: Callable[[int], bool] | None = None, check_every: float = 1.0) -> None:
        self.per_device, self.total = per_device, total
        self.per_table = total if per_table is None else per_table
        self.joined = joined or (lambda _device_id: True)
        self.check_every = check_every
        self._open: list[Lease] = []
        self._opened = 0
        self._lock = threading.Lock()

    def acquire(self, key: StreamKey, kind: StreamKind = StreamKind.EVENTS) -> Lease:
        """Take a slot for ``key`` (a device at its limit gives up its oldest stream) or raise
        ``StreamLimit`` (with the reason)."""
        try:
            return self._take(key, kind)
        except StreamLimit:
            if not self._free_departed():
                raise
        return self._take(key, kind)

    def _take(self, key: StreamKey, kind: StreamKind) -> Lease:
        with self._lock:
            own = [lease for lease in self._open if lease.key.holder == key.holder]
            given_up = None
            if len(own) >= self.per_device:
                # the oldest (a page left is older than the pages open); a camera picture
                # never takes the place of a page's live updates
                mine = own if kind is StreamKind.EVENTS else [
                    lease for lease in own if lease.kind is StreamKind.CAMERA]
                given_up = min(mine, key=lambda lease: lease.order, default=None)
                if given_up is None:
                    raise StreamLimit(f"this device already has {self.per_device} live "
                                      "streams open (its pages' live updates); close a page")
            others = [lease for lease in self._open if lease is not given_up]
            if sum(lease.key.table_id == key.table_id for lease in others) >= self.per_table:
                raise StreamLimit(f"this table already has {self.per_table} live streams open "
                                  "(pages on its tablets and screen); close a page first")
            if len(others) >= self.total:
                raise StreamLimit("the table's computer has too many live streams open; "
                                  "try again in a moment")
            self._opened += 1
            lease = Lease(self, key, kind, self._opened)
            self._open = [*others, lease]
        if given_up is not None:
            given_up.end(EndReason.REPLACED)
        return lease

    def _free_departed(self) -> bool:
        """End the streams of devices no longer joined; whether any were found."""
        with self._lock:
            devices = {(lease.key.table_id, lease.key.device_id) for lease in self._open
                       if lease.key.device_id is not None}
        gone = [(table_id, device_id) for table_id, device_id in devices
                if device_id is not None and not self.joined(device_id)]
        for table_id, device_id in gone:
            self.end_device(table_id, device_id)
        return bool(gone)

    def end_device(self, table_id: int, device_id: int | None = None,
                   reason: EndReason = EndReason.LEFT) -> int:
        """End the streams of a device of the table (of all its devices: ``device_id`` None)
        and free their slots at once; how many were open."""
        with self._lock:
            ending = [lease for lease in self._open if lease.key.table_id == table_id
                      and lease.key.device_id is not None
                      and device_id in (None, lease.key.device_id)]
            self._open = [lease for lease in self._open if lease not in ending]
        for lease in ending:
            lease.end(reason)
        return len(ending)

    def release(self, lease: Lease) -> None:
        """Give the slot back (the stream ended or its page went away); once is enough."""
        with self._lock:
            self._open = [held for held in self._open if held is not lease]

    def open_count(self, key: StreamKey | None = None, table_id: int | None = None) -> int:
        """Open streams: of ``key``, of table ``table_id``, or all."""
        with self._lock:
            if key is not None:
                return sum(lease.key == key for lease in self._open)
            return sum(table_id is None or lease.key.table_id == table_id
                       for lease in self._open)

    def held(self, lease: Lease, stream: Iterator[Any]) -> _HeldStream:
        """``stream``, releasing ``lease``'s slot when it ends or is closed (the client went
        away), even if it never started."""
        return _HeldStream(lease, stream)


def stream_slots() -> StreamSlots:
    """The app's live-stream slots (``create_app`` makes them)."""
    from webui.table.parts import table_parts  # the parts hold this module's slots

    return table_parts().streams


class _HeldStream:
    """An iterator over a live stream that gives its slot back exactly once."""

    def __init__(self, lease: Lease, stream: Iterator[Any]) -> None:
        self._lease, self._stream = lease, stream
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
            self._lease.slots.release(self._lease)
            close = getattr(self._stream, "close", None)
            if close is not None:
                close()
