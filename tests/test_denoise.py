"""A noisy frame is smoothed before the detector reads it, a clean one is read as it is
(`vision.inference.denoise`, issue 29 item 3: a cheap webcam in a dim hall)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from detector_helpers import DEV, dev_or_skip, model_or_skip

from vision.inference.denoise import NOISE_GATE, noise_sigma, smooth_noise
from vision.inference.doctor import check_frame


def _luma(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _card_table(side: int = 400) -> np.ndarray:
    """A grey table with white cards and dark indices: edges the estimate must not count."""
    rng = np.random.default_rng(3)
    frame = np.full((side, side), 70, np.uint8)
    for _ in range(12):
        x, y = rng.integers(0, side - 80, 2)
        cv2.rectangle(frame, (int(x), int(y)), (int(x) + 60, int(y) + 80), 225, -1)
        cv2.putText(frame, "Q", (int(x) + 4, int(y) + 24), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 20, 2)
    return frame


@pytest.mark.parametrize("sigma", [2.0, 4.0, 8.0])
def test_the_noise_estimate_finds_the_sensor_noise_and_not_the_cards_edges(sigma):
    table = _card_table()
    assert noise_sigma(table) < 0.5  # cards and indices alone: no noise
    noisy = table + np.random.default_rng(1).normal(0.0, sigma, table.shape)
    estimate = noise_sigma(np.clip(noisy, 0, 255).astype(np.uint8))
    assert estimate == pytest.approx(sigma, rel=0.2)


def test_a_clean_frame_is_read_as_it_is():
    frame = cv2.imread(str(check_frame()[0]))
    assert noise_sigma(_luma(frame)) < NOISE_GATE
    assert smooth_noise(frame) is frame  # not even copied


def test_a_noisy_frame_is_smoothed_and_keeps_its_edges():
    table = cv2.cvtColor(_card_table(), cv2.COLOR_GRAY2BGR)
    noise = np.random.default_rng(2).normal(0.0, 8.0, table.shape)
    noisy = np.clip(table + noise, 0, 255).astype(np.uint8)
    assert noise_sigma(_luma(noisy)) >= NOISE_GATE
    smoothed = smooth_noise(noisy)
    assert noise_sigma(_luma(smoothed)) < noise_sigma(_luma(noisy)) / 2
    # closer to the clean table than the noisy frame was, edges included
    error = lambda image: np.abs(image.astype(int) - table).mean()  # noqa: E731
    assert error(smoothed) < 0.6 * error(noisy)
    edges = cv2.Canny(_luma(table), 50, 150) > 0
    assert np.abs(smoothed.astype(int) - table)[edges].mean() < 25


def test_the_detector_reads_more_cards_right_in_a_far_noisy_webcams_frames():
    """The dev photos shrunk so their indices are 14 px wide, with the sweep's strongest
    sensor noise (1 e-/DN + read 3 DN), read with and without the smoothing."""
    model_or_skip()
    dev_or_skip()
    from vision.inference.detector import load_detector
    from vision.inference.exposure import normalise_light
    from vision.training import perturb
    from vision.training.evaluate import ImageTruth, card_scores, labelled_frames

    detector = load_detector()
    plain = load_detector()
    plain.normalise_light = False  # given the light-normalised frame below, not smoothed
    far_noisy = perturb.condition("small-noise", 2)

    smoothed_results, plain_results = [], []
    for image, frame, truth in labelled_frames(DEV, every=3):
        boxes = np.array([b for _, b in truth.boxes], np.float64).reshape(-1, 4)
        small, moved = far_noisy.apply(frame, boxes, image.name)
        assert noise_sigma(_luma(normalise_light(small))) >= NOISE_GATE
        moved_truth = ImageTruth(truth.path, [(c, tuple(b)) for (c, _), b in
                                              zip(truth.boxes, moved, strict=True)])
        smoothed_results.append((moved_truth, detector.detect(small, min_confidence=0.001)))
        plain_results.append(
            (moved_truth, plain.detect(normalise_light(small), min_confidence=0.001)))
    with_smoothing = card_scores(smoothed_results, 0.25)["card_f1"]
    without = card_scores(plain_results, 0.25)["card_f1"]
    print(f"card F1, 14 px indices, noise 1 e-/DN + read 3: {without:.3f} -> {with_smoothing:.3f}")
    assert with_smoothing >= without + 0.01
