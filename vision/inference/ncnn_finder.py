"""The corner finder run by NCNN (Tencent's inference library for ARM boards): `--backend ncnn`.

The files come from one export of the shipped checkpoint (`python -m
vision.training.export_ncnn`): `models/gintray-corners.ncnn.param` (the graph, whose shapes
follow the input, so it reads frames padded to multiples of 32 like the ONNX finder) and
`.ncnn.bin` (float32 weights). The graph ends before the YOLO head's anchor grid: it gives each
anchor's distances to the box sides (in grid cells) and its class probabilities, and
`boxes_from_distances` places them on the grid here, as ultralytics' `dist2bbox` does. From
there on the ONNX finder's steps are reused (`_letterbox`, `_blob`, `_decode_yolo`).

NCNN runs in float32 on every CPU here: its fp16/bf16 storage and arithmetic (on by default where
the CPU has them, as ARMv8.2 Cortex-A76 does) are turned off, so that a Pi reads what x86 reads.
The namer stays on onnxruntime.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.inference.detector import (
    MODELS_DIR,
    DetectorUnavailable,
    _blob,
    _decode_yolo,
    _letterbox,
    _threads,
)

DEFAULT_CORNERS_NCNN = MODELS_DIR / "gintray-corners.ncnn.param"
STRIDES = (8, 16, 32)  # YOLO11's three detection levels
GRID_OFFSET = 0.5  # anchors sit at cell centres


def weights_file(param: Path) -> Path:
    """The .bin weights beside an NCNN .param graph."""
    return param.with_suffix(".bin")


def boxes_from_distances(out: np.ndarray, height: int, width: int) -> np.ndarray:
    """(4 + classes, N) distances (left, top, right, bottom in grid cells) and probabilities for
    an input of `height` x `width` -> the same with cx, cy, w, h boxes in input pixels.

    :raises ValueError: N is not the anchor count of that input size.
    """
    points, strides = [], []
    for stride in STRIDES:
        h, w = -(-height // stride), -(-width // stride)
        sy, sx = np.meshgrid(np.arange(h, dtype=np.float32) + GRID_OFFSET,
                             np.arange(w, dtype=np.float32) + GRID_OFFSET, indexing="ij")
        points.append(np.stack([sx.ravel(), sy.ravel()]))
        strides.append(np.full(h * w, stride, np.float32))
    anchors, scale = np.concatenate(points, axis=1), np.concatenate(strides)
    if out.shape[1] != anchors.shape[1]:
        raise ValueError(f"{out.shape[1]} anchors for a {height}x{width} input, "
                         f"expected {anchors.shape[1]}")
    lt, rb = out[:2], out[2:4]
    x1y1, x2y2 = anchors - lt, anchors + rb
    boxes = np.concatenate([(x1y1 + x2y2) / 2, x2y2 - x1y1]) * scale
    return np.concatenate([boxes, out[4:]]).astype(np.float32)


class NcnnCornerFinder:
    """The corner finder's NCNN export run by ncnn's Python binding (float32, any frame size)."""

    def __init__(self, path: Path, imgsz: int = 640, conf: float = 0.1, iou: float = 0.5):
        try:
            import ncnn
        except ImportError as exc:
            raise DetectorUnavailable(
                "the ncnn backend needs the ncnn wheel (`pip install ncnn`, a gintray dependency)"
            ) from exc
        path = Path(path)
        self.files = (path, weights_file(path))
        for file in self.files:
            if not file.is_file():
                raise DetectorUnavailable(f"model file missing: {file}")
        self.ncnn = ncnn
        self.net = ncnn.Net()
        opt = self.net.opt
        opt.num_threads = _threads()
        opt.use_vulkan_compute = False
        # float32 everywhere: half-precision paths would read differently on ARM and x86
        for name in ("use_fp16_packed", "use_fp16_storage", "use_fp16_arithmetic",
                     "use_bf16_storage", "use_bf16_packed"):
            if hasattr(opt, name):
                setattr(opt, name, False)
        if self.net.load_param(str(self.files[0])) != 0:
            raise DetectorUnavailable(f"ncnn cannot read the graph {self.files[0]}")
        if self.net.load_model(str(self.files[1])) != 0:
            raise DetectorUnavailable(f"ncnn cannot read the weights {self.files[1]}")
        self.input = self.net.input_names()[0]
        self.output = self.net.output_names()[0]
        self.imgsz, self.conf, self.iou = imgsz, conf, iou

    def raw(self, blob: np.ndarray) -> np.ndarray:
        """The network's output for a 1 x 3 x H x W blob, (1, 4 + classes, N) as the ONNX
        finder's: cx, cy, w, h in input pixels, then class probabilities."""
        _, _, height, width = blob.shape
        with self.net.create_extractor() as ex:
            ex.input(self.input, self.ncnn.Mat(np.ascontiguousarray(blob[0])))
            status, out = ex.extract(self.output)
        if status != 0:
            raise RuntimeError(f"ncnn failed on a {height}x{width} input (status {status})")
        return boxes_from_distances(np.array(out), height, width)[None]

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N x 4 boxes x1, y1, x2, y2 in image pixels, N scores), as `OnnxCornerFinder.find`."""
        padded, r = _letterbox(image, self.imgsz, square=False)
        return _decode_yolo(self.raw(_blob(padded)), self.conf, self.iou, r)
