"""The deal watcher: the knock card, read from the tray's up-card slot at a fresh deal.

A card is the hand's knock card (`HandDealt`) only when it is the one card in the slot for
``stable_frames`` frames in a row, every spread area is empty in those frames, and the table was
seen cleared (slot and areas empty) before: a fresh deal, not a discard pile met mid-hand. Once
recorded it never changes during the hand, whatever is discarded on it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

import numpy as np

from vision.inference.detection import detected_card
from vision.table.events import HandDealt
from vision.table.grouping import SeenCard
from vision.table.layout import UP_CARD
from vision.table.voting import VoteResult

CLEARED_FRAMES = 2  # frames in a row with an empty slot and empty areas: the table was cleared


class DealWatcher:
    """Watches the up-card slot for a fresh deal; see the module docstring."""

    def __init__(self, players: Sequence[str], window: int, stable_frames: int) -> None:
        self.players = list(players)
        self.window = window
        self.stable_frames = stable_frames
        self._seen_cleared = False  # a cleared table (slot and areas empty) since the last deal
        self._cleared_streak = 0
        self.reset()

    def reset(self) -> None:
        """A new hand: no knock card yet (a cleared table seen before stays seen)."""
        self.up_card: str | None = None
        self.up_card_confidence = 1.0
        self._slot_history: deque[dict[str, float]] = deque(maxlen=self.window)
        self._alternatives: dict[str, str] = {}  # a slot card's latest runner-up reading

    def see_table(self, regions: Mapping[str, Sequence[SeenCard]],
                  votes: Mapping[str, VoteResult]) -> None:
        """Note whether this frame shows a cleared table (the slot and the areas empty)."""
        areas_clear = (not any(regions[p] for p in self.players)
                       or not any(votes[p].cards for p in self.players))
        if not regions[UP_CARD] and areas_clear:
            self._cleared_streak += 1
            if self._cleared_streak >= CLEARED_FRAMES:  # a cleared table, not a dropout:
                self._seen_cleared = True  # the next single up card is a deal
                self._slot_history.clear()  # and only what follows counts
        else:
            self._cleared_streak = 0

    def see_slot(self, slot: Sequence[SeenCard], settled: bool = False) -> None:
        """Remember the cards in the up-card slot in this frame (``settled``: the change gate
        saw the slot's picture hold since it was read: it counts for every frame it needs)."""
        reading = {c.card: c.confidence for c in slot}
        self._alternatives.update((c.card, c.alternative) for c in slot if c.alternative)
        for _ in range(self.stable_frames if settled else 1):
            self._slot_history.append(reading)

    def watch(self, votes: Mapping[str, VoteResult], index: int) -> HandDealt | None:
        """The deal, when this frame completes one (then `up_card` is the knock card)."""
        areas_empty = all(not votes[p].cards for p in self.players)  # voted: one stray misread
        if not areas_empty:  # in an area must not hide a deal, but spreads on the table do
            self._slot_history.clear()
            return None
        seen: dict[str, list[float]] = {}
        for reading in self._slot_history:
            for card, confidence in reading.items():
                seen.setdefault(card, []).append(confidence)
        # one card in the slot in most recent frames, and no second card there (a pile)
        steady = [c for c, confs in seen.items() if len(confs) >= self.stable_frames]
        others = [c for c, confs in seen.items() if len(confs) >= 2 and c not in steady]
        if not (self._seen_cleared and len(steady) == 1 and not others):
            return None
        single = steady[0]
        self.up_card = single
        self._seen_cleared = False
        self.up_card_confidence = float(np.mean(seen[single])) * len(seen[single]) / len(
            self._slot_history)
        alternative = self._alternatives.get(single)
        return HandDealt(up_card=detected_card(single), confidence=self.up_card_confidence,
                         frame_index=index,
                         alternative=detected_card(alternative) if alternative else None)
