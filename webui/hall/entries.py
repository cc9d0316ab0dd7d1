"""The event's registration list (``hall_entries``): who is entered, from which round (a late
entry), and who withdrew (after which round). Every entered player has a row in the standings
from entry on, so the next round pairs them even before they have played; a withdrawn player
keeps the results they have and is paired no more."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sqlalchemy import select, update

from webui.common.refusal import Refusal
from webui.hall import roster
from webui.hall.draw import DrawError, clean_names
from webui.hall.players import player_key
from webui.hall.schema import HallEntry
from webui.store import Store
from webui.store.db import commit_first


class EntryError(Refusal):
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


def draw_entrants(store: Store, typed: list[str]) -> list[str]:
    """The blind draw's entrants from the registration list: every entry for round 1 that
    has not withdrawn (a no-show) when nothing is typed. A typed list must be those very
    players: a name that is not registered is caught (with the nearest registered name), and
    so is a registered player left out. With no registration list at all, the typed names
    (the draw enters them)."""
    listed = [e for e in entries(store) if e.from_round <= 1]
    names = [e.name for e in listed if e.active]
    try:
        cleaned = clean_names(typed)
    except DrawError as exc:
        raise EntryError(str(exc)) from None
    if not listed:
        return cleaned
    if not cleaned:
        return names
    by_key = {player_key(e.name): e for e in listed}
    unknown = [n for n in cleaned if player_key(n) not in by_key]
    if unknown:
        words = "; ".join(_not_registered(n, names) for n in unknown)
        raise EntryError(f"{words}. The draw takes the registration list: leave the entrants "
                         "empty to draw every registered player, enter a new player under "
                         "Entries first, or fix the name")
    gone = [n for n in cleaned if not by_key[player_key(n)].active]
    if gone:
        raise EntryError(f"{', '.join(gone)} withdrew (or did not show): not drawn")
    typed_keys = {player_key(n) for n in cleaned}
    missing = [n for n in names if player_key(n) not in typed_keys]
    if missing:
        raise EntryError(f"registered but not in this draw: {', '.join(missing)}. Leave the "
                         "entrants empty to draw every registered player, or mark a player "
                         "who did not come as a no-show under Entries")
    return [by_key[player_key(n)].name for n in cleaned]


def _not_registered(name: str, names: list[str]) -> str:
    near = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"{name!r} is not registered" + (f" (did you mean {near[0]!r}?)" if near else "")


def withdrawn(store: Store) -> set[int]:
    """The ids of withdrawn players (never paired again)."""
    return {e.player_id for e in entries(store) if not e.active}
