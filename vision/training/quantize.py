"""Quantise the ONNX models to 8-bit integers (static, QDQ, per channel), or back to float.

Only the namer ships quantised (reduced range, which reads the same on every CPU tested); the
finder ships in float, since its int8 copy read worse on x86 without VNNI (models/MODEL_CARD.md).

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

from vision.inference.corner_crops import CROP_SIZE
from vision.inference.detector import Namer, _blob, _letterbox, _resize

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
    from vision.inference.corner_crops import crop_corner, namer_input
    from vision.training.evaluate import labelled_frames

    crops = []
    for _, frame, truth in labelled_frames(folder, every):
        if frame is not None:
            crops += [crop_corner(frame, box, size=size) for _, box in truth.boxes]
    for start in range(0, len(crops), batch):
        yield namer_input(crops[start : start + batch])


def _quantize(
    src: Path,
    dst: Path,
    inputs: Iterator[np.ndarray],
    float_nodes: Callable[[list], list[str]],
    reduce_range: bool = False,
) -> Path:
    """Static QDQ int8 copy of `src` calibrated on `inputs`; the nodes named by
    `float_nodes(nodes of the prepared graph)` stay float. `reduce_range` keeps weights to 7
    bits."""
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
            reduce_range=reduce_range,
            nodes_to_exclude=keep,
        )
    return dst


def quantize_finder(src: Path, dst: Path, calibration: Path, every: int = 10) -> Path:
    """Write an int8 copy of the float ONNX finder `src` to `dst`, calibrated on `calibration`."""
    frames = calibration_frames(calibration, every)
    return _quantize(
        src, dst, frames, lambda nodes: [n.name for n in nodes if _keep_in_float(n.name)]
    )


def quantize_namer(
    src: Path, dst: Path, calibration: Path, every: int = 3, reduce_range: bool = True
) -> Path:
    """Write an int8 copy of the float ONNX namer `src` to `dst`.

    Calibrated on the labelled corner crops of the YOLO folder `calibration`. The convolutional
    trunk is int8; from the Flatten on (fully connected layers, softmax, rank x suit product)
    stays float, which is also what OpenCV's DNN module can read. `reduce_range` (default)
    keeps weights to 7 bits, so that x86 CPUs without VNNI, whose kernels add pairs of
    8-bit products in 16 bits, cannot saturate: measured, the namer then reads bit for bit the
    same on AVX-512 VNNI and AVX2-only x86, and within float rounding on ARM64 (the full-range
    int8 namer read 10 of 514 dev crops differently on AVX2).
    """

    def from_flatten(nodes: list) -> list[str]:
        first = next(i for i, n in enumerate(nodes) if n.op_type == "Flatten")
        return [n.name for n in nodes[first:]]

    crops = calibration_crops(calibration, every, size=Namer(src).crop_size)
    return _quantize(src, dst, crops, from_flatten, reduce_range=reduce_range)


def dequantize(src: Path, dst: Path) -> Path:
    """Write a float copy of the QDQ model `src` to `dst` that every CPU reads alike.

    Each weight's DequantizeLinear becomes its float value (the 8-bit grid times its scale, so
    the weights are exactly those of `src`); each activation's QuantizeLinear/DequantizeLinear
    pair becomes a Clip to the range the 8-bit activation could hold (the quantiser dropped the
    ReLUs that this range stands for). Only the rounding of activations to 8 bits is gone,
    and with it the CPU-dependent integer kernels (see models/MODEL_CARD.md).
    """
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    consts = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    quantized_from: dict[str, tuple[str, str, str]] = {}  # Q output -> (input, scale, zero point)
    nodes, new_consts = [], []

    def axis_of(node) -> int:
        return next((helper.get_attribute_value(a) for a in node.attribute if a.name == "axis"), 1)

    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in consts:
            q = consts[node.input[0]].astype(np.float32)
            scale = consts[node.input[1]].astype(np.float32)
            zero = consts[node.input[2]].astype(np.float32) if len(node.input) > 2 else 0 * scale
            if scale.size > 1:  # per channel along `axis`
                shape = [1] * q.ndim
                shape[axis_of(node)] = -1
                scale, zero = scale.reshape(shape), zero.reshape(shape)
            new_consts.append(numpy_helper.from_array((q - zero) * scale, node.output[0]))
        elif node.op_type == "QuantizeLinear":
            quantized_from[node.output[0]] = (node.input[0], node.input[1], node.input[2])
        elif node.op_type == "DequantizeLinear":
            source, scale_name, zero_name = quantized_from[node.input[0]]
            scale, zero = float(consts[scale_name]), consts[zero_name]
            low, high = (0, 255) if zero.dtype == np.uint8 else (-128, 127)
            bounds = [node.output[0] + "_low", node.output[0] + "_high"]
            for name, level in zip(bounds, (low, high), strict=True):
                value = np.array((level - float(zero)) * scale, np.float32)
                new_consts.append(numpy_helper.from_array(value, name))
            nodes.append(helper.make_node("Clip", [source, *bounds], [node.output[0]]))
        else:
            nodes.append(node)
    used = {name for node in nodes for name in node.input}
    kept = [init for init in graph.initializer if init.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + new_consts)
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))
    return dst
