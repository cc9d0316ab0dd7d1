"""Mirror images: a camera set to flip its picture (a Pi camera's ``hflip``, a webcam's
"mirror" setting) or a photo saved mirrored (a front camera, an exporter's flip).

In a mirror image the corner indices read backwards, and the namer reads some of them as other
cards: a mirrored K as an A, a mirrored 5 as nothing at all. Read the right way round, the finder
and the namer find more corners and are surer of them, so the view with more corner evidence
(`corner_evidence`: the sum of the detections' confidences) is the picture as it should be.

Measured with the shipped models (``benchmarks/bench_mirror.py``; figures in vision/README.md,
"Mirror images"): on 120 real frames that were never mirrored (phone photos and the dev overhead
frames) the mirror image never had more evidence (at most 0.88 of the photo's); on the 173
exporter-flipped phone photos where one view reads clearly better by their labels, the view
with more evidence was it every time. A camera is judged mirrored only by a clear margin
(`MIRROR_MARGIN`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.inference.detection import Detection, Detections

#: A camera's picture is judged mirrored only when the mirror image has this many times the
#: corner evidence of the picture (never-mirrored frames: at most 0.88 the other way round).
MIRROR_MARGIN = 1.15
#: Less corner evidence than this either way (about three sure corners) says nothing.
MIN_EVIDENCE = 2.0


class MirrorSetting(enum.Enum):
    """How a picture's orientation is taken: as it is, always mirrored back, or judged."""

    NO = "no"
    YES = "yes"
    AUTO = "auto"


def unmirror(image: np.ndarray) -> np.ndarray:
    """The image flipped left to right (a mirror image of a mirror image is the picture)."""
    return cv2.flip(image, 1)


def corner_evidence(detections: Iterable[Detection]) -> float:
    """How much card the detector sees: the sum of its detections' confidences."""
    return float(sum(d.confidence for d in detections))


@dataclass(frozen=True)
class OrientedRead:
    """A picture's detections in the view that was read: the picture itself or, when
    ``mirrored``, its mirror image (``image``, the boxes are in its pixels)."""

    image: np.ndarray = field(repr=False)
    detections: Detections
    mirrored: bool
    evidence: float
    other_evidence: float | None = None  # the other view's, when both were read

    @property
    def clearly_mirrored(self) -> bool:
        """Read mirrored, and by the margin a camera is judged by (`MIRROR_MARGIN`)."""
        return (self.mirrored and self.other_evidence is not None
                and self.evidence >= MIN_EVIDENCE
                and self.evidence >= MIRROR_MARGIN * self.other_evidence)


def read_oriented(detect: Callable[[np.ndarray], Detections], image: np.ndarray,
                  setting: MirrorSetting = MirrorSetting.AUTO) -> OrientedRead:
    """``detect`` (a detector's ``detect``) on the picture, its mirror image, or (``AUTO``)
    both, keeping the view with more corner evidence; the picture itself on a tie."""
    if setting is MirrorSetting.NO:
        found = detect(image)
        return OrientedRead(image, found, False, corner_evidence(found))
    flipped = unmirror(image)
    mirrored = detect(flipped)
    if setting is MirrorSetting.YES:
        return OrientedRead(flipped, mirrored, True, corner_evidence(mirrored))
    found = detect(image)
    as_is, other = corner_evidence(found), corner_evidence(mirrored)
    if other > as_is:
        return OrientedRead(flipped, mirrored, True, other, as_is)
    return OrientedRead(image, found, False, as_is, other)
