"""Read frames with the detector and print the detections as JSON (run under emulation).

    python tests/emulation/read_frames.py [--backend B] [--weights F] [--namer N] [--turns T]
        [--max-upscale X] IMAGE...

Prints one JSON object: {"cpu": ..., "frames": {name: [{"card", "box", "confidence"}...]}}.
Kept free of anything but numpy, OpenCV and onnxruntime, so that it runs in the arm64 root
that .ci/emulators builds (the project's own code comes from PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2

from vision.inference.detector import load_detector


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("images", nargs="+", type=Path)
    ap.add_argument("--backend", default=None)
    ap.add_argument("--weights", default=None)
    ap.add_argument("--namer", default=None)
    ap.add_argument("--turns", type=int, default=None, help="namer quarter turns (1, 2 or 4)")
    ap.add_argument("--max-upscale", type=float, default=None,
                    help="the finer pass's largest enlargement of the frame")
    args = ap.parse_args()
    kwargs = {} if args.backend is None else {"backend": args.backend}
    if args.turns is not None:
        kwargs["turns"] = args.turns
    if args.max_upscale is not None:
        kwargs["max_upscale"] = args.max_upscale
    detector = load_detector(weights=args.weights, namer_weights=args.namer, **kwargs)
    frames = {}
    for path in args.images:
        found = detector.detect(cv2.imread(str(path)))
        frames[path.name] = [
            {"card": d.card, "box": [round(v, 2) for v in d.box], "confidence": d.confidence}
            for d in found
        ]
    print(json.dumps({"machine": platform.machine(), "frames": frames}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
