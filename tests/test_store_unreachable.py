"""A PostgreSQL server that never answers (packets silently dropped) is given up on, not
waited for: the pages then say the database is unreachable (issue 27, a hall left by its
helper: no connect timeout). The "server" here accepts on loopback and never speaks."""

from __future__ import annotations

import socket
import threading

from sqlalchemy.exc import OperationalError

from webui.store.db import make_engine

HANG_GUARD = 120  # s: far above the 5 s connect timeout; only a hang reaches it


def test_a_silent_database_server_is_an_error_not_a_hang():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.5)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])  # and never answer
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            make_engine(f"postgresql://gintray@127.0.0.1:{server.getsockname()[1]}/event")
            outcome.append(None)
        except BaseException as exc:  # the test looks at it
            outcome.append(exc)

    try:
        trying = threading.Thread(target=connect, daemon=True)
        trying.start()
        trying.join(timeout=HANG_GUARD)
        assert not trying.is_alive(), "connecting to a silent server hangs"
        assert isinstance(outcome[0], OperationalError), outcome
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in accepted:
            conn.close()
        server.close()
