"""The namer's camera degradations (shake, focus, exposure) do what their options say, and
leave older training runs' batches unchanged when not asked for."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.training.train_classifier import CropAugmentation, _camera_degradation, widen_photo


def index_patch() -> np.ndarray:
    """A sharp dark 7 on a card lit grey, as a 48 px corner crop."""
    patch = np.full((48, 48, 3), 200, np.uint8)
    cv2.putText(patch, "7", (12, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (40, 40, 40), 3)
    return patch


def sharpness(patch: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_no_degradation_asked_draws_no_random_number_and_keeps_the_crop():
    rng = np.random.default_rng(5)
    patch = index_patch()
    out = _camera_degradation(rng, patch, CropAugmentation())
    assert np.array_equal(out, patch)
    assert rng.random() == np.random.default_rng(5).random()


def test_shake_and_focus_blur_the_index():
    patch = index_patch()
    for policy in (CropAugmentation(motion_share=1.0), CropAugmentation(defocus_share=1.0)):
        rng = np.random.default_rng(1)
        blurred = [_camera_degradation(rng, patch, policy) for _ in range(10)]
        assert all(sharpness(b) < 0.8 * sharpness(patch) for b in blurred), policy


def test_exposure_changes_the_tone_but_keeps_black_ink_darker_than_the_card():
    patch = index_patch()
    rng = np.random.default_rng(2)
    means = set()
    for _ in range(10):
        out = _camera_degradation(rng, patch, CropAugmentation(gamma_share=1.0))
        ink, card = out[patch == 40].mean(), out[patch == 200].mean()
        assert ink < card
        means.add(round(float(out.mean())))
    assert len(means) > 3  # exposures differ from crop to crop


def test_widening_brings_a_squeezed_photo_towards_its_true_aspect_and_keeps_the_box_on_it():
    photo = np.full((100, 100, 3), 220, np.uint8)
    photo[40:60, 30:40] = 0  # a squeezed index: 10 px wide, 20 px tall
    box = (30.0, 40.0, 40.0, 60.0)
    rng = np.random.default_rng(3)
    for _ in range(5):
        wide, (x1, y1, x2, y2) = widen_photo(rng, photo, box, CropAugmentation(widen_share=1.0))
        fx = wide.shape[1] / 100
        assert 1.0 <= fx <= 16 / 9 + 0.01 and wide.shape[0] == 100
        assert (x2 - x1) == pytest.approx(10 * fx, abs=0.1) and (y1, y2) == (40.0, 60.0)
        inside = wide[41:59, int(x1) + 1:int(x2) - 1]
        assert inside.max() < 60  # the widened box still holds only the index's ink


def test_no_widening_asked_draws_no_random_number():
    rng = np.random.default_rng(5)
    photo = index_patch()
    out, box = widen_photo(rng, photo, (1.0, 2.0, 3.0, 4.0), CropAugmentation())
    assert out is photo and box == (1.0, 2.0, 3.0, 4.0)
    assert rng.random() == np.random.default_rng(5).random()
