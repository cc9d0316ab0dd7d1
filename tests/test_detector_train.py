"""Training smoke runs: a handful of synthetic scenes, one tiny epoch; the namer for seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from detector_helpers import decks_or_skip, pretrained_or_skip


@pytest.mark.slow
def test_tiny_detector_and_namer_training_produce_usable_weights(tmp_path):
    decks_or_skip()
    pretrained_or_skip()
    from vision.cli import synth_main, train_main

    synth = tmp_path / "synth"
    assert synth_main(["--out", str(synth), "--count", "6", "--seed", "3", "--workers", "1"]) == 0
    status = train_main(
        [
            "detector",
            "--synth",
            str(synth),
            "--real",
            "",
            "--epochs",
            "1",
            "--imgsz",
            "64",
            "--batch",
            "3",
            "--workers",
            "0",
            "--cache",
            "False",
            "--project",
            str(tmp_path / "runs"),
            "--name",
            "smoke",
            "--work",
            str(tmp_path / "work"),
        ]
    )
    assert status == 0
    assert (tmp_path / "runs" / "smoke" / "weights" / "last.pt").stat().st_size > 1_000_000
    import json

    import torch

    # each run says where it trained (issue 13 item 5: CUDA when torch sees it)
    notes = json.loads((tmp_path / "runs" / "smoke" / "run-notes.json").read_text())
    assert notes["device"] == ("cuda" if torch.cuda.is_available() else "cpu")
    assert notes["stage"] == "detector" and notes["device_name"]

    namer = tmp_path / "namer"
    assert (
        train_main(
            [
                "classifier",
                "--synth",
                str(synth),
                "--real",
                "",
                "--minutes",
                "0.05",
                "--batch",
                "8",
                "--glyph-share",
                "0.3",
                "--ema",
                "0.9",
                "--out",
                str(namer),
            ]
        )
        == 0
    )
    import onnxruntime as ort

    session = ort.InferenceSession(str(namer / "namer.onnx"), providers=["CPUExecutionProvider"])
    probs = session.run(None, {"crops": np.zeros((2, 3, 48, 48), np.float32)})[0]
    assert probs.shape == (2, 53)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    notes = json.loads((namer / "run-notes.json").read_text())
    assert notes["device"] == ("cuda" if torch.cuda.is_available() else "cpu")

    # training goes on from that namer, widened; the checkpoint remembers its widths
    wider = tmp_path / "namer-wide"
    args = ["classifier", "--synth", str(synth), "--real", "", "--minutes", "0.02"]
    args += ["--batch", "8", "--init", str(namer / "namer.pt"), "--widths", "16,32,96,192"]
    assert train_main([*args, "--out", str(wider)]) == 0

    state = torch.load(wider / "namer.pt", map_location="cpu", weights_only=False)
    assert state["widths"] == [16, 32, 96, 192]
    assert state["model"]["6.3.weight"].shape[:2] == (192, 192)
    session = ort.InferenceSession(str(wider / "namer.onnx"), providers=["CPUExecutionProvider"])
    assert session.run(None, {"crops": np.zeros((2, 3, 48, 48), np.float32)})[0].shape == (2, 53)

    # and on at a bigger crop: the checkpoint and the ONNX input say so, and the namer reads it
    bigger = tmp_path / "namer-56"
    args = ["classifier", "--synth", str(synth), "--real", "", "--minutes", "0.02", "--batch", "8"]
    args += ["--init", str(wider / "namer.pt"), "--crop-size", "56", "--out", str(bigger)]
    assert train_main(args) == 0
    state = torch.load(bigger / "namer.pt", map_location="cpu", weights_only=False)
    assert (state["crop_size"], state["widths"]) == (56, [16, 32, 96, 192])
    from vision.inference.detector import Namer

    namer_56 = Namer(bigger / "namer.onnx")
    assert namer_56.crop_size == 56
    patch = namer_56.crop(np.zeros((100, 100, 3), np.uint8), (10.0, 10.0, 30.0, 60.0))
    assert patch.shape == (56, 56, 3)
    assert namer_56.probabilities([patch, patch], turns=2).shape == (2, 53)


@pytest.mark.slow
def test_int8_finder_finds_the_same_corners_as_the_float_export(tmp_path):
    """`gintray train export` ships the finder quantised: it must keep the float model's boxes."""
    import os
    import shutil

    import cv2
    from detector_helpers import MODELS, SHARED, dev_or_skip

    dev_or_skip()
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    from vision.inference.detector import OnnxCornerFinder
    from vision.training.evaluate import iou
    from vision.training.quantize import quantize_finder

    pt = tmp_path / "finder.pt"
    shutil.copyfile(MODELS / "gintray-corners.pt", pt)
    float_onnx = YOLO(str(pt)).export(format="onnx", dynamic=True, opset=17, device="cpu")
    train_images = SHARED / "data" / "real-cards" / "train" / "images"
    int8 = quantize_finder(Path(float_onnx), tmp_path / "int8.onnx", train_images, every=60)
    assert int8.stat().st_size < Path(float_onnx).stat().st_size / 2.5

    float_finder, int8_finder = OnnxCornerFinder(Path(float_onnx)), OnnxCornerFinder(int8)
    matched = total = 0
    for path in sorted((SHARED / "data" / "real-cards" / "dev" / "images").glob("*.jpg"))[:4]:
        image = cv2.imread(str(path))
        ref_boxes, ref_scores = float_finder.find(image)
        boxes, _ = int8_finder.find(image)
        for ref in ref_boxes[ref_scores > 0.5]:
            total += 1
            matched += any(iou(ref, b) > 0.7 for b in boxes)
    assert total >= 20
    assert matched / total >= 0.9


@pytest.mark.slow
def test_int8_namer_is_smaller_reads_in_both_engines_and_gives_the_float_probabilities(tmp_path):
    """`gintray train export` ships the namer with an int8 trunk; the fully connected layers and
    the rank x suit product stay float, so probabilities sum to one and follow the float model,
    in onnxruntime and in OpenCV's DNN module (the opencv backend reads the same file)."""
    import torch
    from detector_helpers import DEV, SHARED, dev_or_skip

    dev_or_skip()
    from vision.inference.detector import Namer
    from vision.training.quantize import calibration_crops, quantize_namer
    from vision.training.train_classifier import build_model, export_onnx

    torch.manual_seed(0)
    float_onnx = tmp_path / "namer.onnx"
    export_onnx(build_model(), float_onnx)
    train = SHARED / "data" / "real-cards" / "train"
    int8 = quantize_namer(float_onnx, tmp_path / "int8.onnx", train, every=60)
    assert int8.stat().st_size < float_onnx.stat().st_size / 1.5

    crops = next(calibration_crops(DEV, every=5, batch=64))
    reference = Namer(float_onnx)._run(crops)
    quantised = Namer(int8)._run(crops)
    assert quantised.shape == (64, 53)
    np.testing.assert_allclose(quantised.sum(axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(quantised, reference, atol=1e-3)
    np.testing.assert_allclose(Namer(int8, "opencv")._run(crops), reference, atol=1e-3)


def test_asking_for_cuda_without_one_is_refused_with_the_reason():
    import torch

    from vision.training.train_device import training_device

    if torch.cuda.is_available():
        assert training_device("cuda") == "cuda"
        return
    assert training_device("auto") == "cpu"
    with pytest.raises(SystemExit, match="no CUDA device"):
        training_device("cuda")
