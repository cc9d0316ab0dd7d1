"""Quantise the ONNX models to 8-bit integers (static, QDQ, per channel).

The int8 finder is a quarter of the float file and faster on a CPU; the detection head's last
layers (box decoding, the class logits and the output concat, which mixes pixel coordinates
with 0-1 scores) stay in float, since one shared 8-bit scale cannot hold both. The int8 namer
keeps its fully connected layers and the rank x suit probabilities in float. Calibration uses
real training photos (frames for the finder, their labelled corner crops for the namer), never
the dev set that the models are measured on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.corner_crops import CROP_SIZE
from vision.detector import Namer, _blob, _letterbox, _resize

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


def calibration_crops(
    folder: Path, every: int = 3, batch: int = 32, size: int = CROP_SIZE
) -> Iterator[np.ndarray]:
    """Namer input batches: the labelled corner crops (`size` px) of every `every`-th image of
    `folder` (a YOLO folder with images/ and labels/)."""
    from vision.corner_crops import crop_corner, to_tensor_layout
    from vision.evaluate import labelled_frames

    crops = []
    for _, frame, truth in labelled_frames(folder, every):
        if frame is not None:
            crops += [crop_corner(frame, box, size=size) for _, box in truth.boxes]
    for start in range(0, len(crops), batch):
        yield to_tensor_layout(crops[start : start + batch])


def _quantize(
    src: Path, dst: Path, inputs: Iterator[np.ndarray], float_nodes: Callable[[list], list[str]]
) -> Path:
    """Static QDQ int8 copy of `src` calibrated on `inputs`; the nodes named by
    `float_nodes(nodes of the prepared graph)` stay float."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Inputs(CalibrationDataReader):
        def __init__(self, name: str) -> None:
            self.name = name

        def get_next(self) -> dict | None:
            blob = next(inputs, None)
            return None if blob is None else {self.name: blob}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        model = onnx.load(str(prepared))
        keep = float_nodes(list(model.graph.node))
        quantize_static(
            str(prepared),
            str(dst),
            Inputs(model.graph.input[0].name),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=keep,
        )
    return dst


def quantize_finder(src: Path, dst: Path, calibration: Path, every: int = 10) -> Path:
    """Write an int8 copy of the float ONNX finder `src` to `dst`, calibrated on `calibration`."""
    frames = calibration_frames(calibration, every)
    return _quantize(
        src, dst, frames, lambda nodes: [n.name for n in nodes if _keep_in_float(n.name)]
    )


def quantize_namer(src: Path, dst: Path, calibration: Path, every: int = 3) -> Path:
    """Write an int8 copy of the float ONNX namer `src` to `dst`.

    Calibrated on the labelled corner crops of the YOLO folder `calibration`. The convolutional
    trunk is int8; from the Flatten on (fully connected layers, softmax, rank x suit product)
    stays float, which is also what OpenCV's DNN module can read.
    """

    def from_flatten(nodes: list) -> list[str]:
        first = next(i for i, n in enumerate(nodes) if n.op_type == "Flatten")
        return [n.name for n in nodes[first:]]

    crops = calibration_crops(calibration, every, size=Namer(src).crop_size)
    return _quantize(src, dst, crops, from_flatten)
