"""The suit reader: its view of the card around an index, and how its say joins the namer's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.corner_crops import NAMER_CLASSES
from vision.suit_context import (
    CONTEXT_SCALE,
    CONTEXT_SIZE,
    combine,
    context_transform,
    crop_context,
)


def _one_hot(*codes_and_probs) -> np.ndarray:
    p = np.zeros((1, len(NAMER_CLASSES)), np.float32)
    for code, prob in codes_and_probs:
        p[0, NAMER_CLASSES.index(code)] = prob
    return p


def test_the_context_square_is_centred_on_the_index_and_a_few_indices_wide():
    image = np.zeros((400, 600, 3), np.uint8)
    box = (290.0, 170.0, 310.0, 230.0)  # a 20x60 index centred at (300, 200)
    cv2.circle(image, (300, 200), 3, (255, 255, 255), -1)
    cv2.circle(image, (300 + 80, 200), 3, (0, 0, 255), -1)  # a red pip 80 px to the right
    patch = crop_context(image, box)
    assert patch.shape == (CONTEXT_SIZE, CONTEXT_SIZE, 3)
    centre = CONTEXT_SIZE // 2
    assert patch[centre, centre].min() > 100  # the index's centre sits in the middle
    side = CONTEXT_SCALE * 60  # 180 image pixels across the square
    red_x = round(centre + 80 * CONTEXT_SIZE / side)
    assert patch[centre, red_x - 1 : red_x + 2, 2].max() > 100  # the pip beside it is in view


def test_training_turns_and_squeezes_about_the_index_centre():
    box = (90.0, 80.0, 110.0, 120.0)
    for angle, squash in ((0, 1.0), (90, 1.0), (37, 0.6)):
        m = context_transform(box, angle=angle, squash=squash)
        centre = m @ np.array([100.0, 100.0, 1.0])
        assert np.allclose(centre, CONTEXT_SIZE / 2, atol=1e-4)
    right = context_transform(box, angle=90) @ np.array([140.0, 100.0, 1.0])
    assert abs(right[0] - CONTEXT_SIZE / 2) < 1e-3  # a point to the right turns onto the axis


def test_a_sure_suit_reader_settles_a_club_the_namer_half_took_for_a_spade():
    namer = _one_hot(("8S", 0.5), ("8C", 0.4), ("none", 0.1))
    suits = np.array([[0.9, 0.0, 0.0, 0.1]], np.float32)  # C D H S
    both = combine(namer, suits)
    assert NAMER_CLASSES[int(both.argmax())] == "8C"
    assert both[0, -1] == pytest.approx(0.1)  # "not a corner" untouched
    assert both.sum() == pytest.approx(1.0)


def test_an_undecided_suit_reader_changes_nothing_and_never_changes_the_rank():
    namer = _one_hot(("6H", 0.7), ("9H", 0.2), ("none", 0.1))
    flat = np.full((1, 4), 0.25, np.float32)
    assert np.allclose(combine(namer, flat), namer, atol=1e-6)
    spades = np.array([[0.0, 0.0, 0.01, 0.99]], np.float32)
    both = combine(namer, spades)  # a wrong suit guess can only move mass within the same rank
    ranks = both[0, :52].reshape(4, 13).sum(axis=0)
    assert ranks.argmax() == NAMER_CLASSES.index("6H") % 13


def test_combine_handles_no_corners():
    assert combine(np.zeros((0, 53), np.float32), np.zeros((0, 4), np.float32)).shape == (0, 53)


def test_a_missing_suit_reader_file_named_on_purpose_is_a_clear_error(tmp_path):
    from detector_helpers import model_or_skip

    model_or_skip()
    from vision.detector import DetectorUnavailable, load_detector

    with pytest.raises(DetectorUnavailable, match="model file missing"):
        load_detector("onnx", suit_weights=tmp_path / "nope.onnx")
    assert load_detector("onnx", suit_context=False).suit_reader is None


@pytest.mark.slow
def test_exported_suit_reader_reads_in_both_engines(tmp_path):
    pytest.importorskip("torch")
    from vision.detector import SuitReader
    from vision.suit_context import build_suit_model
    from vision.train_suit_context import export_onnx

    path = tmp_path / "suit.onnx"
    export_onnx(build_suit_model(), path)
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    boxes = np.array([[10, 10, 30, 60], [200, 100, 220, 150]], np.float32)
    ort_probs = SuitReader(path).probabilities(image, boxes)
    cv_probs = SuitReader(path, "opencv").probabilities(image, boxes)
    assert ort_probs.shape == (2, 4)
    assert np.allclose(ort_probs.sum(axis=1), 1, atol=1e-5)
    assert np.allclose(ort_probs, cv_probs, atol=1e-4)
    assert SuitReader(path).probabilities(image, np.zeros((0, 4), np.float32)).shape == (0, 4)
