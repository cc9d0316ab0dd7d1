"""The camera picture shown on the tablet: the frame with the cards read outlined."""

from __future__ import annotations

import numpy as np

from vision.inference.detection import Detections


def prepare() -> None:
    """Load the drawing library now (about 0.7 s), not at the first card a camera sees (the
    deal: the knock card would wait for it)."""
    import supervision  # noqa: F401


#: a label's letters stay this many CSS pixels tall on a phone showing the picture this wide
PHONE_WIDTH = 360
LABEL_HEIGHT = 11
FONT_HEIGHT = 22  # cv2.FONT_HERSHEY_SIMPLEX's cap height, in pixels at scale 1


def label_scale(width: int) -> float:
    """The label font scale for a frame ``width`` pixels wide: readable on a phone."""
    return max(0.5, LABEL_HEIGHT * width / (PHONE_WIDTH * FONT_HEIGHT))


def card_labels(detections: Detections) -> list[tuple[int, str]]:
    """One label per card (its surest corner, by index in ``detections``): the card's code,
    with "?" when the detector doubted it. Players read cards, not scores."""
    best: dict[str, int] = {}
    for i, d in enumerate(detections):
        if d.card not in best or d.confidence > detections[best[d.card]].confidence:
            best[d.card] = i
    return [(i, f"{detections[i].card}?" if detections[i].alternative else detections[i].card)
            for i in sorted(best.values())]


def draw_detections(image: np.ndarray, detections: Detections) -> np.ndarray:
    """The frame with each detected card corner boxed and each card labelled once, large
    enough to read on a phone, labels moved apart where they would overlap (supervision
    annotators); the boxes are in the frame's pixels (`FrameRead.detections`)."""
    if not detections:
        return image
    import supervision as sv

    found = list(detections)
    names = sorted({d.card for d in found})
    dets = sv.Detections(xyxy=np.array([d.box for d in found], dtype=float),
                         confidence=np.array([d.confidence for d in found]),
                         class_id=np.array([names.index(d.card) for d in found]))
    scale = label_scale(image.shape[1])
    out = sv.BoxAnnotator(thickness=max(2, round(scale * 1.5))).annotate(image.copy(), dets)
    labelled = card_labels(Detections(found))
    keep = np.array([i for i, _ in labelled])
    return sv.LabelAnnotator(text_scale=scale, text_thickness=max(1, round(scale * 1.5)),
                             text_padding=max(2, round(scale * 3)),
                             smart_position=True).annotate(
        out, dets[keep], labels=[text for _, text in labelled])
