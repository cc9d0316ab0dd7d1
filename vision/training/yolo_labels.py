"""YOLO folders (``images/``, ``labels/``; ``class cx cy w h`` per label line, normalised): label
files read as pixel boxes and written back, photos copied or written with their labels. The one
reader the training and evaluation tools share."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

JPEG_QUALITY = 95  # photos written into training folders

PixelBox = tuple[float, float, float, float]  # x1, y1, x2, y2


@dataclass(frozen=True)
class LabelBox:
    """One label line: its class id and its box in pixels."""

    class_id: int
    box: PixelBox


def read_label_boxes(label_file: Path, width: int, height: int) -> list[LabelBox]:
    """The well-formed lines of a YOLO label file (five fields) as pixel boxes in a `width` x
    `height` image; other lines are skipped, a missing file has none."""
    if not label_file.exists():
        return []
    out = []
    for line in label_file.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        cx, cy, bw, bh = (float(v) for v in parts[1:])
        out.append(LabelBox(int(parts[0]), ((cx - bw / 2) * width, (cy - bh / 2) * height,
                                             (cx + bw / 2) * width, (cy + bh / 2) * height)))
    return out


def label_text(boxes: Iterable[LabelBox], width: int, height: int) -> str:
    """YOLO label file text for pixel boxes in a `width` x `height` image."""
    rows = []
    for b in boxes:
        x1, y1, x2, y2 = b.box
        rows.append(f"{b.class_id} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                    f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return "".join(r + "\n" for r in rows)


def make_yolo_folder(out: Path) -> None:
    """Create ``out/images`` and ``out/labels`` (kept if they exist)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)


def copy_photo(image_path: Path, src: Path, out: Path) -> Path:
    """Copy a photo of YOLO folder `src` into `out`, with its label file when it has one;
    returns that label file's path in `src` (it may not exist)."""
    label = src / "labels" / f"{image_path.stem}.txt"
    shutil.copyfile(image_path, out / "images" / image_path.name)
    if label.exists():
        shutil.copyfile(label, out / "labels" / label.name)
    return label


def write_photo(out: Path, name: str, image: np.ndarray, label: str) -> None:
    """Write a new photo into YOLO folder `out` as ``name``.jpg (JPEG quality `JPEG_QUALITY`)
    with its label file text."""
    quality = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
    cv2.imwrite(str(out / "images" / f"{name}.jpg"), image, quality)
    (out / "labels" / f"{name}.txt").write_text(label)
