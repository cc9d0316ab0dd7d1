"""Since when this hall cannot reach its event database.

The hall process remembers the first moment a request found PostgreSQL unreachable, and
forgets it at the next request that reached it. That moment cannot be kept in the database
(it is the database that is away), and it is what an open page says ("hall offline since
14:02:07 CET") while its live refresh gets 503s: the time of the first failure, not of the
page's latest try. The clock is injectable (tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from webui.store.db import utcnow


@dataclass(frozen=True)
class Outage:
    """The event database unreachable from ``since``; ``back_at`` once it answered again."""

    since: datetime
    back_at: datetime | None = None


class OfflineWatch:
    """The hall's current outage (None while the database answers) and its last one."""

    def __init__(self, clock: Callable[[], datetime] = utcnow) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self.current: Outage | None = None
        self.last: Outage | None = None

    def failed(self) -> Outage:
        """A request found the database away: the outage it is part of (begun now, or
        earlier)."""
        with self._lock:
            if self.current is None:
                self.current = Outage(self.clock())
            return self.current

    def answered(self) -> Outage | None:
        """A request reached the database: the outage that just ended, if any."""
        with self._lock:
            if self.current is None:
                return None
            self.last = Outage(self.current.since, self.clock())
            self.current = None
            return self.last
