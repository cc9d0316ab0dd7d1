"""Quantise the corner finder's ONNX export to 8-bit integers (static, QDQ, per channel).

The int8 finder is a quarter of the float file and faster on a CPU; the detection head's last
layers (box decoding, the class logits and the output concat, which mixes pixel coordinates
with 0-1 scores) stay in float, since one shared 8-bit scale cannot hold both. Calibration
frames are real training photos, never the dev set that the model is measured on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.detector import _blob, _letterbox, _resize

HEAD = "/model.23/"  # the YOLO11 detection head in ultralytics' ONNX export


def calibration_frames(folder: Path, every: int = 10, side: int = 640) -> Iterator[np.ndarray]:
    """Every `every`-th image of `folder` as the finder's input blob (long side `side`)."""
    for path in sorted(folder.glob("*.jpg"))[::every]:
        image = cv2.imread(str(path))
        if image is None:
            continue
        resized = _resize(image, min(1.0, side / max(image.shape[:2])))
        padded, _ = _letterbox(resized, side, square=False)
        yield _blob(padded)


def _keep_in_float(node_name: str) -> bool:
    """Head nodes other than the box/class branches' hidden convolutions stay float."""
    if not node_name.startswith(HEAD):
        return False
    in_branch = "/cv2." in node_name or "/cv3." in node_name
    return not in_branch or node_name.endswith(".2/Conv")


def quantize_finder(src: Path, dst: Path, calibration: Path, every: int = 10) -> Path:
    """Write an int8 copy of the float ONNX finder `src` to `dst`, calibrated on `calibration`."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Frames(CalibrationDataReader):
        def __init__(self, name: str) -> None:
            self.frames = calibration_frames(calibration, every)
            self.name = name

        def get_next(self) -> dict | None:
            blob = next(self.frames, None)
            return None if blob is None else {self.name: blob}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        model = onnx.load(str(prepared))
        keep = [n.name for n in model.graph.node if _keep_in_float(n.name)]
        quantize_static(
            str(prepared),
            str(dst),
            Frames(model.graph.input[0].name),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=keep,
        )
    return dst
