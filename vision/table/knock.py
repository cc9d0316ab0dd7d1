"""The knock/layoff watcher: who knocked, the defender's layoffs, the spreads settling.

The first player whose area holds a stable spread of three or more cards is the knocker. Cards
that appear in the knocker's area after the defender has started to spread are the defender's
layoffs. A `SpreadRead` is emitted whenever a player's stable reading changes, and a `TableRead`
(`spreads.read_spreads`) when every area is stable and it differs from the last one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from vision.table.events import Event, SpreadRead
from vision.table.grouping import SeenCard
from vision.table.spreads import Knock, read_spreads, spread_key
from vision.table.voting import VoteResult

MIN_SPREAD = 3  # a spread has at least one meld's worth of cards


class KnockWatcher:
    """Watches the spread areas from the knock on; see the module docstring."""

    def __init__(self, players: Sequence[str], stable_frames: int) -> None:
        self.players = list(players)
        self.stable_frames = stable_frames
        self.reset()

    def reset(self) -> None:
        """A new hand: nobody has knocked."""
        self.knocker: str | None = None
        self.knocker_own: frozenset[str] | None = None  # knocker's cards before the layoffs
        self._defender_frames = 0
        self._knocker_history: deque[frozenset[str]] = deque(maxlen=self.stable_frames + 2)
        self._emitted_spreads: dict[str, SpreadRead] = {}
        self._last_table: dict[str, Any] | None = None
        self._last_cards: set[str] | None = None

    def watch_knock(self, votes: Mapping[str, VoteResult]) -> bool:
        """True when this frame shows a knock (then `knocker` says who)."""
        ready = [p for p in self.players
                 if len(votes[p].cards) >= MIN_SPREAD and votes[p].stable_for >= self.stable_frames]
        if ready:
            # the knocker spreads first; if both appear at once, the fuller spread is the knocker's
            self.knocker = max(ready, key=lambda p: len(votes[p].cards))
        return bool(ready)

    def _watch_defender(self, regions: Mapping[str, Sequence[SeenCard]],
                        votes: Mapping[str, VoteResult]) -> None:
        """Freeze the knocker's own cards when the defender starts laying down.

        The knocker's voted cards from the frame before the defender's area filled (for
        ``stable_frames`` frames in a row) are the knocker's; anything added to the knocker's
        area afterwards is a layoff, even when laid at the same time as the defender's melds.
        """
        assert self.knocker is not None
        if any(regions[d] for d in self.players if d != self.knocker):
            self._defender_frames += 1
        else:
            self._defender_frames = 0
        self._knocker_history.append(votes[self.knocker].codes)
        if self._defender_frames >= self.stable_frames:
            before = -self._defender_frames - 1
            history = list(self._knocker_history)
            self.knocker_own = history[max(before, -len(history))]

    def watch_spreads(self, regions: Mapping[str, Sequence[SeenCard]],
                      votes: Mapping[str, VoteResult], up_card: str | None,
                      up_card_confidence: float) -> list[Event]:
        """The spread and table reads this frame causes (the areas are not all empty)."""
        assert self.knocker is not None
        if self.knocker_own is None:
            self._watch_defender(regions, votes)
        table = read_spreads({p: votes[p].cards for p in self.players}, votes=votes,
                             knock=Knock(self.knocker, up_card, up_card_confidence,
                                         self.knocker_own))
        events: list[Event] = []
        for player, spread in table.spreads.items():
            if not votes[player].stable_for >= self.stable_frames or not spread.cards:
                continue
            previous = self._emitted_spreads.get(player)
            if previous is not None and set(spread.cards) < set(previous.cards):
                continue  # cards only taken away: the table is being cleared, keep the reading
            if previous is None or spread_key(previous) != spread_key(spread):
                self._emitted_spreads[player] = spread
                events.append(spread)
        all_stable = all(v.stable_for >= self.stable_frames for v in votes.values())
        if all_stable and all(table.spreads[p].cards for p in self.players):
            key = {"spreads": {p: spread_key(s) for p, s in table.spreads.items()},
                   "problems": table.problems}
            cards = {c for s in table.spreads.values() for c in s.cards}
            clearing = self._last_cards is not None and cards < self._last_cards
            if key != self._last_table and not clearing:
                self._last_cards = cards
                self._last_table = key
                events.append(table)
        return events
