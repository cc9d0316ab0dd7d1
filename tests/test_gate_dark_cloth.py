"""The change gate on a black table cloth (issue 36, found on real footage).

`gate.changed_pixels` takes the light's drift out by bringing the later picture's mean
brightness to the earlier one's. With no bound on that gain (as `has_changed` was), a region of
cloth the camera renders pure black has mean 0: the gain is 0, every later picture is
multiplied to black, and a card laid there is never a change, so the region is never read.
The dealer's clip showed it: with a layout whose player area covers the pile (the deck hand
outside it, `benchmarks/real-footage/cardtrick-deal-480.layout.json`), the area's signature
is 0.0 before the first card and 61.6 with the 7C on it, `changed_pixels` 0 (4,737 pixels with
the gain kept within 1/1.5..1.5), and the reader never reads one of the 27 cards dealt.
"""

from __future__ import annotations

import numpy as np

from vision.table.gate import Change, RegionGate, has_changed

CLOTH = (81, 173)  # the pile area's signature in the dealer's clip (signature pixels)


def _card_on(cloth: np.ndarray) -> np.ndarray:
    laid = cloth.copy()
    laid[20:75, 30:80] = 225.0  # a white card face, about a fifth of the area
    return laid


def test_light_drift_over_a_dark_cloth_is_still_no_change():
    """Auto exposure lifting a dark, noisy cloth by a quarter is not a change (what the gain
    is there for)."""
    cloth = np.random.default_rng(3).normal(12, 2, CLOTH).clip(0, 255).astype(np.float32)
    assert not has_changed(cloth, cloth * 1.25)


def test_a_card_laid_on_black_cloth_is_a_change():
    cloth = np.zeros(CLOTH, np.float32)
    assert has_changed(cloth, _card_on(cloth))


def test_a_region_of_black_cloth_is_read_once_a_card_lies_on_it():
    """The gate reads the empty cloth, sees the card arrive (moving), then reads it once it
    holds still."""
    gate = RegionGate()
    cloth = np.zeros(CLOTH, np.float32)
    laid = _card_on(cloth)
    arriving = cloth.copy()
    arriving[20:75, 0:40] = 200.0  # the card sliding in under the fingers
    verdicts = [gate.decide("A", cut) for cut in (cloth, cloth, arriving, laid, laid, laid)]
    assert verdicts == [Change.SETTLED, Change.UNCHANGED, Change.MOVING, Change.MOVING,
                        Change.SETTLED, Change.UNCHANGED]
