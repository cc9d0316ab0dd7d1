"""The event's players with stable ids (``hall_players``): a player's id follows them from
table to table. A seat the hall opened from a pairing names its player's id
(``hall_seats``); any other seat is the player whose typed name has that identity
(``players.player_key``), registered on first sight. Results of a merged id count for the
id it was merged into (``merges``)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from webui.hall import merges
from webui.hall.players import player_key
from webui.hall.schema import HallPlayer, HallSeat
from webui.store import Store
from webui.store.db import commit_first
from webui.store.state import PLAYERS

Seats = dict[str, int]  # seat ("A"/"B") -> player id


def player_id(store: Store, name: str) -> int:
    """The id of the player with the typed ``name``'s identity (registered when new)."""
    key = player_key(name)
    for _ in range(2):  # a second process may register the same player at the same time
        with store.Session() as s:
            found = s.scalar(select(HallPlayer.id).where(HallPlayer.key == key))
            if found is not None:
                return found
            row = HallPlayer(key=key, name=" ".join(name.split())[:200])
            s.add(row)
            if commit_first(s):
                return row.id
    raise RuntimeError(f"cannot register player {name!r}")


def seat_players(s: Session, table_id: int, seats: Seats) -> None:
    """Record who sits where at a table the hall opens (in the caller's transaction)."""
    for seat, pid in seats.items():
        s.add(HallSeat(table_id=table_id, seat=seat, player_id=pid))


def table_players(store: Store, tables: Iterable[tuple[int, dict[str, str]]]
                  ) -> dict[int, Seats]:
    """Each table's seats as the player ids they count for: ``tables`` is (table id, seat ->
    typed name); a merged id gives the id it was merged into (``merges``)."""
    tables = list(tables)
    with store.Session() as s:
        seated: dict[int, Seats] = {}
        for row in s.scalars(select(HallSeat).where(
                HallSeat.table_id.in_([t for t, _ in tables]))):
            seated.setdefault(row.table_id, {})[row.seat] = row.player_id
        known = {p.key: p.id for p in s.scalars(select(HallPlayer))}
    merged = merges.merged_ids(store)
    out: dict[int, Seats] = {}
    for table_id, names in tables:
        seats = dict(seated.get(table_id, {}))
        for seat in PLAYERS:
            if seat not in seats:
                key = player_key(names[seat])
                if key not in known:
                    known[key] = player_id(store, names[seat])
                seats[seat] = known[key]
        out[table_id] = {seat: merges.counted_as(merged, pid) for seat, pid in seats.items()}
    return out


def player_names(store: Store) -> dict[int, str]:
    """Every registered player's shown name by id."""
    with store.Session() as s:
        return {p.id: p.name for p in s.scalars(select(HallPlayer))}
