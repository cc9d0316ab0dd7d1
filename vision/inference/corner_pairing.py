"""Let the two corner indices of one card vote on its name.

A card lying face up shows its index at two opposite corners. Each index is named on its own,
and a small, blurred index is sometimes misread (a club taken for a spade) while the other one is
read right. Two found corners that lie a card's diagonal apart and whose readings agree enough
are taken as one card: both get the pair's joint reading (the product of their probabilities,
renormalised), so the surer corner carries the doubtful one.

The distance window is in units of the frame's typical index size (`index_unit`). On
the real training photos (`../shared/data/real-cards/train`, one card held to a camera) the two
indices of one card lie 3.5 to 6.3 units apart (5th to 95th percentile, largest 8.3), which
gives the default window of 3 to 9 units. Pairs are matched greedily, most agreeing first, and
each corner joins at most one pair.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

# Geometry, in units of the typical corner index size u = sqrt(width * height) of its box.
SAME_CARD_REACH = 9.0  # two corners of one card are at most about a card diagonal apart


def index_unit(boxes: Iterable[Sequence[float]]) -> float:
    """Typical corner index size (median sqrt(area)) in pixels; 1.0 when there are no boxes."""
    sizes = [math.sqrt(max(b[2] - b[0], 1e-6) * max(b[3] - b[1], 1e-6)) for b in boxes]
    return float(np.median(sizes)) if sizes else 1.0


PAIR_REACH = (3.0, SAME_CARD_REACH)  # a card's two indices lie this many index sizes apart
MIN_AGREEMENT = 0.2  # probability that both corners show the same card, to pair them


def pair_corners(
    boxes: np.ndarray,
    probs: np.ndarray,
    reach: tuple[float, float] = PAIR_REACH,
    min_agreement: float = MIN_AGREEMENT,
) -> list[tuple[int, int]]:
    """Pairs (i, j) of corners taken to be the two indices of one card.

    `boxes` is N x 4 (x1, y1, x2, y2), `probs` N x (cards + 1), the last column "not a corner".
    Agreement of two corners is the probability that both show the same card,
    sum over cards of p_i(card) * p_j(card).
    """
    n = len(boxes)
    if n < 2:
        return []
    unit = index_unit(boxes)
    centers = np.column_stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2])
    distance = np.linalg.norm(centers[:, None] - centers[None], axis=2) / unit
    cards = probs[:, :-1]
    agreement = cards @ cards.T
    near = (distance >= reach[0]) & (distance <= reach[1]) & (agreement >= min_agreement)
    rows, cols = np.nonzero(np.triu(near, 1))
    candidates = [(agreement[i, j], i, j) for i, j in zip(rows, cols, strict=True)]
    pairs, used = [], set()
    for _, i, j in sorted(candidates, key=lambda c: -c[0]):
        if i not in used and j not in used:
            pairs.append((int(i), int(j)))
            used |= {i, j}
    return pairs


def vote_pairs(boxes: np.ndarray, probs: np.ndarray, **kwargs) -> np.ndarray:
    """`probs` with each pair's two corners given their joint reading (see `pair_corners`).

    Each corner keeps its own "not a corner" probability; its card probabilities become the
    pair's normalised product scaled to the rest.
    """
    voted = np.array(probs, dtype=np.float32, copy=True)
    for i, j in pair_corners(boxes, probs, **kwargs):
        joint = probs[i, :-1] * probs[j, :-1]
        joint = joint / max(float(joint.sum()), 1e-12)
        for k in (i, j):
            voted[k, :-1] = joint * (1.0 - probs[k, -1])
    return voted
