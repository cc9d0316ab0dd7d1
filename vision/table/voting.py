"""Voting a region's cards over the last few frames.

A card counts once it is seen in a clear majority of the recent frames (``min_share``) and stays
counted until it is seen in fewer than ``KEEP_SHARE`` of them (hysteresis), so a misread in one
frame (a 6 read as a 9 under glare) or a card hidden for a moment by a hand neither adds a wrong
card nor drops a right one. Cards seen in some frames but not enough, for several frames in a
row, are reported as uncertain and lower the region's confidence: people check them on the
tablet.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.table.grouping import SeenCard

UNCERTAIN_SHARE = 0.25  # a card seen in at least this share of frames (but too few) is flagged
KEEP_SHARE = 0.35  # an accepted card stays accepted until seen in fewer than this share
DOUBT_SHARE = 0.5  # a card a minority of the reads of a still picture gave: half in doubt


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
    _accepted: frozenset[str] = frozenset()
    _doubt: dict[str, int] = field(default_factory=dict)  # card -> frames in a row uncertain
    _positions: dict[str, tuple[float, float]] = field(default_factory=dict)

    def clear(self) -> None:
        self._frames.clear()
        self._last_codes = None
        self._stable_for = 0
        self._accepted = frozenset()
        self._doubt = {}
        self._positions = {}

    def add(self, cards: Sequence[SeenCard], settled: bool = False,
            doubts: Sequence[str] = ()) -> VoteResult:
        """Add one frame's cards for this region and return the vote over the window.

        ``settled``: the change gate saw this region's picture hold since it was read (a
        confirmation, not a new read: `vision.table.gate`); the reading then fills the window,
        since every later frame would only repeat it until the picture changes again.
        ``doubts``: cards a minority of the reads of the region's still picture gave
        (`vision.table.confirm`): uncertain (`DOUBT_SHARE`) unless the vote accepts them.
        """
        if settled:
            self._frames.clear()
            self._frames.extend(list(cards) for _ in range(self.window))
        else:
            self._frames.append(list(cards))
        while len(self._frames) > self.window:
            self._frames.popleft()
        result = self.vote()
        for code in doubts:
            if code not in result.codes:
                result.uncertain.setdefault(code, DOUBT_SHARE)
        self._accepted = result.codes
        self._positions = {c.card: c.center for c in result.cards}
        self._doubt = {c: self._doubt.get(c, 0) + 1 for c in result.uncertain}
        persistent = {c: v for c, v in result.uncertain.items()
                      if self._doubt[c] >= max(2, self.window // 2 + 1)}
        confidence = min((c.confidence for c in result.cards), default=1.0)
        if persistent:
            confidence *= 1.0 - max(persistent.values())
        result = VoteResult(result.cards, persistent, result.duplicates, confidence,
                            result.frames, self._stable_for)
        if result.codes == self._last_codes:
            self._stable_for += 1
        else:
            self._last_codes = result.codes
            self._stable_for = 1
        return VoteResult(result.cards, result.uncertain, result.duplicates, result.confidence,
                          result.frames, self._stable_for)

    def vote(self) -> VoteResult:
        """The vote over the frames currently held (stability and doubt not updated)."""
        n = len(self._frames)
        per_frame: dict[str, list[list[SeenCard]]] = {}
        for frame in self._frames:
            by_code: dict[str, list[SeenCard]] = {}
            for card in frame:
                by_code.setdefault(card.card, []).append(card)
            for code, cards in by_code.items():
                per_frame.setdefault(code, []).append(cards)
        seen: dict[str, list[SeenCard]] = {}
        twice: dict[str, int] = {}
        for code, frames in per_frame.items():
            # where the card lies: where it was last voted, else its most confident sighting;
            # in each frame the sighting nearest to that place counts (a stray misread of the
            # same code elsewhere does not drag the card away)
            anchor = self._positions.get(code)
            if anchor is None:
                anchor = max((c for f in frames for c in f), key=lambda c: c.confidence).center
            seen[code] = [min(f, key=lambda c: _distance(c.center, anchor)) for f in frames]
            twice[code] = sum(len(f) > 1 for f in frames)
        accepted: list[SeenCard] = []
        uncertain: dict[str, float] = {}
        for code, sightings in sorted(seen.items()):
            share = len(sightings) / max(n, self.window)  # a short history counts as unseen
            needed = KEEP_SHARE if code in self._accepted else self.min_share
            if share >= needed:
                center = np.median([s.center for s in sightings], axis=0)
                # the fullest recent view of the card (a hand may hide one corner for a while)
                fullest = max(len(s.boxes) for s in sightings)
                latest = min((s for s in reversed(sightings) if len(s.boxes) == fullest),
                             key=lambda s: _distance(s.center, center))
                confidence = share * float(np.mean([s.confidence for s in sightings]))
                accepted.append(SeenCard(code, latest.boxes, confidence,
                                         (float(center[0]), float(center[1])),
                                         alternative=_steady_alternative(sightings)))
            elif share >= UNCERTAIN_SHARE:
                uncertain[code] = share
        duplicates = sorted(c for c, k in twice.items() if n and k / n >= self.min_share)
        confidence = min((c.confidence for c in accepted), default=1.0)
        if uncertain:
            confidence *= 1.0 - max(uncertain.values())
        return VoteResult(accepted, uncertain, duplicates, confidence, n, self._stable_for)


def _steady_alternative(sightings: Sequence[SeenCard]) -> str | None:
    """The other card this one may be, when at least half of its sightings said the same."""
    said = Counter(s.alternative for s in sightings if s.alternative)
    if not said:
        return None
    code, count = said.most_common(1)[0]
    return code if 2 * count >= len(sightings) else None


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))
