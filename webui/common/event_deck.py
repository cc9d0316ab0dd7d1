"""The event's deck profile as both apps see it: the hall pushes one deck profile to every table
of the event (``webui.hall.decks``), the station's sync carries it into the table app's own
database (``EVENT_DECK_KEY``), and the table app's cameras read with it (``webui.table.
event_deck``). The other way, a deck taught at a table is recorded in the table app's database
(``record_taught``) and the sync brings it up, so the director can push it to the others.

A profile travels as its file's exact text (JSON with its own checksum, ``vision.inference.
deck``): whoever reads it checks that checksum again, so a copy damaged on the way is refused
where it is read. This module only carries it; it never parses the numbers.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from webui.store import Store

#: the event's deck in a table app's database (and in the event database, where the hall puts
#: it and where a table app running on the event database itself reads it)
EVENT_DECK_KEY = "hall_event_deck"
#: its checksum and when it arrived ("checksum@time"; empty: none), read on every sync pass and
#: camera check instead of the whole profile (some hundred kilobytes); written after the deck,
#: so it never names a deck that is not there yet
EVENT_DECK_SUM_KEY = "hall_event_deck_sum"
#: a deck taught at a table app's table (its local id follows)
TAUGHT_PREFIX = "taught_deck_"
NAME_MAX = 60


class DeckTextError(ValueError):
    """Text that is not a deck profile's file (no JSON object with a checksum and cards)."""


def plain_name(name: str) -> str:
    """A deck's name as shown and as a file name: its last path part, only letters, digits,
    dots, dashes and underscores, at most `NAME_MAX` characters ("deck.json" when nothing is
    left)."""
    last = re.split(r"[\\/]", str(name))[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip(".-")[:NAME_MAX]
    return cleaned or "deck.json"


@dataclass(frozen=True)
class DeckText:
    """A deck profile's file text with what is shown of it: its checksum and cards taught."""

    text: str
    checksum: str
    cards: int

    @staticmethod
    def of(text: str) -> DeckText:
        """The deck profile file `text`'s checksum and number of cards (DeckTextError when it
        has none); the numbers themselves are checked where the profile is read."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise DeckTextError(f"not readable JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("checksum"), str) \
                or not isinstance(data.get("cards"), list):
            raise DeckTextError("not a gintray deck profile")
        return DeckText(text, data["checksum"], len(data["cards"]))


@dataclass(frozen=True)
class EventDeck:
    """The deck the hall pushed to the event's tables: its name, file text, checksum and
    cards, where it came from, who pushed it and when (ISO UTC); at a table app also when it
    arrived there (``received_at``, ISO UTC)."""

    name: str
    text: str
    checksum: str
    cards: int
    source: str
    director: str
    pushed_at: str
    received_at: str = ""

    @property
    def short(self) -> str:
        return self.checksum[:12]

    @property
    def words(self) -> str:
        """``the event's deck "spring.json" (3f2a9c1d4e5f)``."""
        return f'the event\'s deck "{self.name}" ({self.short})'

    def to_text(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @staticmethod
    def from_text(text: str | None) -> EventDeck | None:
        if not text:
            return None
        try:
            data = json.loads(text)
            return EventDeck(**{k: str(data[k]) for k in ("name", "text", "checksum", "source",
                                                          "director", "pushed_at")},
                             cards=int(data["cards"]),
                             received_at=str(data.get("received_at", "")))
        except (ValueError, KeyError, TypeError):
            return None


def event_deck(store: Store) -> EventDeck | None:
    """The event's deck this database holds (None: none pushed)."""
    return EventDeck.from_text(store.get_setting(EVENT_DECK_KEY))


def event_deck_stamp(store: Store) -> str:
    """The event's deck this database holds, in short: its checksum and when it arrived
    ("checksum@time"; "": none)."""
    return store.get_setting(EVENT_DECK_SUM_KEY) or ""


def event_deck_sum(store: Store) -> str:
    """The checksum of the event's deck this database holds ("": none)."""
    return event_deck_stamp(store).split("@", 1)[0]


def hold_deck(store: Store, deck: EventDeck) -> EventDeck:
    """Keep `deck` as this database's event deck, stamped with when it arrived."""
    held = EventDeck(**{**asdict(deck), "received_at": datetime.now(UTC).isoformat()})
    store.set_setting(EVENT_DECK_KEY, held.to_text())
    store.set_setting(EVENT_DECK_SUM_KEY, f"{held.checksum}@{held.received_at}")
    return held


def drop_deck(store: Store) -> None:
    """Hold no event deck any more."""
    store.set_setting(EVENT_DECK_SUM_KEY, "")
    store.set_setting(EVENT_DECK_KEY, "")


@dataclass(frozen=True)
class TaughtDeck:
    """A deck taught at one of the table app's tables: its file's name and text, and when
    (ISO UTC)."""

    table_id: int
    name: str
    deck: DeckText
    taught_at: str


def record_taught(store: Store, table_id: int, name: str, text: str) -> TaughtDeck:
    """Record in the table app's database the deck just taught at its table `table_id` (the
    profile file's `name` and `text`), for the sync to bring up to the hall."""
    taught = TaughtDeck(table_id, plain_name(name), DeckText.of(text),
                        datetime.now(UTC).isoformat())
    store.set_setting(f"{TAUGHT_PREFIX}{table_id}", json.dumps(
        {"name": taught.name, "text": text, "taught_at": taught.taught_at}))
    return taught


def taught_deck(store: Store, table_id: int) -> TaughtDeck | None:
    """The deck last taught at the table app's table `table_id` (None: none, or unreadable)."""
    raw = store.get_setting(f"{TAUGHT_PREFIX}{table_id}")
    if not raw:
        return None
    try:
        data = json.loads(raw)
        return TaughtDeck(table_id, str(data["name"]), DeckText.of(str(data["text"])),
                          str(data["taught_at"]))
    except (ValueError, KeyError, TypeError):
        return None
