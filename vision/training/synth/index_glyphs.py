"""Procedural corner indices: a rank in many typefaces over a suit drawn from parameters.

The SVG decks give a dozen designs of each suit sign; a namer trained on them alone learns
those designs, not what makes a club a club. Here every sample draws its own club (three round
lobes and a flared stem), spade (a pointed top over two round shoulders), heart and diamond
from random proportions, thicknesses and inks, under a rank set in a system typeface, on a
card corner lying at any angle and seen as a webcam sees it (small, blurred, JPEG, noise). The
training loop draws them on the fly (`sample_index`), deterministic for a given generator.
"""

from __future__ import annotations

import glob
import math
from functools import lru_cache

import cv2
import numpy as np

from vision.inference.corner_crops import tilt_about_box

FONT_GLOBS = ("/usr/share/fonts/truetype/*/*.ttf", "/usr/share/fonts/opentype/*/*.otf")
_HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)


@lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """Upright, non-mono system typefaces usable for ranks (empty: OpenCV's Hershey fonts)."""
    skip = ("Mono", "Italic", "Oblique", "Math", "ExtraLight")
    found = [p for g in FONT_GLOBS for p in glob.glob(g) if not any(s in p for s in skip)]
    return tuple(sorted(found))


@lru_cache(maxsize=64)
def _font(path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _rank_mask(rng: np.random.Generator, rank: str, height: int) -> np.ndarray:
    """A white-on-black mask of the rank text, cropped to its ink, about `height` px tall."""
    text = "10" if rank == "T" else rank
    fonts = font_files()
    if fonts:
        from PIL import Image, ImageDraw

        font = _font(fonts[int(rng.integers(len(fonts)))], height)
        canvas = Image.new("L", (height * 3, height * 2), 0)
        ImageDraw.Draw(canvas).text((height // 4, height // 4), text, fill=255, font=font)
        mask = np.asarray(canvas)
    else:
        face = _HERSHEY[int(rng.integers(len(_HERSHEY)))]
        scale = height / 22
        mask = np.zeros((height * 2, height * 3), np.uint8)
        thick = max(1, int(height / rng.uniform(8, 14)))
        cv2.putText(mask, text, (height // 4, int(height * 1.4)), face, scale, 255, thick)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return np.full((height, height // 2), 255, np.uint8)
    mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    if rank == "T" and rng.random() < 0.3:  # condensed "10" as on many decks
        mask = cv2.resize(mask, (max(2, int(mask.shape[1] * 0.7)), mask.shape[0]))
    return mask


def _heart_points(n: int = 60) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], axis=1) / 17.0  # about -1..1, point at the bottom


def _stem(rng: np.random.Generator, s: int, cx: float, top: float) -> np.ndarray:
    """A flared stem from (cx, top) down to the bottom of an s x s canvas."""
    neck = s * rng.uniform(0.02, 0.06)
    foot = s * rng.uniform(0.12, 0.24)
    bottom = s * rng.uniform(0.9, 0.98)
    return np.array(
        [[cx - neck, top], [cx + neck, top], [cx + foot, bottom], [cx - foot, bottom]], np.float32
    )


def suit_mask(rng: np.random.Generator, suit: str, size: int = 96) -> np.ndarray:
    """A white-on-black mask of one suit sign with random proportions, `size` px square."""
    s = size
    mask = np.zeros((s, s), np.uint8)
    c = s / 2
    if suit == "C":
        r = s * rng.uniform(0.17, 0.23)
        spread = r * rng.uniform(0.8, 1.35)  # lobes overlapping to nearly apart
        top_y = s * rng.uniform(0.24, 0.32)
        side_y = top_y + spread * rng.uniform(0.9, 1.3)
        for x, y in ((c, top_y), (c - spread, side_y), (c + spread, side_y)):
            cv2.circle(mask, (int(x), int(y)), int(r), 255, -1, cv2.LINE_AA)
        cv2.circle(mask, (int(c), int((top_y + side_y) / 2)), int(r * 0.8), 255, -1)
        cv2.fillPoly(mask, [_stem(rng, s, c, side_y).astype(np.int32)], 255, cv2.LINE_AA)
    elif suit == "S":
        pts = _heart_points()
        pts[:, 1] *= -1  # point up
        w = s * rng.uniform(0.36, 0.46)
        h = s * rng.uniform(0.34, 0.44)
        body = np.stack([c + pts[:, 0] * w, s * 0.45 + pts[:, 1] * h], axis=1)
        cv2.fillPoly(mask, [body.astype(np.int32)], 255, cv2.LINE_AA)
        stem_top = s * 0.45 + h * rng.uniform(0.3, 0.6)
        cv2.fillPoly(mask, [_stem(rng, s, c, stem_top).astype(np.int32)], 255, cv2.LINE_AA)
    elif suit == "H":
        pts = _heart_points()
        w, h = s * rng.uniform(0.38, 0.48), s * rng.uniform(0.36, 0.46)
        body = np.stack([c + pts[:, 0] * w, c + pts[:, 1] * h], axis=1)
        cv2.fillPoly(mask, [body.astype(np.int32)], 255, cv2.LINE_AA)
    else:  # diamond, straight or slightly curved sides
        w, h = s * rng.uniform(0.28, 0.4), s * rng.uniform(0.42, 0.48)
        bow = rng.uniform(-0.12, 0.08)
        t = np.linspace(0, 1, 12)
        sides = []
        for (x0, y0), (x1, y1) in (
            ((0, -1), (1, 0)),
            ((1, 0), (0, 1)),
            ((0, 1), (-1, 0)),
            ((-1, 0), (0, -1)),
        ):
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            px, py = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            bulge = bow * np.sin(math.pi * t)
            sides.append(np.stack([px + mx * bulge, py + my * bulge], axis=1))
        poly = np.concatenate(sides)
        body = np.stack([c + poly[:, 0] * w, c + poly[:, 1] * h], axis=1)
        cv2.fillPoly(mask, [body.astype(np.int32)], 255, cv2.LINE_AA)
    return mask


def _ink(rng: np.random.Generator, suit: str) -> np.ndarray:
    if suit in "HD":
        return np.array([rng.uniform(10, 70), rng.uniform(5, 50), rng.uniform(150, 230)])
    grey = rng.uniform(0, 50)
    return np.array([grey + rng.uniform(0, 25), grey, grey])  # black, sometimes bluish


def _paste(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, ink: np.ndarray) -> None:
    h, w = mask.shape
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x0 >= x1 or y0 >= y1:
        return
    alpha = (mask[y0 - y : y1 - y, x0 - x : x1 - x].astype(np.float32) / 255.0)[..., None]
    region = canvas[y0:y1, x0:x1]
    canvas[y0:y1, x0:x1] = region * (1 - alpha) + ink * alpha


def draw_index(
    rng: np.random.Generator, card: str, rank_px: int = 64
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A card corner (BGR float) with the index of `card` ("7C"), and the index's box."""
    rank, suit = card[0], card[1]
    rank_mask = _rank_mask(rng, rank, rank_px)
    if rng.random() < 0.35:  # heavier or lighter strokes
        k = np.ones((3, 3), np.uint8)
        rank_mask = cv2.dilate(rank_mask, k) if rng.random() < 0.6 else cv2.erode(rank_mask, k)
    suit_px = int(rank_px * rng.uniform(0.55, 0.95))
    suit = suit_mask(rng, suit, 96)
    ys, xs = np.nonzero(suit)
    suit = cv2.resize(suit[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1], (suit_px, suit_px))
    size = rank_px * 4
    paper = np.array([rng.uniform(200, 255)] * 3) - rng.uniform(0, 25, 3) * np.array([1, 0.5, 0])
    canvas = np.ones((size, size, 3), np.float32) * paper
    ink = _ink(rng, card[1])
    margin = int(rank_px * rng.uniform(0.25, 0.6))
    rh, rw = rank_mask.shape
    rx = margin + max(0, (suit_px - rw) // 2)
    sx = margin + max(0, (rw - suit_px) // 2)
    gap = int(rank_px * rng.uniform(0.05, 0.3))
    _paste(canvas, rank_mask, rx, margin, ink)
    _paste(canvas, suit, sx, margin + rh + gap, ink)
    box = (
        float(min(rx, sx)),
        float(margin),
        float(max(rx + rw, sx + suit_px)),
        float(margin + rh + gap + suit_px),
    )
    if rng.random() < 0.5:  # a big pip of the same suit further in, as on number cards
        pip = cv2.resize(suit_mask(rng, card[1], 96), (int(rank_px * 1.3),) * 2)
        _paste(
            canvas,
            pip,
            int(box[2] + rank_px * rng.uniform(0.4, 1.0)),
            int(box[1] + rank_px * rng.uniform(-0.2, 1.2)),
            ink,
        )
    if rng.random() < 0.6:  # the card's own edge with the table beyond it
        table = rng.uniform(40, 200, 3)
        edge = int(margin * rng.uniform(0.2, 0.8))
        if rng.random() < 0.5:
            canvas[:edge] = table
        if rng.random() < 0.5:
            canvas[:, :edge] = table
    return canvas, box


def sample_index(
    rng: np.random.Generator, card: str
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A webcam-like view of a procedural index of `card` lying at any angle, and its box."""
    canvas, box = draw_index(rng, card)
    shade = np.linspace(rng.uniform(0.7, 1.1), rng.uniform(0.7, 1.1), canvas.shape[1])
    canvas = canvas * shade[None, :, None]
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    image, box = tilt_about_box(image, box, float(rng.uniform(-180, 180)))
    return image, box
