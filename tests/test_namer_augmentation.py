"""The namer's camera degradations (shake, focus, exposure) do what their options say, and
leave older training runs' batches unchanged when not asked for."""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.train_classifier import CropAugmentation, _camera_degradation


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
