"""The one tiler: overlapping tiles of an image, read one by one, merged by one rule.

Both tiled reads of the detector go through `in_tiles`:

- **native-scale tiles** (`read_in_tiles`, the setting for cameras that see small corner
  indices): `CardDetector` brings every frame to its finder's working size (`detector._corners`);
  a camera that sees indices smaller than that is read instead in overlapping tiles of at most
  ``tile`` pixels, at native scale or enlarged by ``enlarge``, each tile read by the whole
  detector as a frame of its own. `DetectorSettings` says which (the layout's ``detector_scale``
  and `gintray read --tile` build it); the detector is passed in as a callback (as supervision's
  ``InferenceSlicer`` takes the model).
- **the scale policy's finer pass** (`CardDetector._tiled`): the corner finder on `work_side`
  tiles of the frame enlarged, when the first pass saw small indices.

The layout (`tiles`: tiles of one side overlapping by a share of it, the last one flush with the
image's edge) and the merge (`merge_overlaps`) are the same for both: of boxes with the same label
that overlap by more than `SAME_IOU` only the most confident is kept, so one corner seen in two
tiles counts once and two different cards side by side both stay. The finder's corners carry no
label yet (``card`` None), so there any two overlapping boxes are one corner, as in the finder's
own NMS. Before merging, the native-scale tiles drop a box cut by an inner tile edge (the overlap
shows it whole in a neighbour: ``drop_cut``); the finer pass still keeps it, clipped to its tile
(`detector.FINE_DROPS_CUT`, why there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

import cv2
import numpy as np

from vision.inference.detection import Detections

DEFAULT_TILE = 640
EDGE = 2  # a box within this many pixels of an inner tile edge is cut by it
SAME_IOU = 0.5  # two boxes of one label overlapping by more than this are one corner


class Boxed(Protocol):
    """What the tiler carries: a box (x1, y1, x2, y2), a confidence, a label (`Detection`'s card
    code, or None for a corner not yet named) and the same thing with another box."""

    @property
    def box(self) -> tuple[float, float, float, float]: ...

    @property
    def confidence(self) -> float: ...

    @property
    def card(self) -> str | None: ...

    def moved(self, box: Sequence[float]) -> Any: ...


B = TypeVar("B", bound=Boxed)


@dataclass(frozen=True)
class DetectorSettings:
    """How `CardDetector.detect` cuts a frame: whole (the default: its own scale policy), or
    in overlapping tiles of ``tile`` pixels of the frame enlarged ``enlarge`` times."""

    tile: int | None = None
    enlarge: float = 1.0
    overlap: float = 0.25

    @classmethod
    def for_table(cls, scale: float | None = None, tile: int | None = None) -> DetectorSettings:
        """Settings from a layout's ``detector_scale`` and a ``--tile PX`` option (either may
        be None): tiles of ``tile`` (else 640) px of the frame enlarged ``scale`` (else 1) times
        when either is given, else whole frames."""
        if not (tile or scale):
            return cls()
        return cls(tile=tile or DEFAULT_TILE, enlarge=scale or 1.0)

    @property
    def tiled(self) -> bool:
        return self.tile is not None or self.enlarge != 1.0


def configured(detector: Any, settings: DetectorSettings) -> Any:
    """The detector reading frames as ``settings`` say (`CardDetector.with_settings`).

    A test double that answers whole frames in frame pixels (``frame_level = True``, e.g. the
    demo's labelled corners) is never tiled and comes back as it is, as does any detector when
    the settings ask for whole frames.
    """
    if detector is None or not settings.tiled or getattr(detector, "frame_level", False):
        return detector
    return detector.with_settings(settings)


def tile_starts(length: int, tile: int, overlap: float) -> list[int]:
    """Where tiles of ``tile`` px start along a side of ``length`` px, overlapping by
    ``overlap`` of a tile; the last one ends at the edge (every tile is whole)."""
    if length <= tile:
        return [0]
    step = max(1, int(tile * (1 - overlap)))
    return sorted({*range(0, length - tile, step), length - tile})


class Tile(NamedTuple):
    """One tile's window x0, y0, x1, y1 in the pixels of the image it is cut from."""

    x0: int
    y0: int
    x1: int
    y1: int

    def of(self, image: np.ndarray) -> np.ndarray:
        """The tile's pixels (a view of ``image``)."""
        return image[self.y0:self.y1, self.x0:self.x1]

    def cuts(self, box: Sequence[float], width: int, height: int) -> bool:
        """Whether a box in the tile's pixels reaches within `EDGE` px of one of its inner
        edges (an edge that is not the ``width`` x ``height`` image's own)."""
        x1, y1, x2, y2 = box
        return bool((self.x0 > 0 and x1 <= EDGE) or (self.y0 > 0 and y1 <= EDGE)
                    or (self.x1 < width and x2 >= self.x1 - self.x0 - EDGE)
                    or (self.y1 < height and y2 >= self.y1 - self.y0 - EDGE))

    def to_image(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        """A box in the tile's pixels in the image's pixels."""
        x1, y1, x2, y2 = box
        return (x1 + self.x0, y1 + self.y0, x2 + self.x0, y2 + self.y0)


def tiles(width: int, height: int, side: int, overlap: float) -> list[Tile]:
    """Tiles of at most ``side`` px covering a ``width`` x ``height`` image, overlapping by
    ``overlap`` of a side (`tile_starts`), row by row."""
    return [Tile(x0, y0, min(x0 + side, width), min(y0 + side, height))
            for y0 in tile_starts(height, side, overlap)
            for x0 in tile_starts(width, side, overlap)]


def merge_overlaps(found: Sequence[B], same_iou: float = SAME_IOU) -> list[B]:
    """``found`` most confident first (stable for ties) without the boxes that overlap a more
    confident box of the same label (``card``; None is a label too) by more than ``same_iou``
    (intersection over union): one corner boxed twice is kept once, two different cards side by
    side are both kept."""
    if not found:
        return []
    boxes = np.array([item.box for item in found], np.float64).reshape(-1, 4)
    confidence = np.array([item.confidence for item in found], np.float64)
    labels = [item.card for item in found]
    area = np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)
    kept: list[int] = []
    for i in np.argsort(-confidence, kind="stable"):
        same = [k for k in kept if labels[k] == labels[i]]
        if same:
            x1, y1, x2, y2 = boxes[i]
            other = boxes[same]
            inter = (np.clip(np.minimum(other[:, 2], x2) - np.maximum(other[:, 0], x1), 0, None)
                     * np.clip(np.minimum(other[:, 3], y2) - np.maximum(other[:, 1], y1), 0, None))
            union = area[same] + area[i] - inter
            overlap = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
            if (overlap > same_iou).any():
                continue
        kept.append(int(i))
    return [found[i] for i in kept]


def in_tiles(image: np.ndarray, read: Callable[[np.ndarray], Iterable[B]], side: int,
             overlap: float, drop_cut: bool = True) -> list[B]:
    """What ``read`` finds in overlapping ``side`` px tiles of ``image`` (`tiles`), in
    ``image`` pixels, merged by `merge_overlaps`; with ``drop_cut`` a box cut by an inner tile
    edge is dropped first (`Tile.cuts`). ``read`` answers in the tile's pixels, its boxes within
    the tile."""
    h, w = image.shape[:2]
    found: list[B] = []
    for tile in tiles(w, h, side, overlap):
        found.extend(item.moved(tile.to_image(item.box)) for item in read(tile.of(image))
                     if not (drop_cut and tile.cuts(item.box, w, h)))
    return merge_overlaps(found)


def read_in_tiles(image: np.ndarray, detect: Callable[[np.ndarray], Detections],
                  settings: DetectorSettings) -> Detections:
    """Detections of ``detect`` run on overlapping tiles of ``image`` (`in_tiles`, boxes cut by
    an inner tile edge dropped), in ``image`` pixels. The image is first enlarged
    ``settings.enlarge`` times (small indices, a low-res camera)."""
    scale = settings.enlarge
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale,
                           interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    kept = in_tiles(image, detect, settings.tile or DEFAULT_TILE, settings.overlap)
    if scale != 1.0:
        kept = [d.moved(tuple(v / scale for v in d.box)) for d in kept]
    return Detections(kept)
