"""Run-time light normalisation (vision/inference/exposure.py, issue 13 item 2)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.inference.exposure import TARGET_LUMA, exposure_gamma, normalise_light, white_gains
from vision.training import perturb


def _table(seed: int = 0) -> np.ndarray:
    """A dim grey-green table with white cards and dark indices (like the dev photos)."""
    rng = np.random.default_rng(seed)
    image = np.full((360, 640, 3), (70, 140, 60), np.uint8)  # BGR felt, median luma ~ 110
    for x in range(40, 600, 90):
        image[60:300, x : x + 70] = (235, 235, 235)
        image[70:110, x + 5 : x + 20] = (30, 30, 200)
    return cv2.add(image, rng.integers(0, 6, image.shape, dtype=np.uint8))


def test_frames_the_models_know_are_read_as_they_are():
    image = _table()
    assert exposure_gamma(image) == 1.0
    assert np.array_equal(normalise_light(image), image)


def test_a_dark_or_bright_frame_is_brought_back_to_the_known_median():
    image = _table()
    for gamma in (2.5, 0.35):
        changed = perturb.gamma(image, gamma)
        fixed = normalise_light(changed)
        luma = float(np.median(cv2.cvtColor(fixed, cv2.COLOR_BGR2GRAY)))
        assert abs(luma - TARGET_LUMA) < 12, (gamma, luma)


def test_warm_light_is_balanced_on_the_card_faces_not_the_cloth():
    """A 3000 K bulb tints the white cards orange; the white patch (the card faces) is brought
    back to grey, while the green cloth does not pull the balance towards magenta."""
    warm = perturb.white_balance(_table(), 3000)
    before = white_gains(warm)
    assert np.abs(before - 1).max() > 0.1
    fixed = normalise_light(warm)
    card = fixed[150:250, 50:100].reshape(-1, 3).mean(axis=0)
    assert card.max() - card.min() < 20, card  # the card face is grey again
    assert np.abs(white_gains(_table()) - 1).max() < 0.1  # a green cloth alone changes nothing
