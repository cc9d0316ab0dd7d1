"""The two corner indices of one card vote on its name (vision/inference/corner_pairing.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.inference.corner_crops import NAMER_CLASSES
from vision.inference.corner_pairing import pair_corners, vote_pairs
from vision.table.grouping import index_unit

SIZE = 20.0  # index box side in pixels


def box_at(x: float, y: float) -> list[float]:
    return [x, y, x + SIZE, y + SIZE]


def reading(**cards: float) -> np.ndarray:
    """A namer output row: the given card probabilities, the rest on "not a corner"."""
    row = np.zeros(len(NAMER_CLASSES), np.float32)
    for code, p in cards.items():
        row[NAMER_CLASSES.index(code.removeprefix("c"))] = p
    row[-1] = 1.0 - row.sum()
    return row


def names(probs: np.ndarray) -> list[str]:
    return [NAMER_CLASSES[int(i)] for i in probs.argmax(axis=1)]


def test_the_surer_corner_of_a_card_corrects_its_misread_twin():
    """7C read right at one corner (0.9) and as 7S at the other (0.55 vs 0.45): a 7C."""
    boxes = np.array([box_at(0, 0), box_at(60, 80)], np.float32)  # 5 index sizes apart
    probs = np.stack([reading(c7C=0.9, c7S=0.08), reading(c7S=0.55, c7C=0.43)])
    assert names(probs) == ["7C", "7S"]
    assert names(vote_pairs(boxes, probs)) == ["7C", "7C"]


@pytest.mark.parametrize("dx", [20.0, 400.0])
def test_corners_too_close_or_too_far_for_one_card_keep_their_own_names(dx):
    """Neighbours in a fan (one index size apart) or cards across the table do not vote."""
    boxes = np.array([box_at(0, 0), box_at(dx, 0)], np.float32)
    probs = np.stack([reading(c7C=0.9, c7S=0.08), reading(c7S=0.55, c7C=0.43)])
    assert pair_corners(boxes, probs) == []
    assert names(vote_pairs(boxes, probs)) == ["7C", "7S"]


def test_two_different_cards_a_card_apart_are_not_merged():
    """A 7 of clubs and a king of hearts read clearly never share a name."""
    boxes = np.array([box_at(0, 0), box_at(100, 0)], np.float32)
    probs = np.stack([reading(c7C=0.95), reading(KH=0.95)])
    assert pair_corners(boxes, probs) == []
    assert names(vote_pairs(boxes, probs)) == ["7C", "KH"]


def test_each_corner_joins_one_pair_the_most_agreeing_first():
    """Two 7C corners and a 7S corner, all a card apart: the 7C twins pair, 7S stays 7S."""
    boxes = np.array([box_at(0, 0), box_at(100, 0), box_at(50, 90)], np.float32)
    probs = np.stack(
        [reading(c7C=0.9, c7S=0.1), reading(c7C=0.85, c7S=0.15), reading(c7S=0.7, c7C=0.3)]
    )
    assert pair_corners(boxes, probs) == [(0, 1)]
    assert names(vote_pairs(boxes, probs)) == ["7C", "7C", "7S"]


def test_a_false_corner_is_not_paired_and_keeps_its_not_a_corner_reading():
    boxes = np.array([box_at(0, 0), box_at(100, 0)], np.float32)
    probs = np.stack([reading(c7C=0.9), reading(c7C=0.1)])  # the second is 0.9 "none"
    assert pair_corners(boxes, probs) == []
    voted = vote_pairs(boxes, probs)
    assert names(voted) == ["7C", "none"]
    np.testing.assert_allclose(voted.sum(axis=1), 1.0, atol=1e-5)


def test_index_size_is_the_median_box_side():
    assert index_unit([[0, 0, 10, 10], [0, 0, 20, 20], [0, 0, 40, 40]]) == pytest.approx(20)
    assert index_unit([]) == 1.0
