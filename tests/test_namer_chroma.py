"""The namer reads each corner crop with its chroma restored (issue 29 item 3): a cheap
webcam's JPEG and a dim frame leave a small index's red pips nearly grey, and the namer then
calls a heart or a diamond black. `corner_crops.restore_chroma` stretches a pale crop's
chroma to a target and leaves a colourful one alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from detector_helpers import DEV, MODELS, dev_or_skip, model_or_skip

from vision.inference import corner_crops
from vision.inference.corner_crops import (
    CHROMA_TARGET,
    crop_corner,
    namer_input,
    restore_chroma,
)


def _ycc(patch: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(patch, cv2.COLOR_BGR2YCrCb).astype(int)


def _chroma_spread(patch: np.ndarray) -> float:
    """95th percentile of the larger chroma deviation from grey."""
    ycc = _ycc(patch)
    return float(np.percentile(np.maximum(abs(ycc[..., 1] - 128), abs(ycc[..., 2] - 128)), 95))


def _heart_patch(red: tuple[int, int, int], paper: int = 200) -> np.ndarray:
    """A 48 px crop: a pale card with an index and a round red pip in `red` (BGR)."""
    patch = np.full((48, 48, 3), paper, np.uint8)
    cv2.putText(patch, "7", (8, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, red, 2)
    cv2.circle(patch, (20, 38), 7, red, -1)
    return patch


def test_a_pale_red_index_gets_its_colour_back_and_keeps_its_shape():
    pale = _heart_patch((110, 110, 150))  # a red pip washed out by JPEG and a dim hall
    before = _chroma_spread(pale)
    assert before < CHROMA_TARGET
    (restored,) = restore_chroma(pale[None])
    # redder: stretched to the target (doubled at most), give or take rounding
    assert _chroma_spread(restored) == pytest.approx(min(CHROMA_TARGET, 2 * before), abs=1.5)
    assert restored[38, 20, 2] > pale[38, 20, 2]  # the pip's red channel rose
    # the luma (the index's shape) is what it was, give or take the 8-bit round trip
    assert np.abs(_ycc(restored)[..., 0] - _ycc(pale)[..., 0]).max() <= 2


def test_a_colourful_crop_and_a_grey_one_are_read_as_they_are():
    vivid = _heart_patch((30, 30, 220))  # a well-lit photo's red: already past the target
    grey = np.full((48, 48, 3), 128, np.uint8)
    black = _heart_patch((25, 25, 25))  # a spade's ink: no colour to stretch
    out = restore_chroma(np.stack([vivid, grey, black]))
    assert np.array_equal(out[0], vivid)  # byte for byte: no clipped red, no shifted edge
    assert np.array_equal(out[1], grey)
    assert np.abs(out[2].astype(int) - black).max() <= 2
    assert _chroma_spread(vivid) >= CHROMA_TARGET


def test_each_patch_is_judged_on_its_own_and_the_callers_patches_are_untouched():
    pale, vivid = _heart_patch((110, 110, 150)), _heart_patch((30, 30, 220))
    batch = np.stack([pale, vivid])
    kept = batch.copy()
    together = restore_chroma(batch)
    assert np.array_equal(batch, kept)
    assert np.array_equal(together[0], restore_chroma(pale[None])[0])
    assert np.array_equal(together[1], vivid)


def test_namer_input_reads_every_patch_at_each_quarter_turn_in_turn_major_order():
    a, b = _heart_patch((110, 110, 150)), _heart_patch((30, 30, 220))
    x = namer_input([a, b], turns=4)
    assert x.shape == (8, 3, 48, 48) and x.dtype == np.float32
    restored = restore_chroma(np.stack([a, b]))
    for k in range(4):
        for i in range(2):
            expected = np.rot90(restored[i], k)[..., ::-1].transpose(2, 0, 1) / 255.0
            assert np.allclose(x[2 * k + i], expected)
    with pytest.raises(KeyError):
        namer_input([a], turns=3)


def _red_corners_read_red(namer, monkeypatch, restore: bool) -> tuple[int, int]:
    """(red corners named with a red suit, red corners) on the dev photos shrunk so that the
    indices are 14 px wide and saved as JPEG q50, as a far cheap webcam sends them."""
    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.inference.exposure import normalise_light
    from vision.training import perturb
    from vision.training.evaluate import labelled_frames

    if not restore:
        monkeypatch.setattr(corner_crops, "CHROMA_MAX_GAIN", 1.0)
    far_jpeg = perturb.condition("small-jpeg", 50)
    red = right = 0
    for image, frame, truth in labelled_frames(DEV, every=2):
        boxes = np.array([b for _, b in truth.boxes], np.float64).reshape(-1, 4)
        small, moved = far_jpeg.apply(frame, boxes, image.name)
        small = normalise_light(small)
        reds = [(c, b) for (c, _), b in zip(truth.boxes, moved, strict=True) if c[1] in "DH"]
        if not reds:
            continue
        probs = namer.probabilities([crop_corner(small, tuple(b)) for _, b in reds], 4)
        named = [NAMER_CLASSES[int(i)] for i in probs.argmax(axis=1)]
        red += len(reds)
        right += sum(n != "none" and n[1] in "DH" for n in named)
    monkeypatch.undo()
    return right, red


def test_red_corners_of_a_far_jpeg_webcam_are_read_red_more_often(monkeypatch):
    model_or_skip()
    dev_or_skip()
    from vision.inference.detector import Namer

    namer = Namer(MODELS / "gintray-namer.onnx")
    plain, red = _red_corners_read_red(namer, monkeypatch, restore=False)
    restored, red_again = _red_corners_read_red(namer, monkeypatch, restore=True)
    assert red == red_again and red > 100
    print(f"red corners read red at 14 px, JPEG q50: {plain} -> {restored} of {red}")
    assert restored >= plain + 8  # measured: 129 -> 142 of 151
    assert restored >= 0.9 * red
