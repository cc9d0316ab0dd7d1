"""Run-time light normalisation of a frame before the detector reads it.

The detector was trained and measured on dim indoor webcam frames (dev median luma 94-178);
a bright hall, a light table under daylight or a warm bulb moves a frame far from them, and the
finder's and namer's scores sit on their thresholds and cards are missed. Two global,
per-frame corrections bring any frame back:

- exposure: a frame darker or brighter than the models know (median luma outside
  ``KNOWN_LUMA``) gets one gamma that brings its median luma to ``TARGET_LUMA`` (the dev
  photos' median), applied through a 256-entry table (the same result on every CPU);
- white balance (white patch): each colour channel scaled so that the frame's whitest surfaces,
  the card faces, come out grey (at most ``MAX_WB_GAIN`` apart; gains within
  ``WB_TOLERANCE`` of 1 are left alone).

Measured with ``benchmarks/bench_robustness.py`` (models/MODEL_CARD.md, "Robustness sweep").
"""

from __future__ import annotations

import cv2
import numpy as np

TARGET_LUMA = 136.0  # median of the dev photos' median luma
# frames whose median luma lies in this band are read as they are: the models know them (dev
# 94-178; the demo's dark felt 74). Darker or brighter frames are corrected.
KNOWN_LUMA = (60.0, 178.0)
GAMMA_RANGE = (0.3, 3.0)
MAX_WB_GAIN = 2.0
WB_TOLERANCE = 0.1  # white balance gains within 10 % of 1 are left alone


def luma_of(image: np.ndarray) -> np.ndarray:
    """The frame's 8-bit luma."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def exposure_gamma(image: np.ndarray, luma: np.ndarray | None = None) -> float:
    """The gamma that brings the frame's median luma to TARGET_LUMA (kept in GAMMA_RANGE);
    1.0 for a frame whose median already lies in KNOWN_LUMA. ``luma``: the frame's, if known."""
    median = float(np.median(luma_of(image) if luma is None else luma))
    if KNOWN_LUMA[0] <= median <= KNOWN_LUMA[1]:
        return 1.0
    median = min(max(median, 1.0), 254.0)
    return float(np.clip(np.log(TARGET_LUMA / 255) / np.log(median / 255), *GAMMA_RANGE))


def _gamma_table(gamma: float) -> np.ndarray:
    return np.round(255.0 * (np.arange(256) / 255.0) ** gamma).clip(0, 255).astype(np.uint8)


def white_gains(image: np.ndarray, luma: np.ndarray | None = None) -> np.ndarray:
    """Per-channel (B, G, R) gains that make the frame's whitest surfaces grey (white patch).

    The reference is the median colour of the pixels between the 90th and 99th luma
    percentile: the card faces, the brightest things on a table, whatever the cloth's colour
    (a green felt would pull a gray-world balance to magenta); the top 1 % (glare, clipped
    highlights) is left out. ``luma``: the frame's, if known.
    """
    luma = luma_of(image) if luma is None else luma
    low, high = np.percentile(luma, (90, 99))
    whites = image[(luma >= low) & (luma <= high)]
    if len(whites) == 0:
        return np.ones(3)
    medians = np.maximum(np.median(whites, axis=0).astype(np.float64), 1.0)
    gains = medians.mean() / medians
    return np.clip(gains, 1 / MAX_WB_GAIN, MAX_WB_GAIN)


def normalise_light(image: np.ndarray) -> np.ndarray:
    """The frame with its white balance and exposure normalised (the same frame, not a copy,
    when neither needs it). The luma is computed once, again only after a colour change."""
    out, luma = image, luma_of(image)
    gains = white_gains(out, luma)
    if np.abs(gains - 1.0).max() > WB_TOLERANCE:
        tables = [np.round(np.arange(256) * g).clip(0, 255).astype(np.uint8) for g in gains]
        out = cv2.merge([cv2.LUT(out[..., c], tables[c]) for c in range(3)])
        luma = luma_of(out)
    gamma = exposure_gamma(out, luma)
    return out if gamma == 1.0 else cv2.LUT(out, _gamma_table(gamma))
