"""Read a live table by region: only what changed, where it changed.

The calibrated layout knows where cards can be: the up-card slot and each player's area. A
`RegionReader` cuts each region's box (with a margin, so a corner index on its edge is whole)
from the full-resolution frame, asks the change gate (`vision.table.gate.RegionGate`) whether
its picture changed and settled, reads only those regions with the detector (its scale policy
works inside the crop, so a 4K camera costs what its card areas cost), and reuses the last
reading of every other region. The frame's detections are the regions' readings together, in
frame pixels, each detection kept by the region it lies in.

An uncalibrated camera is one region, the whole frame, gated the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.inference.card_face import MIN_FACE_SHARE, card_face_share, white_mask
from vision.inference.detection import Detection, Detections
from vision.inference.exposure import normalise_light
from vision.table.confirm import (
    CONFIRM_READS,
    PictureRead,
    ReadBudget,
    ReadHistory,
    reread_share,
)
from vision.table.gate import SIGNATURE_SIDE, Box, Change, RegionGate, Signature
from vision.table.layout import UP_CARD, TableLayout

WHOLE_FRAME = "table"  # the one region of an uncalibrated camera
REGION_MARGIN = 0.04  # of the frame's long side, around each region's box


@dataclass(frozen=True)
class Region:
    """A named part of the frame the detector reads on its own: ``box`` is read (the region
    grown by a margin), ``core`` is watched by the gate (the region alone: a neighbour's change
    in the margin is not this region's)."""

    name: str
    box: Box
    core: Box
    polygon: tuple[tuple[float, float], ...] = ()  # the region's outline (none: all of core)

    def watched(self, signature: Signature) -> np.ndarray:
        """The signature pixels the gate compares: the core, outside the outline blanked (a
        tilted layout's bounding boxes overlap; a neighbour's change is not this region's)."""
        cut = signature.cut(self.core)
        if not self.polygon:
            return cut
        x1, y1 = (max(0, round(v * signature.scale)) for v in self.core[:2])
        outline = np.round(np.asarray(self.polygon) * signature.scale - (x1, y1))
        mask = np.zeros(cut.shape, np.uint8)
        cv2.fillPoly(mask, [outline.astype(np.int32)], 1)
        return cut * mask


def regions_of(layout: TableLayout | None, width: int, height: int) -> list[Region]:
    """The regions of a frame: the placed layout's slot and areas (bounding boxes grown by
    `REGION_MARGIN`, clipped to the frame), or the whole frame without a layout."""
    if layout is None:
        return [Region(WHOLE_FRAME, (0, 0, width, height), (0, 0, width, height))]
    margin = REGION_MARGIN * max(width, height)
    polygons = {UP_CARD: layout.up_card_slot, **layout.areas}
    regions = []
    for name, polygon in polygons.items():
        points = np.asarray(polygon, np.float64)
        core = _clipped(points.min(axis=0), points.max(axis=0), width, height)
        box = _clipped(points.min(axis=0) - margin, points.max(axis=0) + margin, width, height)
        if core[2] - core[0] >= 2 and core[3] - core[1] >= 2:  # a region off the frame: unread
            regions.append(Region(name, box, core,
                                  tuple((float(x), float(y)) for x, y in polygon)))
    return regions


def _clipped(low: np.ndarray, high: np.ndarray, width: int, height: int) -> Box:
    return (max(0, int(np.floor(low[0]))), max(0, int(np.floor(low[1]))),
            min(width, int(np.ceil(high[0]))), min(height, int(np.ceil(high[1]))))


def same_regions(these: list[Region], those: list[Region], tolerance: float) -> bool:
    """True when two placements of the regions differ by at most ``tolerance`` pixels at any
    box edge (markers found again a pixel off place the same layout)."""
    return [r.name for r in these] == [r.name for r in those] and all(
        max(abs(a - b) for a, b in zip(r.box, q.box, strict=True)) <= tolerance
        for r, q in zip(these, those, strict=True))


def read_region(detector: Any, image: np.ndarray, box: Box) -> Detections:
    """The detector's reading of one box of the frame, in frame pixels."""
    x1, y1, x2, y2 = box
    found = Detections.of(detector.detect(image[y1:y2, x1:x2]))
    return Detections([d.moved((d.box[0] + x1, d.box[1] + y1, d.box[2] + x1, d.box[3] + y1))
                       for d in found])


@dataclass(frozen=True)
class RegionsRead:
    """One frame read by region: the detections (frame pixels), what the gate made of each
    region (the regions read are those whose change `reads`), the regions read again while
    settled (`vision.table.confirm`), the regions whose shown reading changed and the doubts
    (corners a minority of a region's reads found: never cards)."""

    detections: Detections
    changes: dict[str, Change]
    reread: tuple[str, ...] = ()
    renamed: tuple[str, ...] = ()
    doubts: Detections = field(default_factory=Detections)

    @property
    def read(self) -> list[str]:
        return [name for name, change in self.changes.items() if change.reads]

    @property
    def settled(self) -> list[str]:
        """Regions whose new reading is a settled fact: read as they settled, or shown
        otherwise after the reads of their still picture voted again."""
        return [name for name in self.changes if name in self.renamed or
                self.changes[name].reads]


@dataclass
class _FaceCheck:
    """Whether a card face lies around a box of ``image`` (`card_face`, on the frame with its
    light normalised as the detector sees it), the card white found once, when first asked, on
    the frame shrunk as the gate's signature is (`SIGNATURE_SIDE`: about 1 ms, not 7, at
    960x540)."""

    image: np.ndarray
    _white: np.ndarray | None = None
    _scale: float = 1.0

    def __call__(self, box: tuple[float, float, float, float]) -> bool:
        if self._white is None:
            h, w = self.image.shape[:2]
            self._scale = min(1.0, SIGNATURE_SIDE / max(h, w))
            small = self.image if self._scale == 1.0 else cv2.resize(
                self.image, (max(1, round(w * self._scale)), max(1, round(h * self._scale))),
                interpolation=cv2.INTER_AREA)
            self._white = white_mask(normalise_light(small))
        scaled = (box[0] * self._scale, box[1] * self._scale, box[2] * self._scale,
                  box[3] * self._scale)
        return card_face_share(self._white, scaled) >= MIN_FACE_SHARE


@dataclass
class RegionReader:
    """Reads the regions of live frames through the change gate (see the module docstring),
    and re-reads settled regions in idle time, round robin within ``budget``; what a region
    shows is the vote of its last reads (`vision.table.confirm`)."""

    detector: Any
    gate: RegionGate = field(default_factory=RegionGate)
    budget: ReadBudget = field(default_factory=lambda: ReadBudget(reread_share()))
    _histories: dict[str, ReadHistory] = field(default_factory=dict)
    _confirmations: dict[str, int] = field(default_factory=dict)  # re-reads of a still picture
    _turn: int = 0  # the round robin's next region
    _before: Signature | None = None  # the previous frame's signature

    @classmethod
    def for_detector(cls, detector: Any, budget: ReadBudget | None = None
                     ) -> RegionReader | None:
        """A region reader for a detector that reads crops (`CardDetector.reads_regions`);
        None for test doubles that answer whole frames (they are asked every frame)."""
        if not getattr(detector, "reads_regions", False):
            return None
        return cls(detector) if budget is None else cls(detector, budget=budget)

    def read(self, image: np.ndarray, regions: list[Region],
             owner: Callable[[tuple[float, float]], str | None] | None = None,
             signature: Signature | None = None, now: float | None = None) -> RegionsRead:
        """The frame's detections, each region read or reused as the gate says, and one
        settled region re-read when the budget allows.

        ``owner`` names the region a point lies in (the placed layout's `region_of`): a region
        keeps only the detections that lie in it (its margin shows its neighbours' edges).
        ``now``: the frame's camera time in seconds (None: no idle re-reads).
        """
        signature = signature or Signature.of(image)
        self.budget.earn(now)
        changes = {region.name: self.gate.decide(region.name, region.watched(signature))
                   for region in regions}
        for region in regions:
            if changes[region.name].reads:
                self._confirmations[region.name] = 0
                self._add_read(image, region, owner, signature)
            elif changes[region.name] is Change.MOVING:
                self._confirmations[region.name] = 0
        reread = self._reread(image, regions, changes, owner, signature)
        rereads = self.budget.share > 0 and now is not None  # more reads of a still picture
        faces = _FaceCheck(image)
        kept: list[Detection] = []
        doubts: list[Detection] = []
        renamed: list[str] = []
        for region in regions:
            history = self._histories.setdefault(region.name, ReadHistory())
            before = history.shown.detections
            shown = history.shown
            if changes[region.name] is not Change.UNCHANGED or region.name in reread:
                shown = history.consensus(signature, faces, rereads)  # unchanged: as it was
            if shown.detections != before:
                renamed.append(region.name)
            kept.extend(shown.detections)
            doubts.extend(shown.doubts)
        self._before = signature
        return RegionsRead(Detections(kept).best_first(), changes, reread, tuple(renamed),
                           Detections(doubts).best_first())

    def _add_read(self, image: np.ndarray, region: Region,
                  owner: Callable[[tuple[float, float]], str | None] | None,
                  signature: Signature, found: Detections | None = None) -> None:
        if found is None:
            found = read_region(self.detector, image, region.box)
        if owner is not None and region.name != WHOLE_FRAME:
            found = Detections([d for d in found if owner(d.center) == region.name])
        history = self._histories.setdefault(region.name, ReadHistory())
        history.add(PictureRead(found, signature, self._before))

    def _reread(self, image: np.ndarray, regions: list[Region], changes: dict[str, Change],
                owner: Callable[[tuple[float, float]], str | None] | None,
                signature: Signature) -> tuple[str, ...]:
        """Read one region the gate did not read, the next in turn that is not yet confirmed
        (`CONFIRM_READS` reads of a picture that held), when the budget allows."""
        if not self.budget.allows or not regions:
            return ()
        for step in range(len(regions)):
            region = regions[(self._turn + step) % len(regions)]
            if changes[region.name].reads or \
                    self._confirmations.get(region.name, 0) >= CONFIRM_READS:
                continue
            self._turn = (self._turn + step + 1) % len(regions)
            found = self.budget.spend(
                lambda box=region.box: read_region(self.detector, image, box),
                lambda: getattr(self.detector, "finder_passes", None))
            self._add_read(image, region, owner, signature, found)
            if changes[region.name] is Change.UNCHANGED:
                self._confirmations[region.name] = self._confirmations.get(region.name, 0) + 1
            return (region.name,)
        return ()

    def forget(self) -> None:
        """Read every region on the next frame (the camera was moved, a new layout)."""
        self.gate.forget()
        self._histories.clear()
        self._confirmations.clear()
