"""Card photos drawn for the deck tests (issue 37): a card of one deck, its index drawn by the
namer training's procedural glyph code with any rank letter (a German jack's "B"), lying on a
table, seen at a chosen size and angle."""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.synth.index_glyphs import draw_index
from vision.training.synth.laid_out import laid_out_picture

CARD_W, CARD_H = 250, 350  # pixels of the card before it is laid on the table


def card_face(card: str, letter: str | None = None, deck_seed: int = 7,
              outline: bool = True) -> np.ndarray:
    """A plain card face (BGR) showing `card`'s index at two opposite corners, its rank drawn
    as `letter` (default the card's own rank), a grey line round it with `outline`; one deck
    (`deck_seed`) draws a rank alike on every card."""
    rank = letter or card[0]
    rng = np.random.default_rng([deck_seed, ord(rank), ord(card[1])])
    corner, (x1, y1, x2, y2) = draw_index(rng, rank + card[1], rank_px=44)
    face = np.full((CARD_H, CARD_W, 3), 238, np.float32)
    cut = corner[int(y1) - 8 : int(y2) + 8, int(x1) - 8 : int(x2) + 8]
    cut = cut / np.maximum(cut.reshape(-1, 3).max(axis=0), 1) * 238  # the card's own paper
    h, w = cut.shape[:2]
    face[6 : 6 + h, 6 : 6 + w] = cut
    face[CARD_H - 6 - h : CARD_H - 6, CARD_W - 6 - w : CARD_W - 6] = cut[::-1, ::-1]
    if outline:
        cv2.rectangle(face, (0, 0), (CARD_W - 1, CARD_H - 1), (120, 120, 120), 2)
    return np.clip(face, 0, 255).astype(np.uint8)


def card_photo(face: np.ndarray, scale: float = 1.0, angle: float = 0.0,
               table=(60, 110, 40), size: tuple[int, int] = (640, 480),
               centre: tuple[float, float] | None = None,
               image: np.ndarray | None = None) -> np.ndarray:
    """`face` laid on a felt table (or on `image`) at `scale`, turned by `angle` degrees about
    `centre` (default the middle)."""
    w, h = size
    out = image.copy() if image is not None else np.full((h, w, 3), table, np.uint8)
    cx, cy = centre or (w / 2, h / 2)
    m = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, scale)
    m[:, 2] += (cx - CARD_W / 2, cy - CARD_H / 2)
    warped = cv2.warpAffine(face, m, (w, h))
    mask = cv2.warpAffine(np.full(face.shape[:2], 255, np.uint8), m, (w, h))
    out[mask > 127] = warped[mask > 127]
    return out


def layout_photo(letters: dict[str, str] | None = None, missing: tuple[str, ...] = (),
                 rows: str = "CDHS", angle: float = 3.0, keystone: float = 0.04,
                 scale: float = 0.55, table=(60, 110, 40), outline: bool = True,
                 ) -> tuple[np.ndarray, dict[str, tuple[float, float]]]:
    """The drawn deck laid out in the set order (`laid_out_picture`), cards of `missing` left
    out, ranks drawn as `letters` says (``{"J": "B"}``); and where each card's centre lies."""
    letters = letters or {}

    def face_of(card: str) -> np.ndarray | None:
        return None if card in missing else card_face(card, letters.get(card[0]),
                                                      outline=outline)

    return laid_out_picture(face_of, (int(CARD_W * scale), int(CARD_H * scale)), rows, angle,
                            keystone, table)
