"""Voting a region's cards over the last few frames.

A card counts only when it is seen in a clear majority of the recent frames, so a misread in
one frame (a 6 read as a 9 under glare) or a card hidden for a moment by a hand neither adds a
wrong card nor drops a right one. Cards seen in some frames but not enough are reported as
uncertain and lower the region's confidence: people then check them on the tablet.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.grouping import SeenCard

UNCERTAIN_SHARE = 0.25  # a card seen in at least this share of frames (but too few) is flagged


@dataclass(frozen=True)
class VoteResult:
    """Accepted cards (with averaged positions), uncertain cards, confidence, stability."""

    cards: list[SeenCard]
    uncertain: dict[str, float]  # card -> share of frames it was seen in
    duplicates: list[str]  # cards seen twice in most frames
    confidence: float
    frames: int
    stable_for: int

    @property
    def codes(self) -> frozenset[str]:
        return frozenset(c.card for c in self.cards)


@dataclass
class RegionVoter:
    """Keeps the last ``window`` frames of one region and votes on them."""

    window: int = 7
    min_share: float = 0.6
    _frames: deque[list[SeenCard]] = field(default_factory=deque)
    _last_codes: frozenset[str] | None = None
    _stable_for: int = 0

    def clear(self) -> None:
        self._frames.clear()
        self._last_codes = None
        self._stable_for = 0

    def add(self, cards: Sequence[SeenCard]) -> VoteResult:
        """Add one frame's cards for this region and return the vote over the window."""
        self._frames.append(list(cards))
        while len(self._frames) > self.window:
            self._frames.popleft()
        result = self.vote()
        if result.codes == self._last_codes:
            self._stable_for += 1
        else:
            self._last_codes = result.codes
            self._stable_for = 1
        return VoteResult(result.cards, result.uncertain, result.duplicates, result.confidence,
                          result.frames, self._stable_for)

    def vote(self) -> VoteResult:
        """The vote over the frames currently held (stability not updated)."""
        n = len(self._frames)
        seen: dict[str, list[SeenCard]] = {}
        twice: dict[str, int] = {}
        for frame in self._frames:
            counts: dict[str, int] = {}
            for card in frame:
                counts[card.card] = counts.get(card.card, 0) + 1
            for code, count in counts.items():
                best = max((c for c in frame if c.card == code), key=lambda c: c.confidence)
                seen.setdefault(code, []).append(best)
                if count > 1:
                    twice[code] = twice.get(code, 0) + 1
        accepted: list[SeenCard] = []
        uncertain: dict[str, float] = {}
        for code, sightings in sorted(seen.items()):
            share = len(sightings) / n if n else 0.0
            if share >= self.min_share:
                center = np.mean([s.center for s in sightings], axis=0)
                # the fullest recent view of the card (a hand may hide one corner for a while)
                latest = max(reversed(sightings), key=lambda s: len(s.boxes))
                confidence = share * float(np.mean([s.confidence for s in sightings]))
                accepted.append(SeenCard(code, latest.boxes, confidence,
                                         (float(center[0]), float(center[1]))))
            elif share >= UNCERTAIN_SHARE:
                uncertain[code] = share
        duplicates = sorted(c for c, k in twice.items() if n and k / n >= self.min_share)
        confidence = min((c.confidence for c in accepted), default=1.0)
        if uncertain:
            confidence *= 1.0 - max(uncertain.values())
        return VoteResult(accepted, uncertain, duplicates, confidence, n, self._stable_for)
