"""Run-time smoothing of a noisy frame before the detector reads it.

A cheap webcam in a dim hall turns its gain up, and the frame's sensor noise costs the finder
corners and the namer its clubs (read as spades) on small indices. A frame whose noise is
measured at ``NOISE_GATE`` grey levels or more gets an edge-preserving bilateral filter (the
index's strokes keep their edges, the speckle on the card face goes); a clean frame is read as
it is, untouched, so the filter costs nothing where it is not needed.

The noise is measured on the luma with Immerkaer's Laplacian-difference operator, whose
response cancels smooth shading; its median absolute value (scaled as for a Gaussian) is robust
to the edges of cards and indices. ``NOISE_GATE`` lies between the noise of the photos the
models read well and that of the sweep's noisy frames (figures in models/MODEL_CARD.md,
"Chroma restored and noisy frames smoothed").
"""

from __future__ import annotations

import cv2
import numpy as np

NOISE_GATE = 3.0  # grey levels of estimated noise sigma from which a frame is smoothed
_LAPLACIAN_DIFFERENCE = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
# the operator's response to unit Gaussian noise has sigma 6; MAD -> sigma for a Gaussian
_TO_SIGMA = 1.4826 / 6.0
BILATERAL = {"d": 5, "sigmaColor": 25.0, "sigmaSpace": 3.0}


def noise_sigma(luma: np.ndarray) -> float:
    """The estimated sigma (grey levels) of the sensor noise in an 8-bit luma image."""
    if min(luma.shape[:2]) < 3:
        return 0.0
    response = cv2.filter2D(luma, cv2.CV_16S, _LAPLACIAN_DIFFERENCE)[1:-1, 1:-1]
    magnitude = cv2.convertScaleAbs(response)  # |response|, saturated at 255 (far above a median)
    counts = cv2.calcHist([magnitude], [0], None, [256], [0, 256]).ravel()
    median = int(np.searchsorted(np.cumsum(counts), counts.sum() / 2))
    return median * _TO_SIGMA


def smooth_noise(image: np.ndarray) -> np.ndarray:
    """The BGR frame smoothed by the bilateral filter when its noise reaches NOISE_GATE; the
    same frame (not a copy) otherwise."""
    if noise_sigma(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)) < NOISE_GATE:
        return image
    return cv2.bilateralFilter(image, **BILATERAL)
