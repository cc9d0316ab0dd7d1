"""Real training photos at their true aspect, for the corner finder.

Every shared real photo is a 16:9 frame stretched to 640x640 by its exporter, so every real
index the finder has trained on is squeezed to 0.56 of its width. A table camera delivers its
frames at their true aspect, and there the finder finds fewer corners (the robustness sweep's
`16:9, rotate 0 deg`; figures in models/MODEL_CARD.md, "Robustness sweep").
This writes a YOLO folder holding a widened copy of every photo of a source folder at
`turns` of the four quarter turns (picked per photo from a seeded generator), optionally after
every photo of another folder as it is (`--include`, e.g. the quarter-turned and shaken photos
the finder trains on). Widening uses the sweep's own `perturb.unsqueeze` (Lanczos); label
lines keep their class and are turned with the photo (`perturb.rotate`, exact at quarter
turns).

    python -m vision.training.true_aspect_copies ../shared/data/real-cards/train \\
        data/real-train-wide --include data/real-train-shaken
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision.training import perturb
from vision.training.perturb import TRUE_ASPECT
from vision.training.yolo_labels import (
    LabelBox,
    copy_photo,
    label_text,
    make_yolo_folder,
    read_label_boxes,
    write_photo,
)


def true_aspect_turns(image: np.ndarray, labels: list[LabelBox], quarters: list[int],
                      aspect: float = TRUE_ASPECT):
    """(quarter, photo, label text) for the photo widened to `aspect` and turned by each of
    `quarters` quarter turns (counter-clockwise)."""
    boxes = np.array([b.box for b in labels], np.float64).reshape(-1, 4)
    wide, wide_boxes = perturb.unsqueeze(image, boxes, aspect)
    for q in quarters:
        turned, turned_boxes = perturb.rotate(wide, wide_boxes, 90.0 * q)
        h, w = turned.shape[:2]
        moved = [LabelBox(b.class_id, tuple(float(v) for v in box))
                 for b, box in zip(labels, turned_boxes, strict=True)]
        yield q, turned, label_text(moved, w, h)


def write_true_aspect_folder(src: Path, out: Path, turns: int = 2, seed: int = 0,
                             include: Path | None = None) -> int:
    """Write `out` (images/, labels/): every photo of `include` as it is, then each labelled
    photo of `src` widened to its true aspect at `turns` quarter turns (names ending
    ``_wideQ``). Returns the number of widened photos written."""
    if not 1 <= turns <= 4:
        raise ValueError(f"turns must be 1-4, not {turns}")
    make_yolo_folder(out)
    if include is not None:
        for image_path in sorted((include / "images").glob("*.jpg")):
            copy_photo(image_path, include, out)
    written = 0
    for image_path in sorted((src / "images").glob("*.jpg")):
        label = src / "labels" / f"{image_path.stem}.txt"
        image = cv2.imread(str(image_path)) if label.exists() else None
        if image is None:
            continue
        labels = read_label_boxes(label, image.shape[1], image.shape[0])
        if not labels:
            continue
        rng = np.random.default_rng(perturb.seed_for(seed, image_path.name))
        quarters = sorted(int(q) for q in rng.choice(4, size=turns, replace=False))
        for q, photo, text in true_aspect_turns(image, labels, quarters):
            write_photo(out, f"{image_path.stem}_wide{q}", photo, text)
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="YOLO folder of photos stretched from 16:9 to squares")
    ap.add_argument("out", type=Path)
    ap.add_argument("--turns", type=int, default=2, help="quarter turns written per photo (1-4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--include", type=Path, help="YOLO folder copied into out as it is")
    args = ap.parse_args(argv)
    n = write_true_aspect_folder(args.src, args.out, args.turns, args.seed, args.include)
    kept = f"every photo of {args.include} and " if args.include else ""
    print(f"{args.out}: {kept}{n} photos of {args.src} at their true aspect")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
