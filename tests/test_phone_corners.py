"""Corner labels for the second deck's phone photos come from its whole-card boxes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.inference.corner_crops import NAMER_CLASSES
from vision.training.phone_corners import CardBox, label_corners


def _probs(*likely: tuple[str, float]) -> np.ndarray:
    """One corner's (1, 53) probabilities with the given cards, the rest on "none"."""
    p = np.zeros((1, len(NAMER_CLASSES)), np.float32)
    for code, value in likely:
        p[0, NAMER_CLASSES.index(code)] = value
    p[0, -1] = 1 - p.sum()
    return p


CORNER = np.array([[10, 10, 30, 40]], np.float32)
SURE = np.array([0.9], np.float32)


def test_the_suit_comes_from_the_box_not_from_the_namer():
    """The namer says 9 of spades; the card under the corner is the 9 of clubs."""
    cards = [CardBox("9C", (0, 0, 120, 170))]
    labelled = label_corners(CORNER, SURE, _probs(("9S", 0.8)), cards)
    assert [c.code for c in labelled] == ["9C"]


def test_overlapping_cards_give_the_corner_to_the_rank_the_namer_reads():
    cards = [CardBox("KH", (0, 0, 120, 170)), CardBox("4H", (5, 5, 125, 175))]
    labelled = label_corners(CORNER, SURE, _probs(("4H", 0.7), ("KH", 0.05)), cards)
    assert [c.code for c in labelled] == ["4H"]


def test_a_set_fanned_over_itself_leaves_the_suit_unknown_and_the_corner_out():
    cards = [CardBox("7H", (0, 0, 120, 170)), CardBox("7S", (5, 5, 125, 175))]
    assert label_corners(CORNER, SURE, _probs(("7H", 0.9)), cards) == []


def test_pips_and_pictures_the_namer_cannot_name_as_the_card_are_left_out():
    cards = [CardBox("QD", (0, 0, 120, 170))]
    assert label_corners(CORNER, SURE, _probs(("5D", 0.9), ("QD", 0.05)), cards) == []


def test_corners_outside_every_card_and_unsure_finds_are_left_out():
    far = [CardBox("2C", (300, 300, 420, 470))]
    assert label_corners(CORNER, SURE, _probs(("2C", 0.9)), far) == []
    near = [CardBox("2C", (0, 0, 120, 170))]
    assert label_corners(CORNER, np.array([0.1], np.float32), _probs(("2C", 0.9)), near) == []


def test_real_phone_photos_get_corners_of_their_own_cards_only():
    from vision.inference.detector import load_detector
    from vision.training.phone_corners import frame_corners
    from vision.training.phone_data import PHONE_DATA, load_frames, split_by_time

    if not PHONE_DATA.is_dir():
        pytest.skip("../shared/data/real-cards-phone is not here")
    earlier, _ = split_by_time(load_frames())
    detector = load_detector("onnx", normalise_light=False)
    labelled = 0
    for frame in earlier[:4]:
        _image, read, _flipped = frame_corners(detector, frame)
        assert {c.code for c in read.corners} <= set(frame.cards)
        labelled += len(read.corners)
    assert labelled >= 2 * sum(len(f.cards) for f in earlier[:4])  # two or more per card


def test_a_box_in_the_middle_of_one_card_is_a_pip_not_an_index():
    from vision.training.phone_corners import interior_boxes

    card = [CardBox("5H", (0, 0, 120, 170))]
    middle = np.array([[45, 65, 75, 105]], np.float32)
    assert len(interior_boxes(middle, SURE, card)) == 1
    assert interior_boxes(CORNER, SURE, card) == []  # the index at the corner
    other = CardBox("6H", (40, 60, 160, 230))  # a fanned card whose index lies there
    assert interior_boxes(middle, SURE, [*card, other]) == []
