"""Knockout pairing (pure functions, no database): the first round seeds the players into a
bracket (1 v N, 2 v N-1, ...; with a count that is not a power of two the top seeds get the
byes), and each later round pairs the winners of neighbouring places of the bracket, so the
top two seeds can meet only in the final."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from webui.hall.swiss import Entrant, Pair, PairingError, by_rank


@dataclass(frozen=True)
class Slot:
    """A place of the bracket in one round: ``a`` meets ``b``, or ``a`` has a bye (``b`` is
    None). ``a`` is the better seed."""

    a: Entrant
    b: Entrant | None = None

    @property
    def bye(self) -> bool:
        return self.b is None


@dataclass(frozen=True)
class KnockoutRound:
    """One round of the bracket: its places in bracket order (the winners of places 1 and 2
    meet next, then 3 and 4, ...). ``stage`` counts the knockout's rounds from 1."""

    stage: int
    slots: tuple[Slot, ...]

    @property
    def pairs(self) -> tuple[Pair, ...]:
        """The round's tables, table 1 for the best seed's match, then by the better seed."""
        meetings = sorted((s for s in self.slots if s.b is not None), key=lambda s: s.a.rank)
        return tuple(Pair(n, s.a, s.b) for n, s in enumerate(meetings, start=1)
                     if s.b is not None)

    @property
    def byes(self) -> tuple[Entrant, ...]:
        """The players through to the next round without playing, best seed first."""
        return tuple(sorted((s.a for s in self.slots if s.bye), key=lambda e: e.rank))

    @property
    def name(self) -> str:
        """``final``, ``semi-finals``, ``quarter-finals`` or ``round of 16`` (and so on)."""
        return stage_name(len(self.slots))


def stage_name(places: int) -> str:
    """The name of a round with ``places`` places in the bracket."""
    return {1: "final", 2: "semi-finals", 4: "quarter-finals"}.get(
        places, f"round of {2 * places}")


def bracket_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) in bracket order, so that the
    better seeds meet as late as possible: 8 gives 1, 8, 4, 5, 2, 7, 3, 6."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


def first_round(entrants: Sequence[Entrant]) -> KnockoutRound:
    """The first round from ``entrants`` seeded by ``rank`` (1 = best): 1 v N, 2 v N-1, ...;
    when N is not a power of two, the top seeds have byes up to the next power of two."""
    seeded = by_rank(entrants, "a knockout")
    size = 1
    while size < len(seeded):
        size *= 2
    order = bracket_order(size)
    slots = []
    for i in range(0, size, 2):
        better, worse = order[i], order[i + 1]
        slots.append(Slot(seeded[better - 1],
                          seeded[worse - 1] if worse <= len(seeded) else None))
    return KnockoutRound(1, tuple(slots))


def winners_of(previous: KnockoutRound, winners: Mapping[int, int]) -> list[Entrant]:
    """Who goes through from each place of ``previous``, in bracket order: the player with
    the bye, else the winner of the place's table (``winners``: table number of
    ``previous.pairs`` -> the winner's player id)."""
    tables = {frozenset((p.a.player_id, p.b.player_id)): p.table for p in previous.pairs}
    unfinished = [f"table {p.table} ({p.a.name} v {p.b.name})" for p in previous.pairs
                  if p.table not in winners]
    if unfinished:
        raise PairingError(f"{' and '.join(unfinished)} "
                           f"{'has' if len(unfinished) == 1 else 'have'} not finished")
    out: list[Entrant] = []
    for slot in previous.slots:
        if slot.b is None:
            out.append(slot.a)
            continue
        table = tables[frozenset((slot.a.player_id, slot.b.player_id))]
        if winners[table] not in (slot.a.player_id, slot.b.player_id):
            raise PairingError(f"table {table}'s winner is not one of its players")
        out.append(slot.a if winners[table] == slot.a.player_id else slot.b)
    return out


def next_round(previous: KnockoutRound, winners: Mapping[int, int]) -> KnockoutRound:
    """The round after ``previous``: the winners of neighbouring places meet (the better
    seed in seat A). After the final there is none."""
    if len(previous.slots) == 1:
        through = winners_of(previous, winners)[0]
        raise PairingError(f"the knockout is over: {through.name} won the final")
    through = winners_of(previous, winners)
    slots = []
    for first, second in zip(through[::2], through[1::2], strict=True):
        better, worse = sorted((first, second), key=lambda e: (e.rank, e.player_id))
        slots.append(Slot(better, worse))
    return KnockoutRound(previous.stage + 1, tuple(slots))
