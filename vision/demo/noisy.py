"""A copy of the demo footage as a cheap webcam would film it: pixels never identical.

The demo's frames repeat a scene with the same pixels until something moves; a real camera's
frames differ by sensor noise, compression and small light drift, every frame. This writes a
copy with, per frame (seeded, so the copy is the same on every run):

- sensor noise: Gaussian, sigma `SENSOR_SIGMA` grey levels, fresh in every frame (the real dev
  webcam frames measure 0.4-4.8 by Immerkaer's estimate, median 1.5: this is their 90th
  percentile; `benchmarks/bench_latency.py --calibrate`);
- light drift: a global gain drifting within +-`DRIFT` (auto exposure, a cloud);
- JPEG re-encoding at quality `JPEG_QUALITY`.

    .venv/bin/python -m vision.demo.noisy --out /tmp/noisy [--seed 1]
    .venv/bin/python -m vision.demo.verify --footage /tmp/noisy
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.demo.verify import DEMO_DIR

SENSOR_SIGMA = 4.0
DRIFT = 0.03
JPEG_QUALITY = 70


def noisy_frame(image: np.ndarray, rng: np.random.Generator, gain: float) -> np.ndarray:
    """One frame with fresh sensor noise and a light gain, JPEG re-encoded."""
    noisy = image.astype(np.float32) * gain + rng.normal(0, SENSOR_SIGMA, image.shape)
    ok, data = cv2.imencode(".jpg", np.clip(noisy, 0, 255).astype(np.uint8),
                            [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def copy_demo_frames(out: Path, frame: Callable[[int, np.ndarray], np.ndarray],
                     demo_dir: Path = DEMO_DIR) -> list[Path]:
    """Write ``frame(i, image)`` of every demo frame into ``out`` (same names), in order; the
    paths. The one loop of the demo's filmed copies (this one, `vision.demo.real_camera`)."""
    names = [f["frame"] for f in json.loads((demo_dir / "ground_truth.json").read_text())
             ["frames"]]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, name in enumerate(names):
        image = cv2.imread(str(demo_dir / "hand" / name))
        if image is None:
            raise FileNotFoundError(demo_dir / "hand" / name)
        path = out / name
        if not cv2.imwrite(str(path), frame(i, image)):
            raise OSError(f"cannot write {path}")
        written.append(path)
    return written


def write_noisy_footage(out: Path, seed: int = 1, demo_dir: Path = DEMO_DIR) -> list[Path]:
    """Write the noisy copy of every demo frame into ``out`` (same names); the paths."""
    rng = np.random.default_rng(seed)

    def frame(i: int, image: np.ndarray) -> np.ndarray:
        gain = 1.0 + DRIFT * np.sin(i / 7.0)  # slow drift over a few seconds of footage
        return noisy_frame(image, rng, gain)

    return copy_demo_frames(out, frame, demo_dir)


def copy_main(argv: list[str] | None, doc: str, write: Callable[[Path, int], list[Path]],
              what: str) -> int:
    """The command line of a demo copy: ``--out DIR [--seed N]``; says ``N {what} in DIR``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write the copy to")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    written = write(args.out, args.seed)
    print(f"{len(written)} {what} in {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return copy_main(argv, __doc__, write_noisy_footage, "noisy frames")


if __name__ == "__main__":
    sys.exit(main())
