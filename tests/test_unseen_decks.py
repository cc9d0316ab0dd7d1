"""Issue 37, "Measure": the decks the namer never saw, made for measuring what teaching does (a
four-colour deck, a jumbo-index deck; their index boxes listed where the ink cannot give
them)."""

from __future__ import annotations

import json

import cv2
import numpy as np
from deck_helpers import card_face

from vision.training.synth.cards import BOXES_FILE, CardFaces, find_index_boxes
from vision.training.synth.unseen_decks import CLUB_GREEN, DIAMOND_BLUE, four_colour, jumbo_index


def bgra(card: str) -> np.ndarray:
    return cv2.cvtColor(card_face(card), cv2.COLOR_BGR2BGRA)


def ink_colour(face: np.ndarray) -> np.ndarray:
    """The mean colour of the face's inkiest pixels (its index and pips)."""
    bgr = face[:, :, :3].astype(np.float32)
    ink = np.abs(bgr - 238).max(axis=2) > 120
    return bgr[ink].mean(axis=0)


def test_four_colour_prints_clubs_green_and_diamonds_blue():
    club, diamond = four_colour(bgra("7C"), "C"), four_colour(bgra("7D"), "D")
    b, g, r = ink_colour(club)
    assert g > max(b, r) + 30 and CLUB_GREEN.argmax() == 1  # green ink
    b, g, r = ink_colour(diamond)
    assert b > max(g, r) + 30 and DIAMOND_BLUE.argmax() == 0  # blue ink
    for card in ("7H", "7S"):  # hearts and spades as printed
        assert np.array_equal(four_colour(bgra(card), card[1]), bgra(card))


def test_a_jumbo_index_is_bigger_at_both_corners():
    face = bgra("KS")
    box = find_index_boxes(face)[0]
    jumbo, big = jumbo_index(face, box)
    assert (big[2] - big[0]) / (box[2] - box[0]) > 1.4
    assert (big[3] - big[1]) / (box[3] - box[1]) > 1.4
    h, w = face.shape[:2]
    turned = jumbo[::-1, ::-1]
    x1, y1, x2, y2 = big
    for corner in (jumbo, turned):  # the enlarged index's ink reaches its new box's far side
        ink = np.abs(corner[y1:y2, x1:x2, :3].astype(int) - 238).max(axis=2) > 120
        ys, xs = np.nonzero(ink)
        assert ys.max() > 0.8 * (y2 - y1) and xs.max() > 0.8 * (x2 - x1)
    assert jumbo.shape == face.shape and h > w


def test_a_deck_lists_index_boxes_its_ink_cannot_give(tmp_path):
    folder = tmp_path / "faces" / "drawn"
    folder.mkdir(parents=True)
    for card in ("7C", "KS"):
        cv2.imwrite(str(folder / f"{card}.png"), bgra(card))
    listed = [[10, 12, 60, 90], [190, 260, 240, 338]]
    (folder / BOXES_FILE).write_text(json.dumps({"KS": listed}))
    faces = CardFaces(deck_dir=tmp_path, width=125, deck="drawn")  # half the drawn width
    assert faces.index_boxes("KS") == [(5.0, 6.0, 30.0, 45.0), (95.0, 130.0, 120.0, 169.0)]
    found = find_index_boxes(bgra("7C"))  # not listed: from its ink, as for every other deck
    assert faces.index_boxes("7C") == [tuple(v / 2 for v in box) for box in found]
