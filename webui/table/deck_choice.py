"""Which deck profile a table's camera reads with, and what the table screen says of it.

A table reads with the newest of: the deck taught at that table (its calibration page, saved
next to its layout) and the event's deck the hall pushed (``webui.common.event_deck``: the
station's sync puts it in this app's database; it is written out once as a file under
``layouts/event-decks/<checksum>/<name>``); with neither, with the deck the app was started
with (``gintray serve --deck``), else the shipped models alone. So a deck pushed to the whole
event replaces what the tables had, and a table taught again afterwards reads its own.

``EventDeckFollower`` looks at the database every few seconds and restarts the camera of each
table whose deck changed (a deck pushed, or withdrawn), so a push reaches a running table app.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Flask

from webui.common.durable import make_folder, write_atomically
from webui.common.event_deck import EventDeck, event_deck, event_deck_stamp
from webui.table.parts import table_parts

log = logging.getLogger(__name__)
EVENT_DECKS = "event-decks"  # the folder (under layouts/) of the decks the hall pushed
FOLLOW_SECONDS = 5.0  # how often the follower looks for a deck pushed or withdrawn


def table_deck_file(data_dir: Path, table_id: int) -> Path:
    """Where the deck profile taught at a table's calibration lies, next to its layout."""
    return Path(data_dir) / "layouts" / f"table-{table_id}.deck.json"


def event_deck_file(data_dir: Path, deck: EventDeck) -> Path:
    """Where the event's deck is written out for the cameras to read."""
    return Path(data_dir) / "layouts" / EVENT_DECKS / deck.short / deck.name


#: the event decks written out, by data folder and stamp: a look reads the stamp alone
_WRITTEN: dict[tuple[str, str], tuple[Path, EventDeck]] = {}


def _event_deck_path(app: Flask) -> tuple[Path, EventDeck] | None:
    """The event's deck this app holds, written out as its file (once), or None."""
    store = table_parts(app).store
    key = (str(app.config["DATA_DIR"]), event_deck_stamp(store))
    if not key[1]:
        return None
    known = _WRITTEN.get(key)
    if known is not None and known[0].is_file():
        return known
    deck = event_deck(store)
    if deck is None:
        return None
    path = event_deck_file(Path(app.config["DATA_DIR"]), deck)
    if not path.is_file():
        make_folder(path.parent)
        write_atomically(path, deck.text)
    _WRITTEN[key] = (path, deck)
    return path, deck


def _arrived(deck: EventDeck) -> float:
    try:
        return datetime.fromisoformat(deck.received_at or deck.pushed_at).timestamp()
    except ValueError:
        return 0.0


def deck_for(app: Flask, table_id: int) -> str | None:
    """The deck profile file a table's camera reads with (see the module's docstring)."""
    taught = table_deck_file(Path(app.config["DATA_DIR"]), table_id)
    event = _event_deck_path(app)
    if event is not None and (not taught.is_file()
                              or taught.stat().st_mtime < _arrived(event[1])):
        return str(event[0])
    return str(taught) if taught.is_file() else app.config["DECK"]


def deck_line(detector: Any, deck: str | None) -> str | None:
    """What the table screen says of the deck profile the detector reads with (None: the
    shipped models alone): the file's name, or the event's deck as the hall named it."""
    profile = getattr(getattr(detector, "namer", None), "deck", None)
    if profile is None or not deck:
        return None
    path = Path(deck)
    cards = (f"{len(profile.cards)} of the 52 cards taught, {len(profile.adapted)} read "
             "otherwise than shipped")
    if path.parent.parent.name == EVENT_DECKS:
        return f'the event\'s deck "{path.name}" ({path.parent.name}) from the hall, {cards}'
    return f"{path.name}, {cards}"


class EventDeckFollower:
    """Restarts a table's camera when the deck it should read with changed (`check`), every
    `FOLLOW_SECONDS` in a daemon thread once started."""

    def __init__(self, app: Flask, every: float = FOLLOW_SECONDS) -> None:
        self.app, self.every = app, every
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="event-deck", daemon=True)

    def check(self) -> list[int]:
        """Restart the cameras whose deck changed; the tables restarted."""
        from webui.table.camera_feed import start_camera

        restarted = []
        for table_id, feed in list(table_parts(self.app).cameras.items()):
            if feed.deck != deck_for(self.app, table_id):
                start_camera(self.app, table_id)
                restarted.append(table_id)
        return restarted

    def start(self) -> EventDeckFollower:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.check()
            except Exception:  # the database away for a moment: the next look tries again
                log.exception("looking for the event's deck failed")
