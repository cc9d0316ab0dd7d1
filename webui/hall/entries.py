"""The event's registration list (``hall_entries``): who is entered, from which round (a late
entry), and who withdrew (after which round). Every entered player has a row in the standings
from entry on, so the next round pairs them even before they have played; a withdrawn player
keeps the results they have and is paired no more."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from webui.hall import roster
from webui.hall.draw import DrawError, clean_names
from webui.hall.refusal import HallRefusal
from webui.hall.schema import HallEntry
from webui.store import Store
from webui.store.db import commit_first


class EntryError(HallRefusal):
    """An entry or withdrawal that cannot be made, with why."""


@dataclass(frozen=True)
class Entry:
    """An entered player: id, name shown, first round, withdrawn after which round."""

    player_id: int
    name: str
    from_round: int
    withdrawn_after: int | None

    @property
    def active(self) -> bool:
        return self.withdrawn_after is None


def enter(store: Store, names: list[str], from_round: int, by: str) -> list[Entry]:
    """Enter players (one name a line; an entered name is refused, a withdrawn one comes
    back); returns the new entries."""
    try:
        cleaned = clean_names(names)
    except DrawError as exc:
        raise EntryError(str(exc)) from None
    if not cleaned:
        raise EntryError("give at least one name")
    made = []
    for name in cleaned:
        pid = roster.player_id(store, name)
        with store.Session() as s:
            row = s.scalar(select(HallEntry).where(HallEntry.player_id == pid))
            if row is not None and row.withdrawn_after is None:
                raise EntryError(f"{name!r} is entered already")
            if row is None:
                s.add(HallEntry(player_id=pid, from_round=from_round, director=by[:80]))
                if not commit_first(s):
                    raise EntryError(f"{name!r} was just entered by another director")
            else:
                row.withdrawn_after = None
                s.commit()
        made.append(Entry(pid, name, from_round, None))
    return made


def ensure(store: Store, player_ids: list[int], from_round: int, by: str) -> None:
    """Enter these players unless they are entered (the draw enters its entrants)."""
    for pid in player_ids:
        with store.Session() as s:
            if s.scalar(select(HallEntry.id).where(HallEntry.player_id == pid)) is None:
                s.add(HallEntry(player_id=pid, from_round=from_round, director=by[:80]))
                commit_first(s)  # False: entered meanwhile by another director


def withdraw(store: Store, player_id: int, after_round: int) -> Entry:
    """Withdraw an entered player after ``after_round`` (not paired any more)."""
    with store.Session() as s:
        done = s.execute(update(HallEntry).where(
            HallEntry.player_id == player_id, HallEntry.withdrawn_after.is_(None))
            .values(withdrawn_after=after_round)).rowcount == 1
        s.commit()
    if not done:
        raise EntryError("this player is not entered (or withdrew already)")
    return next(e for e in entries(store) if e.player_id == player_id)


def entries(store: Store) -> list[Entry]:
    """Every entry, by name."""
    names = roster.player_names(store)
    with store.Session() as s:
        rows = list(s.scalars(select(HallEntry)))
    out = [Entry(r.player_id, names.get(r.player_id, f"player {r.player_id}"), r.from_round,
                 r.withdrawn_after) for r in rows]
    return sorted(out, key=lambda e: (e.name.casefold(), e.player_id))


def withdrawn(store: Store) -> set[int]:
    """The ids of withdrawn players (never paired again)."""
    return {e.player_id for e in entries(store) if not e.active}
