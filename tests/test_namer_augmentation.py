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


def test_small_share_crops_shrink_the_index_to_a_far_webcams_width_and_degrade_it():
    from vision.inference.corner_crops import crop_corner
    from vision.training.train_classifier import (
        SMALL_INDEX_RANGE,
        shrink_to_index,
        small_index_crop,
    )

    photo = np.full((200, 200, 3), 210, np.uint8)
    cv2.putText(photo, "7", (82, 128), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (30, 30, 30), 5)
    box = (78.0, 78.0, 122.0, 134.0)  # an index 44 px wide
    for width in (12.0, 14.0, 18.0):
        small, (x1, y1, x2, y2) = shrink_to_index(photo, box, width)
        assert abs((x2 - x1) - width) < 0.5  # the index is as wide as asked
        assert abs((y2 - y1) - 56 * width / 44) < 0.5  # and keeps its shape
        assert small.shape[1] < photo.shape[1] / 2
    clean = crop_corner(photo, box)
    rng = np.random.default_rng(4)
    crops = [small_index_crop(rng, photo, box) for _ in range(12)]
    assert all(c.shape == clean.shape for c in crops)
    # blocky or noisy and low-resolution: every crop differs from the clean one, the ink stays
    assert all(np.abs(c.astype(int) - clean.astype(int)).mean() > 2 for c in crops)
    assert all(sharpness(c) < sharpness(clean) for c in crops)
    assert SMALL_INDEX_RANGE == (12.0, 18.0)


def test_no_small_share_leaves_older_runs_batches_unchanged():
    from types import SimpleNamespace

    from vision.training.train_classifier import _augment

    photo = np.full((120, 120, 3), 200, np.uint8)
    cv2.putText(photo, "4", (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (30, 30, 30), 4)
    box = (35.0, 35.0, 80.0, 90.0)
    a = _augment(np.random.default_rng(9), photo, box, CropAugmentation(), real=True)
    b = _augment(np.random.default_rng(9), photo, box,
                 CropAugmentation.from_args(SimpleNamespace(
                     blur_max=1.2, tilt_share=0.0, squash_share=0.0, sharpen_share=0.0,
                     motion_share=0.0, defocus_share=0.0, gamma_share=0.0, widen_share=0.0,
                     small_share=0.0)), real=True)
    assert np.array_equal(a, b)
