"""A namer can read bigger crops than 48 px (more of a webcam index's pixels) and start from a
48-px namer's weights; the detector crops at whatever size its namer reads."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vision.training.train_classifier import (  # noqa: E402
    CROP_SIZES,
    _checkpoint_crop_size,
    build_model,
    card_probabilities,
    export_onnx,
)


@pytest.mark.parametrize("size", sorted(CROP_SIZES))
def test_every_crop_size_reads_its_crops_with_the_same_parameters(size):
    small, big = build_model(), build_model(crop_size=size)
    assert [k for k, _ in small.state_dict().items()] == [k for k, _ in big.state_dict().items()]
    big.load_state_dict(small.state_dict())  # a 48-px namer starts a bigger one
    with torch.no_grad():
        probs = card_probabilities(big.eval()(torch.rand(3, 3, size, size)))
    assert probs.shape == (3, 53)
    assert torch.allclose(probs.sum(dim=1), torch.ones(3), atol=1e-5)


def test_a_crop_size_the_head_cannot_take_is_refused():
    with pytest.raises(KeyError):
        build_model(crop_size=50)


def test_checkpoints_from_before_crop_sizes_read_48_px():
    assert _checkpoint_crop_size({"model": {}, "widths": [16, 32, 96, 192]}) == 48
    assert _checkpoint_crop_size({"crop_size": 64}) == 64


def test_detector_crops_found_corners_at_its_namers_size(tmp_path):
    """With a 64-px namer the detector hands it 64-px crops of the found corners."""
    from vision.inference.detector import CardDetector, Namer

    torch.manual_seed(0)
    export_onnx(build_model(crop_size=64), tmp_path / "namer.onnx", 64)
    namer = Namer(tmp_path / "namer.onnx")
    assert namer.crop_size == 64
    seen: list[tuple[int, ...]] = []
    read = namer.probabilities

    def spy(patches, turns=4):
        seen.extend(p.shape for p in patches)
        return read(patches, turns)

    namer.probabilities = spy

    class TwoCorners:
        def find(self, image):
            boxes = np.array([[20, 20, 40, 70], [100, 30, 118, 80]], np.float32)
            return boxes, np.array([0.9, 0.8], np.float32)

    frame = np.full((120, 160, 3), 200, np.uint8)
    CardDetector(TwoCorners(), namer, min_confidence=0.0).detect(frame)
    assert seen == [(64, 64, 3), (64, 64, 3)]
    probs = read([namer.crop(frame, (20, 20, 40, 70))])
    assert probs.shape == (1, 53)
    assert np.isclose(probs.sum(), 1.0, atol=1e-4)
