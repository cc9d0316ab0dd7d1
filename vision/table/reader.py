"""The table reader: camera frames in, game events out.

:class:`TableReader` follows one table through a hand:

1. **Deal.** While no hand is running it watches the tray's up-card slot. A card is recorded as
   the hand's knock card (:class:`HandDealt`) only when it is the one card in the slot for
   ``stable_frames`` frames in a row, every spread area is empty in those frames, and the
   table was seen cleared (slot and areas empty) before: a fresh deal, not a discard pile met
   mid-hand. Once recorded it never changes during the hand, whatever is discarded on it.
2. **Spreads.** The first player whose area holds a stable spread of three or more cards is the
   knocker. Each area is voted over the last ``window`` frames (:mod:`vision.table.voting`) and
   grouped into melds as laid down (:mod:`vision.table.grouping`); a :class:`SpreadRead` is emitted
   whenever a player's stable reading changes. Cards that appear in the knocker's area after the
   defender has started to spread are the defender's layoffs.
3. **Table read.** When every area is stable a :class:`TableRead` is emitted with the problems
   people must look at (card counts, duplicates, groups that are not melds, uncertain cards).
4. **Next hand.** When the areas are empty again for ``stable_frames`` frames the reader waits
   for the next deal.

:func:`read_image` reads one photo (no history): every card it sees, grouped per area.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from vision.table.camera import Camera, Frame
from vision.table.events import CameraBack, CameraLost, Event, HandDealt, SpreadRead, TableRead
from vision.table.grouping import (
    DetectionLike,
    SeenCard,
    cards_from_detections,
    clusters_of,
    group_cards,
    index_unit,
)
from vision.table.layout import UP_CARD, TableLayout
from vision.table.voting import RegionVoter, VoteResult

TABLE = "table"  # the single area used when no layout is given
MIN_SPREAD = 3  # a spread has at least one meld's worth of cards
HAND_SIZES = {10}  # cards each player owns at the end of a hand
KNOCKER_SIZES = {10, 11}  # 11 when the knocker goes big gin without discarding
CLEARED_FRAMES = 2  # frames in a row with an empty slot and empty areas: the table was cleared


def split_by_region(
    cards: Iterable[SeenCard], layout: TableLayout | None
) -> dict[str, list[SeenCard]]:
    """Cards per region ('up_card', each player; everything under 'table' without a layout)."""
    if layout is None:
        return {TABLE: list(cards)}
    regions: dict[str, list[SeenCard]] = {UP_CARD: [], **{p: [] for p in layout.players}}
    for card in cards:
        if layout.markers and all(layout.on_marker(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
                                  for b in card.boxes):
            continue  # a printed marker read as a card
        region = layout.region_of(card.center)
        if region is None:  # a card whose center is outside: use any of its corners
            region = next((r for b in card.boxes
                           if (r := layout.region_of(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)))),
                          None)
        if region is not None:
            regions[region].append(card)
    return regions


def _card_count_problem(player: str, count: int, allowed: set[int]) -> str | None:
    if count in allowed:
        return None
    expected = " or ".join(str(n) for n in sorted(allowed))
    return f"wrong_card_count: player {player} has {count} cards, expected {expected}"


def _spread(player: str, cards: Sequence[SeenCard], confidence: float,
            layoffs: Sequence[str] = (), unit: float | None = None) -> tuple[SpreadRead, list[str]]:
    grouping = group_cards(cards, unit)
    spread = SpreadRead(player=player, groups=grouping.groups, loose=grouping.loose,
                        confidence=confidence, layoffs=list(layoffs),
                        arranged_by_engine=grouping.arranged_by_engine)
    doubts = [f"doubtful_card: {c.card} may be {c.alternative}" for c in cards if c.alternative]
    return spread, [f"{p} (player {player})" for p in [*grouping.problems, *doubts]]


def read_detections(
    detections: Iterable[DetectionLike],
    layout: TableLayout | None = None,
    min_confidence: float = 0.25,
) -> TableRead:
    """Read one frame from its detections (no history): up card, each area's groups, problems."""
    cards, problems = cards_from_detections(detections, min_confidence)
    regions = split_by_region(cards, layout)
    unit = index_unit(b for c in cards for b in c.boxes)
    up_card = None
    if layout is not None:
        slot = regions.pop(UP_CARD)
        if len(slot) == 1:
            up_card = slot[0].card
        elif len(slot) > 1:
            problems.append(f"up_card_unclear: {len(slot)} cards in the up-card slot "
                            f"({' '.join(c.card for c in slot)})")
    spreads: dict[str, SpreadRead] = {}
    confidences = []
    for player, area_cards in regions.items():
        confidence = min((c.confidence for c in area_cards), default=1.0)
        confidences.append(confidence)
        spreads[player], spread_problems = _spread(player, area_cards, confidence, unit=unit)
        problems += spread_problems
    return TableRead(
        up_card=up_card,
        spreads=spreads,
        problems=problems,
        confidence=min(confidences, default=1.0),
        cards=[c.to_json() for c in cards],
    )


def read_image(image: np.ndarray, layout: TableLayout | None, detector: Any) -> TableRead:
    """Read one photo: detect the cards, place the layout (markers if any), group each area.

    The detector reads the photo as it is set to (`vision.inference.tiling.configured`, with
    the layout's `detector_settings()`: native-scale tiles when the camera asks for them).
    """
    if image is None or not isinstance(image, np.ndarray) or image.ndim != 3:
        raise ValueError("read_image needs a BGR image (numpy array of shape HxWx3)")
    placed = layout.locate(image)[0] if layout is not None else None
    return read_detections(detector.detect(image), placed)


class TableReader:
    """Follows one table frame by frame and emits events (see module docstring)."""

    def __init__(
        self,
        detector: Any,
        layout: TableLayout,
        *,
        window: int = 5,
        stable_frames: int = 3,
        min_share: float = 0.6,
        min_confidence: float = 0.25,
        relocate_every: int = 1,
    ) -> None:
        self.detector = detector  # set to the camera by the caller (layout.detector_settings)
        self.layout = layout
        self.players = layout.players
        self.window = window
        self.stable_frames = stable_frames
        self.min_confidence = min_confidence
        self.relocate_every = max(1, relocate_every)
        self.voters = {p: RegionVoter(window=window, min_share=min_share) for p in self.players}
        self._placed: TableLayout | None = None
        self._frames_seen = 0
        #: the last frame's detections in frame pixels (the detector's tiles merged), for drawing
        self.last_detections: list[Any] = []
        self._seen_cleared = False  # a cleared table (slot and areas empty) since the last deal
        self._cleared_streak = 0
        self._reset_hand()

    # -- state -------------------------------------------------------------------------------
    def _reset_hand(self) -> None:
        self.phase = "waiting_for_deal"
        self.up_card: str | None = None
        self.up_card_confidence = 1.0
        self.knocker: str | None = None
        self.knocker_own: frozenset[str] | None = None  # knocker's cards before the layoffs
        self._slot_history: deque[dict[str, float]] = deque(maxlen=self.window)
        self._defender_frames = 0
        self._knocker_history: deque[frozenset[str]] = deque(maxlen=self.stable_frames + 2)
        self._emitted_spreads: dict[str, SpreadRead] = {}
        self._last_table: dict[str, Any] | None = None
        self._last_cards: set[str] | None = None
        for voter in self.voters.values():
            voter.clear()

    # -- input -------------------------------------------------------------------------------
    def feed(self, frame: Frame | np.ndarray) -> list[Event]:
        """Read one camera frame; return the events it causes (often none)."""
        image = frame.image if isinstance(frame, Frame) else frame
        index = frame.index if isinstance(frame, Frame) else self._frames_seen
        if self._placed is None or self._frames_seen % self.relocate_every == 0:
            placed, by_markers = self.layout.locate(image)
            # markers hidden for a moment (a hand, a sleeve): keep where they were last seen
            if by_markers or self._placed is None or not self.layout.markers:
                self._placed = placed
        self.last_detections = list(self.detector.detect(image))
        return self.feed_detections(self.last_detections, index, self._placed)

    def feed_detections(self, detections: Iterable[DetectionLike], index: int | None = None,
                        layout: TableLayout | None = None) -> list[Event]:
        """Advance the state with one frame's detections (the layout already placed)."""
        self._frames_seen += 1
        index = self._frames_seen - 1 if index is None else index
        cards, _ = cards_from_detections(detections, self.min_confidence)
        regions = split_by_region(cards, layout or self.layout)
        votes = {p: self.voters[p].add(regions[p]) for p in self.players}
        areas_clear = (not any(regions[p] for p in self.players)
                       or not any(votes[p].cards for p in self.players))
        if not regions[UP_CARD] and areas_clear:
            self._cleared_streak += 1
            if self._cleared_streak >= CLEARED_FRAMES:  # a cleared table, not a dropout:
                self._seen_cleared = True  # the next single up card is a deal
                self._slot_history.clear()  # and only what follows counts
        else:
            self._cleared_streak = 0
        events: list[Event] = []
        if self.phase == "spreading":
            events += self._watch_spreads(regions, votes)
        self._slot_history.append({c.card: c.confidence for c in regions[UP_CARD]})
        if self.phase == "waiting_for_deal":
            events += self._watch_deal(votes, index)
        if self.phase in {"playing", "waiting_for_deal"}:
            self._watch_knock(votes)
        return events

    def follow(self, camera: Camera, max_idle: int | None = None) -> Iterator[Event]:
        """Read frames from ``camera`` until it finishes, yielding camera and game events.

        ``max_idle`` stops after that many reads in a row without a frame (None: never).
        """
        idle = 0
        while not camera.finished:
            frame = camera.read()
            yield from camera.pop_events()
            if frame is None:
                idle += 1
                if max_idle is not None and idle >= max_idle:
                    return
                continue
            idle = 0
            yield from self.feed(frame)
        yield from camera.pop_events()

    # -- rules -------------------------------------------------------------------------------
    def _watch_deal(self, votes: dict[str, VoteResult], index: int) -> list[Event]:
        areas_empty = all(not votes[p].cards for p in self.players)  # voted: one stray misread
        if not areas_empty:  # in an area must not hide a deal, but spreads on the table do
            self._slot_history.clear()
            return []
        seen: dict[str, list[float]] = {}
        for reading in self._slot_history:
            for card, confidence in reading.items():
                seen.setdefault(card, []).append(confidence)
        # one card in the slot in most recent frames, and no second card there (a pile)
        steady = [c for c, confs in seen.items() if len(confs) >= self.stable_frames]
        others = [c for c, confs in seen.items() if len(confs) >= 2 and c not in steady]
        if self._seen_cleared and len(steady) == 1 and not others:
            single = steady[0]
            self.up_card = single
            self._seen_cleared = False
            self.up_card_confidence = float(np.mean(seen[single])) * len(seen[single]) / len(
                self._slot_history)
            self.phase = "playing"
            return [HandDealt(up_card=single, confidence=self.up_card_confidence,
                              frame_index=index)]
        return []

    def _watch_knock(self, votes: dict[str, VoteResult]) -> None:
        ready = [p for p in self.players
                 if len(votes[p].cards) >= MIN_SPREAD and votes[p].stable_for >= self.stable_frames]
        if ready:
            # the knocker spreads first; if both appear at once, the fuller spread is the knocker's
            self.knocker = max(ready, key=lambda p: len(votes[p].cards))
            self.phase = "spreading"

    def _watch_defender(self, regions: dict[str, list[SeenCard]], votes: dict[str, VoteResult],
                        defenders: list[str]) -> None:
        """Freeze the knocker's own cards when the defender starts laying down.

        The knocker's voted cards from the frame before the defender's area filled (for
        ``stable_frames`` frames in a row) are the knocker's; anything added to the knocker's
        area afterwards is a layoff, even when laid at the same time as the defender's melds.
        """
        assert self.knocker is not None
        if any(regions[d] for d in defenders):
            self._defender_frames += 1
        else:
            self._defender_frames = 0
        self._knocker_history.append(votes[self.knocker].codes)
        if self._defender_frames >= self.stable_frames:
            before = -self._defender_frames - 1
            history = list(self._knocker_history)
            self.knocker_own = history[max(before, -len(history))]

    def _watch_spreads(self, regions: dict[str, list[SeenCard]],
                       votes: dict[str, VoteResult]) -> list[Event]:
        assert self.knocker is not None
        if all(not v.cards for v in votes.values()):
            self._reset_hand()  # the votes already smooth a few frames: the table is cleared
            return []
        defenders = [p for p in self.players if p != self.knocker]
        if self.knocker_own is None:
            self._watch_defender(regions, votes, defenders)
        events: list[Event] = []
        self._unit = index_unit(b for v in votes.values() for c in v.cards for b in c.boxes)
        spreads, problems = self._current_spreads(votes)
        for player, spread in spreads.items():
            if not votes[player].stable_for >= self.stable_frames or not spread.cards:
                continue
            previous = self._emitted_spreads.get(player)
            if previous is not None and set(spread.cards) < set(previous.cards):
                continue  # cards only taken away: the table is being cleared, keep the reading
            if previous is None or _spread_key(previous) != _spread_key(spread):
                self._emitted_spreads[player] = spread
                events.append(spread)
        all_stable = all(v.stable_for >= self.stable_frames for v in votes.values())
        if all_stable and all(spreads[p].cards for p in self.players):
            table = TableRead(
                up_card=self.up_card,
                spreads=spreads,
                problems=problems,
                confidence=min([self.up_card_confidence,
                                *(s.confidence for s in spreads.values())]),
                knocker=self.knocker,
                cards=[c.to_json() for v in votes.values() for c in v.cards],
            )
            key = {"spreads": {p: _spread_key(s) for p, s in spreads.items()},
                   "problems": problems}
            cards = {c for s in spreads.values() for c in s.cards}
            clearing = self._last_cards is not None and cards < self._last_cards
            if key != self._last_table and not clearing:
                self._last_cards = cards
                self._last_table = key
                events.append(table)
        return events

    def _current_spreads(self, votes: dict[str, VoteResult]) -> tuple[dict[str, SpreadRead],
                                                                      list[str]]:
        assert self.knocker is not None
        problems: list[str] = []
        if self.up_card is None:
            problems.append("up_card_unknown: the deal was not seen; enter the knock card")
        knocker_cards = votes[self.knocker].cards
        layoffs: list[SeenCard] = []
        if self.knocker_own is not None:
            layoffs = [c for c in knocker_cards if c.card not in self.knocker_own]
            own = [c for c in knocker_cards if c.card in self.knocker_own]
            for cluster in clusters_of(knocker_cards, self._unit):
                codes = {c.card for c in cluster}
                loose_layoffs = [c for c in layoffs if c.card in codes]
                if loose_layoffs and not codes & self.knocker_own:
                    problems.append("layoff_not_on_meld: " + " ".join(
                        c.card for c in loose_layoffs) + f" lies apart from {self.knocker}'s melds")
            knocker_cards = own
        spreads: dict[str, SpreadRead] = {}
        seen_in: dict[str, str] = {}
        for player in self.players:
            vote = votes[player]
            cards = knocker_cards if player == self.knocker else vote.cards
            player_layoffs = ([c.card for c in layoffs]
                              if player != self.knocker and len(self.players) == 2 else [])
            spread, spread_problems = _spread(player, cards, vote.confidence, player_layoffs,
                                              self._unit)
            spreads[player] = spread
            problems += spread_problems
            for code in vote.duplicates:
                problems.append(f"duplicate_card: {code} is seen twice in {player}'s area")
            for code, share in vote.uncertain.items():
                problems.append(f"uncertain_card: {code} in {player}'s area is seen in only "
                                f"{share:.0%} of recent frames")
            for code in spread.cards:
                if code in seen_in and seen_in[code] != player:
                    problems.append(f"duplicate_card: {code} is in both {seen_in[code]}'s "
                                    f"and {player}'s spread")
                seen_in[code] = player
            allowed = KNOCKER_SIZES if player == self.knocker else HAND_SIZES
            problem = _card_count_problem(player, len(spread.cards), allowed)
            if problem:
                problems.append(problem)
        return spreads, problems


def _spread_key(spread: SpreadRead) -> tuple[Any, ...]:
    return (tuple(tuple(g) for g in spread.groups), tuple(spread.loose), tuple(spread.layoffs))


__all__ = [
    "CameraBack",
    "CameraLost",
    "HandDealt",
    "SpreadRead",
    "TableRead",
    "TableReader",
    "read_detections",
    "read_image",
    "split_by_region",
]
