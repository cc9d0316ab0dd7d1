"""Native-scale tiles: the detector's setting for cameras that see small corner indices.

`CardDetector` brings every frame to its finder's working size (`detector._corners`). A camera
that sees corner indices smaller than that working size is read instead in overlapping tiles of
at most ``tile`` pixels, at native scale or enlarged by ``enlarge``, each tile read by the whole
detector as a frame of its own. `DetectorSettings` says which (the layout's ``detector_scale``
and `gintray read --tile` build it); `read_in_tiles` does it, with the detector passed in as a
callback (as supervision's ``InferenceSlicer`` takes the model). `tile_starts` places the tiles
here and in the scale policy's finer pass (`CardDetector._tiled`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.inference.detection import Detection, Detections, iou

DEFAULT_TILE = 640
EDGE = 2  # a box within this many pixels of an inner tile edge is cut by it
SAME_CARD_IOU = 0.4  # the same card boxed twice in the overlap


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


def read_in_tiles(image: np.ndarray, detect: Callable[[np.ndarray], Detections],
                  settings: DetectorSettings) -> Detections:
    """Detections of ``detect`` run on overlapping tiles of ``image``, in ``image`` pixels.

    The image is first enlarged ``settings.enlarge`` times (small indices, a low-res camera).
    Boxes cut by an inner tile edge are dropped (the overlap shows them whole in a
    neighbour); the same card boxed twice in the overlap is kept once (the more confident box).
    """
    scale = settings.enlarge
    tile = settings.tile or DEFAULT_TILE
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale,
                           interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    h, w = image.shape[:2]
    found: list[Detection] = []
    for y0 in tile_starts(h, tile, settings.overlap):
        for x0 in tile_starts(w, tile, settings.overlap):
            x1, y1 = min(x0 + tile, w), min(y0 + tile, h)
            for det in detect(image[y0:y1, x0:x1]):
                bx1, by1, bx2, by2 = det.box
                cut = ((x0 > 0 and bx1 <= EDGE) or (y0 > 0 and by1 <= EDGE)
                       or (x1 < w and bx2 >= x1 - x0 - EDGE)
                       or (y1 < h and by2 >= y1 - y0 - EDGE))
                if not cut:
                    found.append(det.moved((bx1 + x0, by1 + y0, bx2 + x0, by2 + y0)))
    kept: list[Detection] = []
    for det in sorted(found, key=lambda d: -d.confidence):
        if all(k.card != det.card or iou(k.box, det.box) < SAME_CARD_IOU for k in kept):
            kept.append(det)
    if scale != 1.0:
        kept = [d.moved(tuple(v / scale for v in d.box)) for d in kept]
    return Detections(kept)
