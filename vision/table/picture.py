"""The camera picture shown on the tablet: the frame with the cards read outlined."""

from __future__ import annotations

import numpy as np

from vision.inference.detection import Detections


def prepare() -> None:
    """Load the drawing library now (about 0.7 s), not at the first card a camera sees (the
    deal: the knock card would wait for it)."""
    import supervision  # noqa: F401


def draw_detections(image: np.ndarray, detections: Detections) -> np.ndarray:
    """The frame with each detected card corner boxed and labelled (supervision annotators);
    the boxes are in the frame's pixels (`FrameRead.detections`)."""
    if not detections:
        return image
    import supervision as sv

    boxes = np.array([d.box for d in detections], dtype=float)
    labels = [f"{d.card} {d.confidence:.2f}" for d in detections]
    names = sorted({d.card for d in detections})
    class_id = np.array([names.index(d.card) for d in detections])
    dets = sv.Detections(xyxy=boxes, confidence=np.array([d.confidence for d in detections]),
                         class_id=class_id)
    scale = max(image.shape[:2]) / 1000
    out = sv.BoxAnnotator(thickness=max(2, int(2 * scale))).annotate(image.copy(), dets)
    return sv.LabelAnnotator(text_scale=0.5 * max(1.0, scale), text_padding=2).annotate(
        out, dets, labels=labels)
