"""Export the corner finder's ultralytics checkpoint to NCNN files that read any frame size.

    .venv/bin/python -m vision.training.export_ncnn [--weights models/gintray-corners.pt]
                                                     [--out models/gintray-corners]

writes OUT.ncnn.param and OUT.ncnn.bin (float32 weights) from one export, read at run time by
`vision/inference/ncnn_finder.py` (`--backend ncnn`). Needs the `bench` extra (pnnx, ncnn, torch).

Ultralytics' own NCNN export (`export(format="ncnn")`, kept here: the same fused model, the same
pnnx call) traces one 640x640 input, so its graph is fixed to 640x640: the head's attention
reshapes to 20x20 and the 8400 anchor points are folded into constants. The ONNX finder reads
frames padded to multiples of 32 (640x384 for a 16:9 webcam frame), and padding a frame to a
square changes what the attention sees. So this export

- gives pnnx a second input shape (`inputs2`, 384x512, both sides other than 640): pnnx then
  writes the shapes that follow the input as NCNN shape expressions instead of constants;
- stops the head before the anchor points (NCNN has no `arange`): the graph ends with the DFL
  distances (left, top, right, bottom in grid cells) and the class probabilities, and
  `vision.inference.ncnn_finder.boxes_from_distances` places them on the anchor grid in numpy,
  as ultralytics' `dist2bbox` does (`head_decoding_matches` checks it against torch).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_WEIGHTS = REPO / "models" / "gintray-corners.pt"
DEFAULT_OUT = REPO / "models" / "gintray-corners"
SECOND_SHAPE = (1, 3, 384, 512)  # the second traced input: every side differs from 640


def _distances_inference(self, x: dict) -> object:
    """Detect._inference without the anchor grid: DFL distances and class probabilities."""
    import torch

    return torch.cat((self.dfl(x["boxes"]), x["scores"].sigmoid()), 1)


def _patched_pnnx_export(original):
    """pnnx.export with a second input shape, the head cut before its anchors, and the pnnx
    Python module (a by-product whose import may fail) not needed."""

    def export(model, inputs=None, **kwargs):
        import torch
        from ultralytics.nn.modules.head import Detect

        for module in model.modules():
            if isinstance(module, Detect):
                module._inference = types.MethodType(_distances_inference, module)
        try:
            return original(model, inputs=inputs, inputs2=torch.zeros(SECOND_SHAPE), **kwargs)
        except (SyntaxError, FileNotFoundError, ImportError) as exc:  # the .py by-product only
            if not Path(kwargs["ncnnparam"]).is_file() or not Path(kwargs["ncnnbin"]).is_file():
                raise
            print(f"export_ncnn: pnnx's Python by-product did not load ({exc}); "
                  "the NCNN files are written")
            return None

    return export


def export_ncnn(weights: Path, out: Path, imgsz: int = 640) -> tuple[Path, Path]:
    """Export `weights` to `out`.ncnn.param and `out`.ncnn.bin (float32); returns both paths."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import pnnx
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / weights.name
        shutil.copy2(weights, local)  # ultralytics writes beside the weights
        original = pnnx.export
        pnnx.export = _patched_pnnx_export(original)
        try:
            YOLO(str(local), task="detect").export(format="ncnn", imgsz=imgsz, device="cpu")
        finally:
            pnnx.export = original
        folder = Path(tmp) / f"{weights.stem}_ncnn_model"
        param, weights_bin = folder / "model.ncnn.param", folder / "model.ncnn.bin"
        if not param.is_file() or not weights_bin.is_file():
            raise RuntimeError(f"the NCNN export wrote no {param.name} / {weights_bin.name}")
        out.parent.mkdir(parents=True, exist_ok=True)
        targets = (out.with_name(out.name + ".ncnn.param"), out.with_name(out.name + ".ncnn.bin"))
        shutil.copyfile(param, targets[0])
        shutil.copyfile(weights_bin, targets[1])
    return targets


def head_decoding_matches(weights: Path, param: Path, shape: tuple[int, int] = (384, 640)) -> float:
    """Largest difference between ultralytics' decoded output (torch) and the NCNN files'
    output decoded by `boxes_from_distances`, on one random input of `shape` (H, W)."""
    import numpy as np
    import torch
    from ultralytics import YOLO

    from vision.inference.ncnn_finder import NcnnCornerFinder

    x = np.random.default_rng(0).random((1, 3, *shape), dtype=np.float32)
    model = YOLO(str(weights), task="detect").model.float().eval()
    with torch.no_grad():
        reference = model(torch.from_numpy(x))[0].numpy()
    finder = NcnnCornerFinder(param)
    return float(np.max(np.abs(finder.raw(x) - reference)))


def main(argv: list[str] | None = None) -> int:
    """Export, then check the decoded output against ultralytics' on a 384x640 input."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="path prefix: OUT.ncnn.param and OUT.ncnn.bin")
    args = ap.parse_args(argv)
    param, weights_bin = export_ncnn(args.weights, args.out)
    print(f"wrote {param} and {weights_bin}")
    for shape in ((384, 640), (640, 640), (640, 352)):
        diff = head_decoding_matches(args.weights, param, shape)
        print(f"{shape[0]}x{shape[1]}: NCNN output within {diff:.2g} of ultralytics' (torch)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
