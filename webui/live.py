"""Live updates: a per-process notifier that server-sent-event streams wait on.

The store calls :meth:`Notifier.publish` after each commit; streams also poll the database's
last event number every few seconds, so several server processes still see each other's changes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator


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
