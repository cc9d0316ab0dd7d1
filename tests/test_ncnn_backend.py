"""The ncnn backend: the corner finder's NCNN export reads what the ONNX one reads.

The same reading on the Raspberry Pi 5's core (emulated) is checked in
test_portable_inference.py; the export itself is `python -m vision.training.export_ncnn`.
"""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np
import pytest

from vision.inference import doctor
from vision.inference.detector import (
    DetectorUnavailable,
    OnnxCornerFinder,
    _blob,
    _letterbox,
    load_detector,
)
from vision.inference.doctor import check_frame, compare_readings, readings
from vision.inference.ncnn_finder import (
    DEFAULT_CORNERS_NCNN,
    NcnnCornerFinder,
    boxes_from_distances,
    weights_file,
)

NO_NCNN = "the ncnn wheel is not installed (pip install ncnn)"


def _needs_ncnn() -> None:
    pytest.importorskip("ncnn", reason=NO_NCNN)


def test_ncnn_backend_reads_the_demo_frame_as_the_onnx_backend():
    _needs_ncnn()
    image = cv2.imread(str(check_frame()[0]))
    ncnn = readings(load_detector("ncnn").detect(image))
    onnx = readings(load_detector("onnx").detect(image))
    assert len(onnx) >= 20
    assert sorted(r.card for r in ncnn) == sorted(r.card for r in onnx)
    assert compare_readings(ncnn, onnx, min_iou=0.99) == []


def test_ncnn_detector_names_its_graph_weights_and_namer_for_the_doctor():
    _needs_ncnn()
    paths = load_detector("ncnn").model_paths
    assert [p.name for p in paths] == [
        "gintray-corners.ncnn.param", "gintray-corners.ncnn.bin", "gintray-namer.onnx"
    ]


@pytest.mark.slow  # the doctor's real reads on the ncnn backend
def test_doctor_checks_the_ncnn_files(capsys):
    _needs_ncnn()
    assert doctor.main(["--backend", "ncnn", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["backend"] == "ncnn"
    assert {m["path"].rsplit("/", 1)[-1] for m in report["model_files"]} == {
        "gintray-corners.ncnn.param", "gintray-corners.ncnn.bin", "gintray-namer.onnx"
    }


@pytest.mark.parametrize("size", [(360, 640), (640, 640), (640, 480)])
def test_ncnn_network_output_matches_onnx_on_rect_inputs(size):
    """Any frame padded to multiples of 32 (not only 640x640), decoded to the ONNX layout."""
    _needs_ncnn()
    h, w = size
    image = cv2.resize(cv2.imread(str(check_frame()[0])), (w, h))
    padded, _ = _letterbox(image, 640, square=False)
    blob = _blob(padded)
    onnx = OnnxCornerFinder(DEFAULT_CORNERS_NCNN.parent / "gintray-corners.onnx")
    want = onnx.session.run(None, {onnx.input.name: blob})[0]
    got = NcnnCornerFinder(DEFAULT_CORNERS_NCNN).raw(blob)
    assert got.shape == want.shape
    assert np.max(np.abs(got[0, :4] - want[0, :4])) < 0.05  # pixels
    assert np.max(np.abs(got[0, 4:] - want[0, 4:])) < 1e-3  # probabilities


def test_boxes_from_distances_places_the_anchor_grid():
    h, w = 64, 96  # 8x12 + 4x6 + 2x3 anchors
    n = 8 * 12 + 4 * 6 + 2 * 3
    out = np.zeros((5, n), np.float32)
    out[:4] = 1.0  # one grid cell to every side
    out[4] = 0.5
    boxes = boxes_from_distances(out, h, w)
    assert boxes.shape == (5, n)
    np.testing.assert_allclose(boxes[:, 0], [4, 4, 16, 16, 0.5])  # stride 8, first cell
    np.testing.assert_allclose(boxes[:, 1], [12, 4, 16, 16, 0.5])  # its right neighbour
    np.testing.assert_allclose(boxes[:, 96], [8, 8, 32, 32, 0.5])  # stride 16, first cell
    np.testing.assert_allclose(boxes[:, -1], [80, 48, 64, 64, 0.5])  # stride 32, last cell
    with pytest.raises(ValueError, match="anchors"):
        boxes_from_distances(out, 64, 64)


def test_weights_sit_beside_the_graph():
    assert weights_file(DEFAULT_CORNERS_NCNN).name == "gintray-corners.ncnn.bin"


def test_without_the_ncnn_wheel_the_backend_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ncnn", None)  # import ncnn -> ImportError
    with pytest.raises(DetectorUnavailable, match="ncnn"):
        load_detector("ncnn")
