"""Cut a corner-index box out of a frame as the fixed-size patch the card namer reads."""

from __future__ import annotations

import cv2
import numpy as np

from vision.inference.classes import ALL_CODES

CROP_SIZE = 48
CROP_PAD = 0.15  # fraction of the box's width/height added on each side
NAMER_CLASSES: tuple[str, ...] = (*ALL_CODES, "none")  # 52 card codes, then "not a corner"


def crop_corner(
    image: np.ndarray,
    box: tuple[float, float, float, float],
    pad: float = CROP_PAD,
    size: int = CROP_SIZE,
) -> np.ndarray:
    """BGR patch of `size` x `size` around `box` (x1, y1, x2, y2), padded, edge-replicated."""
    x1, y1, x2, y2 = box
    bw, bh = max(x2 - x1, 2.0), max(y2 - y1, 2.0)
    x1, x2 = x1 - pad * bw, x2 + pad * bw
    y1, y2 = y1 - pad * bh, y2 + pad * bh
    sx, sy = size / (x2 - x1), size / (y2 - y1)
    m = np.array([[sx, 0, -x1 * sx], [0, sy, -y1 * sy]], np.float32)
    interp = cv2.INTER_AREA if min(sx, sy) < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_tensor_layout(patches: list[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 patches into the namer's float32 NCHW RGB input in [0, 1]."""
    arr = np.stack(patches)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2))


def tilt_about_box(
    img: np.ndarray, box: tuple[float, float, float, float], angle: float
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A window of `img` turned by `angle` degrees about the box's centre, and the box's new
    axis-aligned bounds in that window (as a labeller boxes a corner index lying askew)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r = int(0.9 * np.hypot(x2 - x1, y2 - y1)) + 4
    m = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    m[:, 2] -= (cx - r, cy - r)
    window = cv2.warpAffine(img, m, (2 * r, 2 * r), borderMode=cv2.BORDER_REPLICATE)
    corners = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], np.float64) @ m.T
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    return window, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
