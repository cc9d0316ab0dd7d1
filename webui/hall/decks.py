"""The event's deck: one deck profile the director pushes to every table of the event (the same
deck under the same camera model), from a table's taught profile or an uploaded DECK.json.

The profile is checked whole before anything changes (its checksum, its format, its arrays,
and that it was fitted on the namer the tables ship with: ``vision.inference.deck``); a bad
one is refused with the reason and the event keeps the deck it had. A pushed deck is kept in
the event database's settings (``webui.common.event_deck``), where a table app running on the
event database reads it; each station's sync carries it into its table app's own database
(``deliver``), the way it carries the director's requests and seatings, and records which deck
that table app holds. The other way, the sync brings up the decks taught at its tables
(``bring_up``), listed for the director to push.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select

from webui.common.event_deck import (
    DeckText,
    DeckTextError,
    EventDeck,
    drop_deck,
    event_deck,
    event_deck_sum,
    hold_deck,
    plain_name,
    taught_deck,
)
from webui.common.refusal import Refusal
from webui.hall.schema import HallDeckHeld, HallStation, HallTableDeck
from webui.store import Store
from webui.store.db import TableRow, as_utc, commit_first


class DeckRefused(Refusal):
    """A deck profile the hall will not push (the event keeps its deck)."""


def checked(text: str, name: str) -> DeckText:
    """The profile file `text` (named `name`) when the tables can read with it, else
    DeckRefused saying why: not a profile, edited or corrupt (its checksum), incomplete, or
    fitted on another namer than the shipped one."""
    from vision.inference.deck import DeckProfileError, parse_profile
    from vision.inference.detector import check_shipped_namer

    try:
        profile = parse_profile(text, name)
        # no models where the hall runs: each table checks it when it reads with it
        with contextlib.suppress(OSError):
            check_shipped_namer(profile)
        return DeckText.of(text)
    except (DeckProfileError, DeckTextError) as exc:
        raise DeckRefused(f"{exc}; nothing was pushed, the event keeps its deck",
                          code="bad_deck") from None


def push(store: Store, text: str, name: str, source: str, director: str) -> EventDeck:
    """Make the profile `text` the event's deck for every table (checked first: `checked`)."""
    name = plain_name(name)
    deck = checked(text, name)
    pushed = EventDeck(name, text, deck.checksum, deck.cards, source, director,
                       datetime.now(UTC).isoformat())
    hold_deck(store, pushed)
    return pushed


def push_taught(store: Store, deck_id: int, director: str) -> EventDeck:
    """Push the deck taught at a synced table (its ``HallTableDeck`` id) to every table."""
    with store.Session() as s:
        row = s.get(HallTableDeck, deck_id)
        table = s.get(TableRow, row.table_id) if row is not None else None
    if row is None:
        raise DeckRefused("no such taught deck", code="not_found", status=404)
    where = table.name if table is not None else f"table {row.table_id}"
    return push(store, row.text, row.name, f"taught at {where}", director)


def withdraw(store: Store) -> EventDeck:
    """Push no deck any more: each table reads with its own taught deck, else the shipped
    models (its syncs take the event's deck away)."""
    held = event_deck(store)
    if held is None:
        raise DeckRefused("the event has no deck to withdraw")
    drop_deck(store)
    return held


# the sync's side ---------------------------------------------------------------------------

def deliver(local: Store, central: Store, origin: str) -> str:
    """Give the table app (`local`, syncing as `origin`) the event's deck when it does not
    hold it yet (or take it away when the event has none any more); record what it holds.
    Only the checksums are read on a pass that changes nothing; returns the checksum held
    ("": none)."""
    pushed = event_deck_sum(central)
    if pushed != event_deck_sum(local):
        deck = event_deck(central) if pushed else None
        if deck is None:
            drop_deck(local)
        else:
            hold_deck(local, deck)
    held = event_deck_sum(local)
    _record_held(central, origin, held)
    return held


def _record_held(central: Store, origin: str, checksum: str) -> None:
    for _ in range(3):  # a concurrent sync of the same origin may insert first
        with central.Session() as s:
            row = s.get(HallDeckHeld, origin)
            if row is not None and row.checksum == checksum:
                return
            if row is None:
                s.add(HallDeckHeld(origin=origin, checksum=checksum))
            else:
                row.checksum, row.held_at = checksum, datetime.now(UTC)
            if commit_first(s):
                return


def bring_up(local: Store, local_id: int, central: Store, origin: str, central_id: int) -> None:
    """Bring the deck taught at the table app's table `local_id` (the event database's
    `central_id`) up to the event database, when it is new or taught again."""
    taught = taught_deck(local, local_id)
    if taught is None:
        return
    for _ in range(3):  # a concurrent sync of the same table may insert first
        with central.Session() as s:
            row = s.scalar(select(HallTableDeck).where(HallTableDeck.origin == origin,
                                                       HallTableDeck.origin_table_id == local_id))
            if row is not None and row.checksum == taught.deck.checksum:
                return
            if row is None:
                row = HallTableDeck(origin=origin, origin_table_id=local_id)
                s.add(row)
            row.table_id, row.name, row.checksum = central_id, taught.name, taught.deck.checksum
            row.cards, row.text, row.taught_at = taught.deck.cards, taught.deck.text, \
                taught.taught_at
            if commit_first(s):
                return


# what the director's page shows --------------------------------------------------------------

@dataclass(frozen=True)
class TableDeckShown:
    """A deck taught at a table, as listed for pushing."""

    id: int
    table_id: int
    table: str
    name: str
    short: str
    cards: int
    taught_at: str
    pushed: bool  # it is the event's deck now


@dataclass(frozen=True)
class StationDeck:
    """Which deck a station's table app holds: the event's, another (an older push), none,
    or not known yet (it has not synced since decks were pushed)."""

    station: int
    holds: str  # "the event's deck", "an older deck", "no deck", "not synced yet"
    since: datetime | None


def table_decks(store: Store) -> list[TableDeckShown]:
    """The decks taught at synced tables, newest first."""
    current = event_deck_sum(store)
    with store.Session() as s:
        rows = list(s.scalars(select(HallTableDeck).order_by(HallTableDeck.taught_at.desc())))
        names = {t.id: t.name for t in s.scalars(select(TableRow).where(
            TableRow.id.in_([r.table_id for r in rows])))}
    return [TableDeckShown(r.id, r.table_id, names.get(r.table_id, f"table {r.table_id}"),
                           r.name, r.checksum[:12], r.cards, r.taught_at,
                           current == r.checksum)
            for r in rows]


def station_decks(store: Store) -> list[StationDeck]:
    """Every station and the deck its table app holds."""
    current = event_deck_sum(store)
    with store.Session() as s:
        stations = list(s.scalars(select(HallStation).order_by(HallStation.number)))
        held = {h.origin: h for h in s.scalars(select(HallDeckHeld))}
    out = []
    for station in stations:
        row = held.get(station.origin)
        if row is None:
            holds = "not synced yet"
        elif current and row.checksum == current:
            holds = "the event's deck"
        elif row.checksum:
            holds = "an older deck"
        else:
            holds = "no deck"
        out.append(StationDeck(station.number, holds,
                               as_utc(row.held_at) if row is not None else None))
    return out
