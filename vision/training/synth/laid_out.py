"""A picture of a deck laid out in the set order for teaching: four rows of 13,
clubs, diamonds, hearts, spades from top to bottom, ace to king from left to right, as a table
camera sees it (turned, from a little above the near edge; light, blur and noise by the caller).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.deck.layout import LAYOUT_RANKS, LAYOUT_SUITS


def _put(canvas: np.ndarray, face: np.ndarray, x: int, y: int) -> None:
    """Paste a BGR or BGRA face at (x, y), its alpha (rounded corners) over the table."""
    h, w = face.shape[:2]
    spot = canvas[y : y + h, x : x + w]
    if face.shape[2] == 4:
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        spot[:] = (face[:, :, :3] * alpha + spot * (1 - alpha)).astype(np.uint8)
    else:
        spot[:] = face


def laid_out_picture(face_of: Callable[[str], np.ndarray | None], card_size: tuple[int, int],
                     rows: str = LAYOUT_SUITS, angle: float = 3.0, keystone: float = 0.04,
                     table=(60, 110, 40),
                     ) -> tuple[np.ndarray, dict[str, tuple[float, float]]]:
    """The cards of `rows` (one suit a row) laid out ace to king, each `face_of(card)` resized
    to `card_size` (w, h; a card whose face is None is left out), seen turned by `angle`
    degrees and from a little above the near edge (`keystone`: the far row that much narrower
    on each side); and where each card's centre lies in the picture."""
    cw, ch = card_size
    gap_x, gap_y, margin = int(0.18 * cw), int(0.15 * ch), int(0.6 * cw)
    w = len(LAYOUT_RANKS) * cw + (len(LAYOUT_RANKS) - 1) * gap_x + 2 * margin
    h = len(rows) * ch + (len(rows) - 1) * gap_y + 2 * margin
    canvas = np.full((h, w, 3), table, np.uint8)
    centres = {}
    for r, suit in enumerate(rows):
        for c, rank in enumerate(LAYOUT_RANKS):
            face = face_of(rank + suit)
            if face is None:
                continue
            x, y = margin + c * (cw + gap_x), margin + r * (ch + gap_y)
            _put(canvas, cv2.resize(face, (cw, ch), interpolation=cv2.INTER_AREA), x, y)
            centres[rank + suit] = (x + cw / 2, y + ch / 2)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    k = keystone * w
    dst = np.float32([[k, 0], [w - k, 0], [w, h], [0, h]])
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    dst = cv2.transform(dst[None], turn)[0].astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    seen = cv2.perspectiveTransform(np.float32([list(centres.values())]), matrix)[0]
    return (cv2.warpPerspective(canvas, matrix, (w, h), borderValue=table),
            {card: (float(x), float(y)) for card, (x, y) in zip(centres, seen, strict=True)})
