"""A namer's training can start from the shipped ONNX namer (its checkpoints are not kept)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.inference.detector import DEFAULT_NAMER_ONNX

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def float_namer(tmp_path_factory) -> Path:
    from vision.training.quantize import dequantize

    return dequantize(DEFAULT_NAMER_ONNX, tmp_path_factory.mktemp("namer") / "float.onnx")


def test_torch_namer_from_onnx_reads_like_the_onnx_file(float_namer):
    import onnxruntime as ort

    from vision.training.namer_from_onnx import load_into, onnx_namer_weights
    from vision.training.train_classifier import build_model, card_probabilities

    widths, crop_size, state = onnx_namer_weights(float_namer)
    model = build_model(widths, crop_size)
    load_into(model, state)
    model.eval()
    crops = np.random.default_rng(0).random((6, 3, crop_size, crop_size)).astype(np.float32)
    ours = card_probabilities(model(torch.from_numpy(crops))).detach().numpy()
    theirs = ort.InferenceSession(str(float_namer)).run(None, {"crops": crops})[0]
    assert np.abs(ours - theirs).max() < 1e-5


def test_frozen_batch_norm_keeps_the_onnx_reading_in_training_mode(float_namer):
    """Batch statistics would undo the folded normalisation: training mode must read alike."""
    from vision.training.namer_from_onnx import freeze_batch_norm, load_into, onnx_namer_weights
    from vision.training.train_classifier import build_model

    widths, crop_size, state = onnx_namer_weights(float_namer)
    model = build_model(widths, crop_size)
    load_into(model, state)
    model.eval()
    crops = torch.rand(4, 3, crop_size, crop_size)
    expected = model(crops)
    model.train()
    freeze_batch_norm(model)
    model[12].eval()  # dropout off, to compare
    assert torch.allclose(model(crops), expected, atol=1e-5)


def test_an_int8_namer_is_refused_with_a_reason():
    from vision.training.namer_from_onnx import onnx_namer_weights

    with pytest.raises(ValueError, match="dequantise"):
        onnx_namer_weights(DEFAULT_NAMER_ONNX)
