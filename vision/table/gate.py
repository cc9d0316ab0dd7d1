"""The change gate: a table region is read again only when its picture has changed and settled.

A camera over a card table sees the same picture most of the time; reading a frame costs the
detector a finder pass or more per region, and a region whose picture has not changed would
only be read to the same cards. The gate keeps, per region, a small grey signature of the
picture its current reading came from (`Signature`: the frame's luma shrunk so its long side
is `SIGNATURE_SIDE` pixels, averaged over blocks, so the camera's own noise mostly averages
out) and decides, frame by frame (`RegionGate.decide`):

- `Change.UNCHANGED`: the region looks as it did when it was read: its reading is reused (a
  confirmation for the votes, at no detector cost);
- `Change.MOVING`: it differs from the previous frame (a card landing, a hand over it, a card
  sliding): not read; the last settled reading stands, so motion blur never reaches the votes;
- `Change.SETTLED`: it changed and now holds still (the same picture as the previous frame):
  read it. The reading comes from a picture that held for two frames, a settled fact for the
  votes (`TableReader`).

A region is not read on its first changed frame: that brings no event sooner (the votes take
a reading once its picture held, one frame later either way) and a hand passing over a spread
would have it read a picture that is gone the next frame (figures in vision/README.md).

What counts as "changed" (`changed_pixels`): after the global light drift is taken out (the
signatures' mean brightness matched: a camera's auto exposure, a cloud; the gain kept within
1/`LIGHT_DRIFT`..`LIGHT_DRIFT`, so a card laid on black cloth, mean 0, is still a change), a
signature pixel that moved by more than `CHANGE_LEVEL` grey levels has changed; the region has
changed when at least `MIN_CHANGED` of its signature pixels have (about a third of a 20 px
corner index at 960 px).
Both figures come from real webcam frames (`benchmarks/bench_latency.py --calibrate`: noise
measured on the real dev photos, re-captured with that noise and JPEG; real changes between
photos of one scene), recorded in vision/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import cv2
import numpy as np

SIGNATURE_SIDE = 320  # the signature's long side in pixels, whatever the camera's resolution
CHANGE_LEVEL = 14.0  # grey levels a signature pixel must move to count as changed
LIGHT_DRIFT = 1.5  # the most a camera's exposure is taken to scale a region between frames
MIN_CHANGED = 4  # changed signature pixels that make a region changed

Box = tuple[int, int, int, int]  # x1, y1, x2, y2 in frame pixels


class Change(Enum):
    """What the gate makes of a region in one frame."""

    UNCHANGED = "unchanged"  # as read: reuse the reading
    MOVING = "moving"  # differs from the previous frame: keep the last reading, do not read
    SETTLED = "settled"  # changed and holding still: read

    @property
    def reads(self) -> bool:
        """Whether the detector reads the region in this frame (its new reading is settled)."""
        return self is Change.SETTLED


@dataclass(frozen=True)
class Signature:
    """A frame's luma shrunk to `SIGNATURE_SIDE` on its long side (float32), and the factor
    from frame pixels to signature pixels."""

    pixels: np.ndarray
    scale: float

    @classmethod
    def of(cls, image: np.ndarray) -> Signature:
        """The signature of a BGR (or grey) frame: one area-averaging resize, a few ms at 4K."""
        h, w = image.shape[:2]
        scale = min(1.0, SIGNATURE_SIDE / max(h, w))
        # a big frame is first thinned to every k-th pixel (k*k fewer to average), leaving
        # at least 3x3 pixels averaged into each signature pixel (noise: see the docstring)
        step = max(1, int(1 / (3 * scale)))
        if step > 1:
            image = image[::step, ::step]
        small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                           interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return cls(small.astype(np.float32), scale)

    def cut(self, box: Box) -> np.ndarray:
        """The signature pixels of a frame box."""
        x1, y1, x2, y2 = (round(v * self.scale) for v in box)
        h, w = self.pixels.shape
        x1, y1 = min(max(x1, 0), w - 1), min(max(y1, 0), h - 1)
        return self.pixels[y1:max(y1 + 1, min(y2, h)), x1:max(x1 + 1, min(x2, w))]


def changed_pixels(before: np.ndarray, after: np.ndarray, max_drift: float | None = None) -> int:
    """Signature pixels that changed between two cuts of one region, light drift taken out
    (the later cut's mean brightness brought to the earlier one's, by a gain kept within
    1/``max_drift`` and ``max_drift`` when given)."""
    if before.shape != after.shape:
        return before.size or 1  # the region moved (a bumped camera): changed
    gain = float(before.mean()) / max(float(after.mean()), 1.0)
    if max_drift is not None:
        gain = min(max(gain, 1.0 / max_drift), max_drift)
    return int(np.count_nonzero(np.abs(after * gain - before) > CHANGE_LEVEL))


def has_changed(before: np.ndarray, after: np.ndarray) -> bool:
    """True when the region's picture changed beyond noise and light drift."""
    return changed_pixels(before, after, max_drift=LIGHT_DRIFT) >= MIN_CHANGED


@dataclass
class _RegionState:
    read_cut: np.ndarray | None = None  # the picture the standing reading came from
    last_cut: np.ndarray | None = None  # the previous frame's picture


@dataclass
class RegionGate:
    """Per region, whether this frame is read (see the module docstring).

    `decide(name, cut)` gives the `Change`; the caller reads the region when `change.reads`.
    """

    _regions: dict[str, _RegionState] = field(default_factory=dict)

    def decide(self, name: str, cut: np.ndarray) -> Change:
        """The gate's verdict for region ``name`` whose signature in this frame is ``cut``."""
        state = self._regions.setdefault(name, _RegionState())
        if state.read_cut is None:
            change = Change.SETTLED  # never read: read now
        elif not has_changed(state.read_cut, cut):
            change = Change.UNCHANGED
        elif state.last_cut is not None and not has_changed(state.last_cut, cut):
            change = Change.SETTLED
        else:
            change = Change.MOVING
        if change is Change.SETTLED:
            state.read_cut = cut
        state.last_cut = cut
        return change

    def forget(self, name: str | None = None) -> None:
        """Drop what the gate knows of one region (or all): it is read on its next frame."""
        if name is None:
            self._regions.clear()
        else:
            self._regions.pop(name, None)
