"""Gin spreads of any deck as the table camera sees them: two players' melds and loose cards
laid down on the demo's felt (`vision.demo.make_demo`: its table, card size, fans and stacks,
light blur and noise), with the cards whose corner index shows. Build and benchmark time only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.demo.make_demo import Composer, spread_cards

RANKS = "A23456789TJQK"
SUITS = "CDHS"


@dataclass(frozen=True)
class SpreadFrame:
    """One frame of two spreads: the BGR image and the cards whose index shows in it."""

    image: np.ndarray
    visible: frozenset[str]


def _melds(rng: np.random.Generator, usable: set[str]) -> tuple[list[list[str]], list[str]]:
    """Two or three melds (runs of 3-4 in a suit, sets of 3 of a rank) and 1-3 loose cards,
    all of the `usable` cards and none twice; `usable` loses them."""
    groups: list[list[str]] = []
    for _ in range(int(rng.integers(2, 4))):
        for _attempt in range(50):
            if rng.random() < 0.5:
                length, suit = int(rng.integers(3, 5)), SUITS[int(rng.integers(4))]
                start = int(rng.integers(0, len(RANKS) - length + 1))
                group = [RANKS[start + i] + suit for i in range(length)]
            else:
                rank = RANKS[int(rng.integers(len(RANKS)))]
                group = [rank + s for s in rng.permutation(list(SUITS))[:3]]
            if set(group) <= usable:
                groups.append(group)
                usable -= set(group)
                break
    loose = [str(c) for c in rng.permutation(sorted(usable))[: int(rng.integers(1, 4))]]
    usable -= set(loose)
    return groups, loose


def spread_frames(deck: str, count: int, seed: int = 0) -> list[SpreadFrame]:
    """`count` frames of two random spreads of `deck` (the cards it has faces for)."""
    rng = np.random.default_rng(seed)
    composer = Composer(rng, deck, needed=[])
    frames = []
    for _ in range(count):
        usable = set(composer.faces.codes)
        placed = []
        for top in (False, True):
            groups, loose = _melds(rng, usable)
            spread = {"groups": groups, "loose": loose, "layoffs": []}
            for group in spread_cards(spread, top, rng, composer.card_h):
                placed += group
        image, labels = composer.render(placed, [], None)
        frames.append(SpreadFrame(image, frozenset(label["card"] for label in labels)))
    return frames
