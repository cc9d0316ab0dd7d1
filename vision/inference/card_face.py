"""A corner index sits on a card: a found corner with no card face beside it is dropped.

A card's index is printed a few millimetres in from its corner, so the card's white face lies
around it, most of all toward the card's body. Printed text on the table cloth, chips, an arm,
a shadow or the table's edge can look like an index to the finder and the namer (printed
felt read as a ten), but there is no card face around them.

`card_face_share` measures, for each of the four quarters around a box (the box's centre to
`REACH` box sizes beyond its edge, diagonally out), the share of card-white pixels in it (low
saturation, bright for this frame: `MAX_SATURATION`, `MIN_BRIGHTNESS` of the frame's brightest
surfaces), and gives the best quarter: a corner on a card has the card's body in one of them.
A box whose best quarter is under `MIN_FACE_SHARE` is not a card's corner.

`MIN_FACE_SHARE` lies under every labelled corner of the real dev photos and over the printed
felt of the casino clip (figures in vision/README.md, "Live reading").
"""

from __future__ import annotations

import cv2
import numpy as np

REACH = 1.0  # a quarter reaches this many box sizes beyond the box
MAX_SATURATION = 70  # card white: HSV saturation under this (of 255)
MIN_BRIGHTNESS = 0.6  # ... and brightness at least this share of the frame's brightest surfaces
BRIGHT_PERCENTILE = 99  # the frame's brightest surfaces: this percentile of its brightness
MIN_FACE_SHARE = 0.36  # a corner's best quarter holds at least this share of card white


def white_mask(image: np.ndarray) -> np.ndarray:
    """Card-white pixels of a BGR frame (bool, the frame's size)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    value = hsv[:, :, 2]
    bright = float(np.percentile(value[::4, ::4], BRIGHT_PERCENTILE))
    return (hsv[:, :, 1] < MAX_SATURATION) & (value >= MIN_BRIGHTNESS * bright)


def card_face_share(white: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """The share of card white in the whitest of the four quarters around ``box``."""
    x1, y1, x2, y2 = box
    h, w = white.shape
    reach = float(np.sqrt(max(x2 - x1, 1e-6) * max(y2 - y1, 1e-6))) * (0.5 + REACH)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    best = 0.0
    for dx in (-1, 1):
        for dy in (-1, 1):
            xa, xb = sorted((cx, cx + dx * reach))
            ya, yb = sorted((cy, cy + dy * reach))
            quarter = white[max(0, int(ya)):min(h, int(np.ceil(yb))),
                            max(0, int(xa)):min(w, int(np.ceil(xb)))]
            if quarter.size:
                best = max(best, float(quarter.mean()))
    return best


def on_card_faces(image: np.ndarray, boxes: np.ndarray,
                  scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The boxes (N x 4, ``image`` pixels) with a card face around them, and their scores."""
    if len(boxes) == 0:
        return boxes, scores
    white = white_mask(image)
    keep = np.array([card_face_share(white, tuple(float(v) for v in box)) >= MIN_FACE_SHARE
                     for box in boxes], bool)
    return boxes[keep], scores[keep]
