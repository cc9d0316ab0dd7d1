"""The table reader: camera frames in, game events out.

:class:`TableReader` follows one table through a hand; it places the layout, votes each area
over the last ``window`` frames (:mod:`vision.table.voting`) and hands the result to two
watchers:

1. **Deal** (:class:`vision.table.deal.DealWatcher`). While no hand is running it watches the
   tray's up-card slot for a fresh deal; the card there is the hand's knock card
   (:class:`HandDealt`).
2. **Knock and spreads** (:class:`vision.table.knock.KnockWatcher`). The first player whose area
   holds a stable spread is the knocker; cards added to the knocker's area once the defender
   spreads are layoffs. A :class:`SpreadRead` is emitted whenever a player's stable reading
   changes, and a :class:`TableRead` (:func:`vision.table.spreads.read_spreads`: groups and the
   problems people must look at) when every area is stable.
3. **Next hand.** When the areas are empty again the reader waits for the next deal.

A live frame is read by region behind the change gate (:mod:`vision.table.regions`,
:mod:`vision.table.gate`): only the slot or area whose picture changed and settled is given to
the detector, the others keep their last reading, and a reading whose picture held is a
settled fact for the votes. :func:`read_image` reads one photo whole (no history) with the
same :func:`read_spreads`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from vision.inference.detection import Detection, Detections, detected_card
from vision.inference.mirror import MirrorSetting, read_oriented
from vision.table.camera import Camera, Frame
from vision.table.confirm import ReadBudget
from vision.table.deal import DealWatcher
from vision.table.events import (
    CameraBack,
    CameraLost,
    Event,
    FrameRead,
    HandDealt,
    SpreadRead,
    TableRead,
)
from vision.table.gate import Signature, has_changed
from vision.table.grouping import cards_from_detections, index_unit
from vision.table.knock import KnockWatcher
from vision.table.layout import UP_CARD, TableLayout
from vision.table.notes import NoteKind, Problem
from vision.table.regions import Region, RegionReader, RegionsRead, regions_of, same_regions
from vision.table.spreads import read_spreads, split_by_region
from vision.table.voting import RegionVoter


def read_detections(
    detections: Detections | Iterable[Detection],
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
            problems.append(Problem(NoteKind.UP_CARD_UNCLEAR,
                                    cards=tuple(detected_card(c.card) for c in slot),
                                    count=len(slot)))
    return read_spreads(regions, problems=problems, up_card=up_card, unit=unit, cards=cards)


def look(detector: Any, frame: Frame) -> FrameRead:
    """A frame of a camera without a layout (not calibrated): the cards seen, no events."""
    return FrameRead(frame.index, Detections.of(detector.detect(frame.image)))


class Onlooker:
    """Follows an uncalibrated camera: the cards seen, no events. The whole frame is one region
    behind the change gate (`RegionReader`): read when its picture changed and settled, read
    again in idle time, and what it shows is the vote of those reads (`vision.table.confirm`;
    the corners a minority of the reads found are the frame's ``doubts``)."""

    def __init__(self, detector: Any, budget: ReadBudget | None = None) -> None:
        self.detector = detector
        self.regions = RegionReader.for_detector(detector, budget)

    def look(self, frame: Frame) -> FrameRead:
        if self.regions is None:
            return look(self.detector, frame)
        h, w = frame.image.shape[:2]
        read = self.regions.read(frame.image, regions_of(None, w, h), now=frame.timestamp)
        return FrameRead(frame.index, read.detections, doubts=read.doubts)


def read_image(image: np.ndarray, layout: TableLayout | None, detector: Any,
               mirror: MirrorSetting = MirrorSetting.NO) -> TableRead:
    """Read one photo: detect the cards, place the layout (markers if any), group each area.

    The detector reads the photo as it is set to (`vision.inference.tiling.configured`, with
    the layout's `detector_settings()`: native-scale tiles when the camera asks for them).
    ``mirror``: read the photo as it is, its mirror image, or (``AUTO``) whichever shows more
    card (`vision.inference.mirror`); a layout is placed on the view read.
    """
    if image is None or not isinstance(image, np.ndarray) or image.ndim != 3:
        raise ValueError("read_image needs a BGR image (numpy array of shape HxWx3)")
    oriented = read_oriented(detector.detect, image, mirror)
    placed = layout.locate(oriented.image)[0] if layout is not None else None
    read = read_detections(oriented.detections, placed)
    return replace(read, mirrored=True) if oriented.mirrored else read


LAYOUT_TOLERANCE = 0.01  # of the frame's long side: a layout placed closer is the same layout


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
        budget: ReadBudget | None = None,
    ) -> None:
        self.detector = detector  # set to the camera by the caller (layout.detector_settings)
        self.layout = layout
        self.players = layout.players
        self.min_confidence = min_confidence
        self.relocate_every = max(1, relocate_every)
        self.voters = {p: RegionVoter(window=window, min_share=min_share) for p in self.players}
        self.deal = DealWatcher(self.players, window, stable_frames)
        self.knock = KnockWatcher(self.players, stable_frames)
        self._placed: TableLayout | None = None
        self._frames_seen = 0
        # only the regions that changed are read (vision/table/regions.py)
        self.regions = RegionReader.for_detector(detector, budget)
        self._region_boxes: list[Region] = []
        self._located: np.ndarray | None = None  # the signature of the frame last located
        # the regions the detector read in the last frame (as they settled, or idle re-reads)
        self.last_read: list[str] = []
        self._reset_hand()

    def _reset_hand(self) -> None:
        self.phase = "waiting_for_deal"
        self.deal.reset()
        self.knock.reset()
        for voter in self.voters.values():
            voter.clear()

    @property
    def up_card(self) -> str | None:
        """The hand's knock card (None until a deal is seen)."""
        return self.deal.up_card

    @property
    def knocker(self) -> str | None:
        return self.knock.knocker

    @property
    def knocker_own(self) -> frozenset[str] | None:
        """The knocker's cards before the defender's layoffs (None until the defender spreads)."""
        return self.knock.knocker_own

    def feed(self, frame: Frame | np.ndarray) -> FrameRead:
        """Read one camera frame: its detections in frame pixels and the events it causes."""
        image = frame.image if isinstance(frame, Frame) else frame
        index = frame.index if isinstance(frame, Frame) else self._frames_seen
        signature = Signature.of(image) if self.regions is not None else None
        if self._should_locate(signature):
            placed, by_markers = self.layout.locate(image)
            # markers hidden for a moment (a hand, a sleeve): keep where they were last seen
            if by_markers or self._placed is None or not self.layout.markers:
                self._placed = placed
        now = frame.timestamp if isinstance(frame, Frame) else None
        read = (RegionsRead(Detections.of(self.detector.detect(image)), {})
                if self.regions is None else self._read_regions(image, signature, now))
        events = self.feed_detections(read.detections, index, self._placed,
                                      frozenset(read.settled), read.doubts)
        return FrameRead(index, read.detections, tuple(events), read.doubts)

    def _should_locate(self, signature: Signature | None) -> bool:
        """Place the layout again: every ``relocate_every`` frames, and for a gated reader only
        when the picture changed since it was last placed (markers do not move by themselves).
        """
        if self._placed is None:
            changed = True
        elif signature is None:
            changed = self._frames_seen % self.relocate_every == 0
        else:
            changed = self._located is None or has_changed(self._located, signature.pixels)
        if changed and signature is not None:
            self._located = signature.pixels
        return changed

    def _read_regions(self, image: np.ndarray, signature: Signature | None,
                      now: float | None) -> RegionsRead:
        """The frame read by region: changed and settled or idle regions read (`RegionReader`)."""
        assert self.regions is not None and self._placed is not None
        h, w = image.shape[:2]
        boxes = regions_of(self._placed, w, h)
        if not same_regions(boxes, self._region_boxes, LAYOUT_TOLERANCE * max(w, h)):
            self.regions.forget()  # the layout moved (a bumped camera): read everything again
            self._region_boxes = boxes  # (markers found a pixel off are the same layout)
        read = self.regions.read(image, self._region_boxes, self._placed.region_of, signature,
                                 now)
        self.last_read = [*read.read, *read.reread]
        return read

    def feed_detections(self, detections: Detections | Iterable[Detection],
                        index: int | None = None,
                        layout: TableLayout | None = None,
                        settled: frozenset[str] = frozenset(),
                        doubts: Detections | Iterable[Detection] = ()) -> list[Event]:
        """Advance the state with one frame's detections (the layout already placed).

        ``settled``: the regions whose new reading is a settled fact (it fills the vote window);
        ``doubts``: corners a minority of a region's reads found (uncertain, never cards)."""
        self._frames_seen += 1
        index = self._frames_seen - 1 if index is None else index
        placed = layout or self.layout
        regions, doubted = (split_by_region(cards_from_detections(found, self.min_confidence)[0],
                                            placed) for found in (detections, doubts))
        votes = {p: self.voters[p].add(regions[p], p in settled, [c.card for c in doubted[p]])
                 for p in self.players}
        self.deal.see_table(regions, votes)
        events: list[Event] = []
        if self.phase == "spreading":
            if all(not v.cards for v in votes.values()):
                self._reset_hand()  # the votes already smooth a few frames: the table is cleared
            else:
                events += self.knock.watch_spreads(regions, votes, self.deal.up_card,
                                                   self.deal.up_card_confidence)
        self.deal.see_slot(regions[UP_CARD], UP_CARD in settled)
        if self.phase == "waiting_for_deal":
            dealt = self.deal.watch(votes, index)
            if dealt is not None:
                self.phase = "playing"
                events.append(dealt)
        if self.phase in {"playing", "waiting_for_deal"} and self.knock.watch_knock(votes):
            self.phase = "spreading"
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
            yield from self.feed(frame).events
        yield from camera.pop_events()


__all__ = [
    "CameraBack",
    "CameraLost",
    "FrameRead",
    "HandDealt",
    "Onlooker",
    "SpreadRead",
    "TableRead",
    "TableReader",
    "look",
    "read_detections",
    "read_image",
    "read_spreads",
    "split_by_region",
]
