"""Procedural corner indices for the namer: deterministic, inked where the box says, every card."""

from __future__ import annotations

import numpy as np
import pytest

from vision.inference.classes import RANKS, SUITS
from vision.training.synth.index_glyphs import sample_index, suit_mask


def test_same_seed_draws_the_same_index_and_another_seed_does_not():
    a, box_a = sample_index(np.random.default_rng(5), "7C")
    b, box_b = sample_index(np.random.default_rng(5), "7C")
    c, _ = sample_index(np.random.default_rng(6), "7C")
    assert box_a == box_b and np.array_equal(a, b)
    assert a.shape != c.shape or not np.array_equal(a, c)


@pytest.mark.parametrize("card", [r + s for r in RANKS for s in SUITS])
def test_every_card_has_ink_inside_its_box_and_paper_around_it(card):
    image, (x1, y1, x2, y2) = sample_index(np.random.default_rng(1), card)
    h, w = image.shape[:2]
    assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
    inside = image[int(y1) : int(y2), int(x1) : int(x2)].astype(float).mean(axis=2)
    assert inside.min() < 0.6 * np.median(image)  # the rank and suit are darker than the card
    if card[1] in "HD":  # red ink: red clearly above blue somewhere in the index
        bgr = image[int(y1) : int(y2), int(x1) : int(x2)].astype(int)
        assert (bgr[..., 2] - bgr[..., 0]).max() > 60


def test_club_has_three_lobes_and_spade_one_point():
    """Across random proportions, a club's top row of ink is round-wide, a spade's a tip."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        for suit, narrow_top in (("C", False), ("S", True)):
            mask = suit_mask(rng, suit) > 127
            rows = np.nonzero(mask.any(axis=1))[0]
            width = mask.sum(axis=1)
            top_band = width[rows[0] : rows[0] + max(2, len(rows) // 12)].mean()
            assert (top_band < 0.15 * width.max()) == narrow_top, suit


def test_black_glyph_share_draws_only_clubs_and_spades_with_every_rank():
    """`--black-glyph-share 1` makes every procedural index in a batch a club or a spade."""
    import argparse

    from vision.inference.corner_crops import CROP_SIZE, NAMER_CLASSES
    from vision.training.train_classifier import add_arguments, sample_batch

    ap = argparse.ArgumentParser()
    add_arguments(ap)
    args = ap.parse_args(["--glyph-share", "1", "--none-share", "0", "--black-glyph-share", "1"])
    x, y = sample_batch(np.random.default_rng(0), [], [], 300, args)
    assert x.shape == (300, 3, CROP_SIZE, CROP_SIZE)
    cards = [NAMER_CLASSES[i] for i in y]
    assert {c[1] for c in cards} == {"C", "S"}
    assert len({c[0] for c in cards}) == 13
