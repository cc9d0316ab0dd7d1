"""A copy of the demo footage as the real clips look: warm light, soft video, auto exposure.

The real footage (`benchmarks/real-footage/README.md`) shows what the clean demo
frames lack and the noisy copy (`vision.demo.noisy`) does not add: a warm light the camera did
not balance, a soft picture whose colour is smeared by video compression (a small black index
comes out dark red-brown), a camera's auto exposure answering what the table shows, and a
player's shadow over part of the table. This writes a copy of the demo footage with, per frame
(seeded, so the copy is the same on every run):

- warm light: a `KELVIN` light seen by a camera balanced for daylight
  (`vision.training.perturb.white_balance`);
- a soft lens: a disk blur of `DEFOCUS_RADIUS` pixels (`perturb.defocus`);
- video colour: the chroma kept at half resolution and blurred (`CHROMA_BLUR` pixels, sigma),
  as a 4:2:0 video at a low bit rate keeps it;
- a shadow: a soft dark patch (`SHADOW_DEPTH` of the light taken at its core) lying still for
  `SHADOW_HOLD` frames, then somewhere else (a player leaning over the table);
- auto exposure: a gain pulling the frame's mean brightness toward the first frame's, a
  `AE_RESPONSE` share of the way each frame, within +-`AE_LIMIT` (a frame filling with white
  cards gets darker, as a real camera's does);
- then the noisy copy's sensor noise and JPEG (`noisy.noisy_frame`).

The demo's own footage and its noisy copy are untouched.

    .venv/bin/python -m vision.demo.real_camera --out /tmp/real-look [--seed 1]
    .venv/bin/python -m vision.demo.verify --footage /tmp/real-look
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from vision.demo.noisy import copy_demo_frames, copy_main, noisy_frame
from vision.demo.verify import DEMO_DIR
from vision.training.perturb import defocus, white_balance

KELVIN = 3500.0  # warm indoor light (the real card clip's card white: B/R about 0.66)
DEFOCUS_RADIUS = 1.0
CHROMA_BLUR = 1.5  # sigma, in half-resolution chroma pixels
SHADOW_DEPTH = 0.35
SHADOW_HOLD = 12  # frames a shadow lies still before it moves
AE_RESPONSE = 0.3
AE_LIMIT = 0.15


def smear_chroma(image: np.ndarray) -> np.ndarray:
    """The frame with its colour kept at half resolution and blurred (luma untouched)."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    h, w = image.shape[:2]
    for c in (1, 2):
        half = cv2.resize(ycrcb[:, :, c], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        half = cv2.GaussianBlur(half, (0, 0), CHROMA_BLUR)
        ycrcb[:, :, c] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(ycrcb, cv2.COLOR_YCrCb2BGR)


def shadow_mask(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A soft elliptical shadow (float32, 0 outside to 1 at its core) somewhere on the frame."""
    h, w = shape
    mask = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
    axes = (int(rng.uniform(0.12, 0.25) * w), int(rng.uniform(0.15, 0.3) * h))
    cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    return cv2.GaussianBlur(mask, (0, 0), 0.06 * w)


def exposure_gain(previous: float, mean: float, target: float) -> float:
    """The camera's next gain: `AE_RESPONSE` of the way toward the gain that brings ``mean``
    to ``target``, within +-`AE_LIMIT`."""
    wanted = target / max(mean, 1.0)
    gain = previous + AE_RESPONSE * (wanted - previous)
    return float(np.clip(gain, 1.0 - AE_LIMIT, 1.0 + AE_LIMIT))


def real_camera_frame(image: np.ndarray, shadow: np.ndarray) -> np.ndarray:
    """One frame under the warm light, through the soft lens, with the shadow and the video's
    smeared colour (before exposure, noise and JPEG)."""
    warm = defocus(white_balance(image, KELVIN), DEFOCUS_RADIUS).astype(np.float32)
    shaded = warm * (1.0 - SHADOW_DEPTH * shadow[:, :, None])
    return smear_chroma(np.clip(shaded, 0, 255).astype(np.uint8))


def write_real_camera_footage(out: Path, seed: int = 1, demo_dir: Path = DEMO_DIR) -> list[Path]:
    """Write the real-camera copy of every demo frame into ``out`` (same names); the paths."""
    rng = np.random.default_rng(seed)
    gain, target, shadow = 1.0, None, None

    def frame(i: int, image: np.ndarray) -> np.ndarray:
        nonlocal gain, target, shadow
        if i % SHADOW_HOLD == 0:
            shadow = shadow_mask(image.shape[:2], rng)
        look = real_camera_frame(image, shadow)
        mean = float(look.mean())
        target = mean if target is None else target
        gain = exposure_gain(gain, mean, target)
        return noisy_frame(look, rng, gain)

    return copy_demo_frames(out, frame, demo_dir)


def main(argv: list[str] | None = None) -> int:
    return copy_main(argv, __doc__, write_real_camera_footage,
                     "frames as a real camera films them")


if __name__ == "__main__":
    sys.exit(main())
