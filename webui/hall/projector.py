"""The public projector view of the event: the standings, the round clock and the current
round's tables with their score, read-only. It carries only what a player in the room may
see (names, results, the clock): no PINs, no sync details, no director's notes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webui.hall import awards, clock, pairing, roster, stations
from webui.hall.tournament import Standings, match_status
from webui.store import Store


@dataclass(frozen=True)
class ShownStanding:
    """A standings row as the room sees it."""

    rank: int
    name: str
    matches_won: int
    matches: int
    games_won: int
    games_lost: int
    difference: int


@dataclass(frozen=True)
class ShownTable:
    """A table of the current round: its name, both players, games won each, and whether it
    still plays."""

    name: str
    a: str
    b: str
    games_a: int
    games_b: int
    playing: bool


@dataclass(frozen=True)
class ShownClock:
    """The current round's clock: number, when it ends (for the page's countdown), the
    server's figure of the time left, and whether time is up."""

    number: int
    ends_at: str
    left: str
    over: bool


@dataclass(frozen=True)
class ProjectorView:
    """Everything on the projector."""

    standings: tuple[ShownStanding, ...]
    ranked_by: str
    clock: ShownClock | None
    stage: str | None
    tables: tuple[ShownTable, ...]
    byes: tuple[str, ...]

    @property
    def playing(self) -> int:
        return sum(t.playing for t in self.tables)


def _standing(row: dict[str, Any]) -> ShownStanding:
    return ShownStanding(row["rank"], row["name"], row["matches_won"], row["matches"],
                         row["games_won"], row["games_lost"], row["difference"])


def build(store: Store, ranked: Standings, at: datetime) -> ProjectorView:
    """The projector's view of the event now (``ranked``: the event's standings)."""
    current = clock.current_round(store)
    approved = pairing.approved(store)
    every = [t.id for t in store.tables()]
    tables = []
    scope = None if current is None else stations.round_scope(
        store, current, pairing.other_rounds_tables(approved, current.number))
    ids = every if scope is None else clock.round_tables(scope.clock, every, scope.others)
    settled = stations.settled_tables(store)  # a forfeit, an undone pairing: not playing
    for table_id in ids:
        state = store.state(table_id)
        won = match_status(state).games_won
        tables.append(ShownTable(state.name, state.players["A"], state.players["B"],
                                 won["A"], won["B"],
                                 clock.table_playing(state) and table_id not in settled))
    for seat in scope.waiting if scope else ():  # not at its table app yet: about to start
        tables.append(ShownTable(seat.seating.table_name, seat.a.name, seat.b.name, 0, 0,
                                 True))
    this_round = next((p for p in approved if current and p.round == current.number), None)
    shown_clock = None
    if current is not None:
        left = current.seconds_left(at)
        shown_clock = ShownClock(current.number, current.ends_at.isoformat(),
                                 clock.clock_text(left), left < 0)
    return ProjectorView(
        tuple(_standing(r) for r in ranked.rows), ranked.ranked_by, shown_clock,
        this_round.bracket.name if this_round and this_round.bracket else None,
        tuple(tables), _byes(store, current.number, this_round) if current else ())


def _byes(store: Store, number: int, planned: pairing.Planned | None) -> tuple[str, ...]:
    """The byes of round ``number``: as given (the draw's in round 1, a Swiss pairing's
    later) and a knockout pairing's (which only advance in its bracket)."""
    names = roster.player_names(store)
    given = {names.get(a.player_id, f"player {a.player_id}") for a in awards.awards(store)
             if a.kind is awards.AwardKind.BYE and a.round == number}
    return tuple(sorted(given | {b.name for b in (planned.byes if planned else ())}))
