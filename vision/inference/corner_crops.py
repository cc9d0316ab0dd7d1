"""Cut a corner-index box out of a frame as the fixed-size patch the card namer reads, and turn
patches into the namer's input (chroma restored, stacked)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.inference.classes import ALL_CODES

CROP_SIZE = 48
CROP_PAD = 0.15  # fraction of the box's width/height added on each side
NAMER_CLASSES: tuple[str, ...] = (*ALL_CODES, "none")  # 52 card codes, then "not a corner"
#: Each patch's chroma (YCrCb's Cr and Cb about grey) is stretched so that its 95th percentile
#: reaches CHROMA_TARGET, at most CHROMA_MAX_GAIN times, never reduced. A
#: webcam's JPEG (4:2:0) keeps colour at half resolution and quantises it coarsely, and a dim
#: overhead frame is pale anyway: on a 12-16 px index a red pip fades towards grey and the namer
#: calls it black. A saturated photo's red pips (phone photos: 95th percentile 26-70) are left as
#: they are: doubling them clips red and a heart's edge with it. Figures: models/MODEL_CARD.md,
#: "Chroma restored and noisy frames smoothed".
CHROMA_TARGET = 32.0
CHROMA_MAX_GAIN = 2.0


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


def chroma_gains(ycc: np.ndarray) -> np.ndarray:
    """Each YCrCb patch's chroma gain, for patches (N, H, W, 3): CHROMA_TARGET over the 95th
    percentile of its pixels' larger chroma deviation from grey, kept within 1 and
    CHROMA_MAX_GAIN."""
    n, h, w, _ = ycc.shape
    _, cr, cb = cv2.split(ycc.reshape(n * h, w, 3))
    deviation = cv2.max(cv2.absdiff(cr, 128), cv2.absdiff(cb, 128)).reshape(n, -1)
    k = round(0.95 * (deviation.shape[1] - 1))
    spread = np.partition(deviation, k, axis=1)[:, k].astype(np.float32)
    return np.clip(CHROMA_TARGET / np.maximum(spread, 1.0), 1.0, CHROMA_MAX_GAIN)


def restore_chroma(patches: np.ndarray) -> np.ndarray:
    """BGR uint8 patches (N, H, W, 3), each one whose `chroma_gains` exceeds 1 with its chroma
    stretched by it about grey and its luma kept; the others as they are. 8-bit colour
    conversions and lookup tables of exactly rounded values: the same bytes on every CPU."""
    n, h, w, _ = patches.shape
    out = np.array(patches, dtype=np.uint8)  # a copy: the caller's patches stay as they were
    ycc = cv2.cvtColor(out.reshape(n * h, w, 3), cv2.COLOR_BGR2YCrCb).reshape(n, h, w, 3)
    levels = np.arange(256, dtype=np.float32)
    for i, gain in enumerate(chroma_gains(ycc)):
        if gain > 1.0:
            chroma = np.clip(np.rint((levels - 128.0) * gain + 128.0), 0, 255).astype(np.uint8)
            table = np.stack([levels.astype(np.uint8), chroma, chroma], axis=-1)[:, None, :]
            out[i] = cv2.cvtColor(cv2.LUT(ycc[i], table), cv2.COLOR_YCrCb2BGR)
    return out


def namer_input(patches: list[np.ndarray], turns: int = 1) -> np.ndarray:
    """The namer's float32 NCHW RGB input in [0, 1] from BGR uint8 patches: chroma restored
    (`restore_chroma`), then each patch at `turns` quarter turns (1, 2 or 4; turn-major: all
    patches unturned, then all turned once, ...). Reading, training and quantisation
    calibration all feed the namer through here."""
    restored = restore_chroma(np.stack(patches))
    step = {1: 4, 2: 2, 4: 1}[turns]
    turned = np.concatenate([np.rot90(restored, k, axes=(1, 2)) for k in range(0, 4, step)])
    arr = turned[..., ::-1].astype(np.float32) / 255.0
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
