"""Shaken and defocused copies of real training photos, for the corner finder.

The robustness sweep showed the finder losing corners under motion blur (9-15 px on the dev
frames' 22 px indices). Ultralytics' own augmentation has no shake, so this writes a YOLO
folder that holds every photo of a source folder as it is plus a blurred copy of a share of
them, with the same labels (blur moves no box). Blur lengths are in units of each photo's own
median index width, so close-up training photos (big indices) are shaken as hard, relative to
their indices, as an overhead webcam frame: a line blur 0.15-0.8 index widths long at any
angle, or a disk blur of radius 0.05-0.2 index widths. The blur models are the sweep's
(`vision.training.perturb`, in linear light); every draw comes from a generator seeded per
photo, so the folder is the same on every run.

    python -m vision.training.shaken_copies data/real-train-quarter data/real-train-shaken
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.training import perturb
from vision.training.yolo_labels import (
    copy_photo,
    make_yolo_folder,
    read_label_boxes,
    write_photo,
)

MOTION_SHARE = 0.65  # of the blurred copies; the rest are out of focus
MOTION_LENGTH = (0.15, 0.8)  # x the photo's median index width
DEFOCUS_RADIUS = (0.05, 0.2)  # x the photo's median index width


@dataclass(frozen=True)
class Shake:
    """The blur given to one copy: a line (`length`, `angle`) or a disk (`radius`), in px."""

    length: float = 0.0
    angle: float = 0.0
    radius: float = 0.0

    def apply(self, image: np.ndarray) -> np.ndarray:
        if self.length:
            return perturb.motion_blur(image, self.length, self.angle)
        return perturb.defocus(image, self.radius)


def median_index_width(label_file: Path, width: int) -> float | None:
    """The median width in pixels of the boxes in a YOLO label file (None: no boxes)."""
    widths = [b.box[2] - b.box[0] for b in read_label_boxes(label_file, width, 1)]
    return float(np.median(widths)) if widths else None


def draw_shake(rng: np.random.Generator, index_width: float) -> Shake:
    """A blur for a photo whose indices are `index_width` px wide."""
    if rng.random() < MOTION_SHARE:
        return Shake(length=index_width * float(rng.uniform(*MOTION_LENGTH)),
                     angle=float(rng.uniform(0, 180)))
    return Shake(radius=index_width * float(rng.uniform(*DEFOCUS_RADIUS)))


def write_shaken_folder(src: Path, out: Path, share: float = 0.5, seed: int = 0) -> int:
    """Copy `src` (images/, labels/) to `out` and add a blurred copy of `share` of its photos
    (names ending ``_shaken``). Returns the number of blurred copies written."""
    make_yolo_folder(out)
    written = 0
    for image_path in sorted((src / "images").glob("*.jpg")):
        label = copy_photo(image_path, src, out)
        rng = np.random.default_rng(perturb.seed_for(seed, image_path.name))
        if not label.exists() or rng.random() >= share:
            continue
        image = cv2.imread(str(image_path))
        width = median_index_width(label, image.shape[1]) if image is not None else None
        if width is None:
            continue
        shaken = draw_shake(rng, width).apply(image)
        write_photo(out, f"{image_path.stem}_shaken", shaken, label.read_text())
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="YOLO folder with images/ and labels/")
    ap.add_argument("out", type=Path)
    ap.add_argument("--share", type=float, default=0.5, help="share of photos given a copy")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = write_shaken_folder(args.src, args.out, args.share, args.seed)
    print(f"{args.out}: every photo of {args.src} and {n} shaken or defocused copies")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
