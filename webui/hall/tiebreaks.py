"""How the standings rank players: matches won first, then the director's tie-breaks in the
director's order, then the name. The one place of the ranking rule; the order is kept in the
event database (setting ``hall_tiebreaks``)."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Protocol, TypeVar

from webui.common.refusal import Refusal
from webui.store import Store

SETTING_KEY = "hall_tiebreaks"


class TieBreak(enum.Enum):
    """A tie-break between players with as many matches won."""

    GAMES_WON = "games_won"
    GAMES_LOST = "games_lost"  # fewer is better
    DIFFERENCE = "difference"
    POINTS_FOR = "points_for"
    HEAD_TO_HEAD = "head_to_head"

    @property
    def label(self) -> str:
        return LABELS[self]


LABELS = {
    TieBreak.GAMES_WON: "games won",
    TieBreak.GAMES_LOST: "fewer games lost",
    TieBreak.DIFFERENCE: "point difference",
    TieBreak.POINTS_FOR: "points for",
    TieBreak.HEAD_TO_HEAD: "head-to-head",
}
DEFAULT_ORDER: tuple[TieBreak, ...] = (TieBreak.GAMES_WON, TieBreak.GAMES_LOST,
                                       TieBreak.DIFFERENCE)


class TieBreakError(Refusal):
    """An order of tie-breaks that cannot be used (an unknown one, one named twice)."""


class Record(Protocol):
    """What the ranking reads of a player's standing."""

    @property
    def player_id(self) -> int: ...
    @property
    def key(self) -> str: ...
    @property
    def matches_won(self) -> int: ...
    @property
    def games_won(self) -> int: ...
    @property
    def games_lost(self) -> int: ...
    @property
    def points_for(self) -> int: ...
    @property
    def difference(self) -> int: ...


R = TypeVar("R", bound=Record)


@dataclass(frozen=True)
class MatchWin:
    """A finished match between two players (ids): who won, who lost."""

    winner: int
    loser: int


def parse_order(values: Iterable[str]) -> tuple[TieBreak, ...]:
    """The tie-breaks as chosen on the form (empty choices skipped), checked."""
    order: list[TieBreak] = []
    for value in values:
        if not value:
            continue
        try:
            chosen = TieBreak(value)
        except ValueError:
            raise TieBreakError(f"no tie-break called {value!r}") from None
        if chosen in order:
            raise TieBreakError(f"{chosen.label} is chosen twice")
        order.append(chosen)
    return tuple(order)


def order_text(order: Sequence[TieBreak]) -> str:
    """The whole ranking rule in words: ``matches won, then games won, ..., then name``."""
    return ", then ".join(["matches won", *(t.label for t in order), "name"])


def load(store: Store) -> tuple[TieBreak, ...]:
    """The event's tie-break order (the default until a director sets one)."""
    raw = store.get_setting(SETTING_KEY)
    if raw is None:
        return DEFAULT_ORDER
    try:
        return parse_order(json.loads(raw))
    except (TieBreakError, ValueError, TypeError):
        return DEFAULT_ORDER


def save(store: Store, order: Sequence[TieBreak]) -> None:
    """Keep the event's tie-break order."""
    store.set_setting(SETTING_KEY, json.dumps([t.value for t in order]))


def _head_to_head(group: Sequence[Record], wins: Collection[MatchWin]) -> dict[int, int]:
    """Each player's match wins over the other players of ``group`` (those tied so far)."""
    ids = {r.player_id for r in group}
    out = dict.fromkeys(ids, 0)
    for w in wins:
        if w.winner in ids and w.loser in ids:
            out[w.winner] += 1
    return out


def _value(criterion: TieBreak | None, group: Sequence[Record],
           wins: Collection[MatchWin]) -> Callable[[Record], int]:
    """A player's figure under ``criterion`` (None: matches won) within ``group``; higher
    ranks first."""
    if criterion is TieBreak.HEAD_TO_HEAD:
        h2h = _head_to_head(group, wins)
        return lambda r: h2h[r.player_id]
    return {
        None: lambda r: r.matches_won,
        TieBreak.GAMES_WON: lambda r: r.games_won,
        TieBreak.GAMES_LOST: lambda r: -r.games_lost,
        TieBreak.DIFFERENCE: lambda r: r.difference,
        TieBreak.POINTS_FOR: lambda r: r.points_for,
    }[criterion]


def rank(records: Iterable[R], order: Sequence[TieBreak],
         wins: Collection[MatchWin] = ()) -> list[R]:
    """``records`` best first: matches won, then each tie-break of ``order`` among the
    players still tied (head-to-head counts only the matches between them), then the name
    (its identity, then the player id)."""
    groups: list[list[R]] = [sorted(records, key=lambda r: (r.key, r.player_id))]
    for criterion in (None, *order):
        refined: list[list[R]] = []
        for group in groups:
            if len(group) < 2:
                refined.append(group)
                continue
            value = _value(criterion, group, wins)
            ordered = sorted(group, key=lambda r: -value(r))  # stable: the name order stays
            refined += [list(run) for _, run in groupby(ordered, key=value)]
        groups = refined
    return [r for group in groups for r in group]
