"""Suit from the card around an index: a second look for the suits a small index confuses.

At webcam scale the suit sign in a corner index is a blob of about ten pixels, and a club
blurs into a spade. The card around the index is bigger: the pips of a number card, the
suit sign beside a face card's picture. The suit reader looks at a square several index sizes
wide centred on the index and gives the four suit probabilities; `combine` multiplies them
into the namer's reading (two looks at the same card, taken as independent evidence).
`vision.detector.SuitReader` runs the exported model.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.corner_crops import NAMER_CLASSES

CONTEXT_SIZE = 64  # pixels of the square the suit reader sees
CONTEXT_SCALE = 3.0  # its side, in multiples of the index box's longer side
SUITS = "CDHS"  # NAMER_CLASSES order: 13 clubs, 13 diamonds, 13 hearts, 13 spades


def context_transform(
    box: tuple[float, float, float, float],
    angle: float = 0.0,
    squash: float = 1.0,
    scale: float = CONTEXT_SCALE,
    size: int = CONTEXT_SIZE,
) -> np.ndarray:
    """2x3 affine map from image pixels to the context square around `box`.

    `angle` (degrees) turns the image about the box centre first and `squash` then shrinks
    it sideways (a 16:9 frame stretched to a square does that): both for training; reading a
    frame uses neither.
    """
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    side = scale * max(x2 - x1, y2 - y1, 2.0)
    t = np.radians(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    linear = (size / side) * np.diag([squash, 1.0]) @ rot
    offset = np.array([size / 2, size / 2]) - linear @ np.array([cx, cy])
    return np.hstack([linear, offset[:, None]]).astype(np.float32)


def crop_context(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The CONTEXT_SIZE square BGR patch centred on `box`, CONTEXT_SCALE box sides wide."""
    m = context_transform(box)
    shrink = m[0, 0] < 1
    return cv2.warpAffine(
        image,
        m,
        (CONTEXT_SIZE, CONTEXT_SIZE),
        flags=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def build_suit_model():  # -> torch.nn.Module
    """Small CNN: 64x64 RGB in [0, 1] -> 4 suit logits.

    The last 8x8 feature map keeps its layout into the classifier (no global pooling): the
    suit asked for is the one of the index in the middle, and pips of other cards lying next
    to it must weigh less than those of its own card.
    """
    from torch import nn

    def conv(cin: int, cout: int, stride: int = 1) -> list:
        return [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(True),
        ]

    return nn.Sequential(
        *conv(3, 16, stride=2),  # 32x32
        *conv(16, 32),
        nn.MaxPool2d(2),  # 16x16
        *conv(32, 48),
        *conv(48, 48),
        nn.MaxPool2d(2),  # 8x8
        *conv(48, 64),
        *conv(64, 64),
        nn.Conv2d(64, 16, 1),
        nn.ReLU(True),
        nn.Flatten(),
        nn.Linear(16 * 8 * 8, 128),
        nn.ReLU(True),
        nn.Dropout(0.2),
        nn.Linear(128, len(SUITS)),
    )


def combine(namer_probs: np.ndarray, suit_probs: np.ndarray) -> np.ndarray:
    """Namer probabilities (N, 53) reweighted by the suit reader's (N, 4).

    Each card's probability is multiplied by its suit's and the cards rescaled to the mass they
    had, so "not a corner" keeps its probability: the suit reader says which suit, never
    whether there is a card.
    """
    if len(namer_probs) == 0:
        return namer_probs
    n_cards = len(NAMER_CLASSES) - 1
    cards = namer_probs[:, :n_cards].reshape(-1, len(SUITS), 13) * suit_probs[:, :, None]
    cards = cards.reshape(-1, n_cards)
    mass = namer_probs[:, :n_cards].sum(axis=1, keepdims=True)
    cards *= mass / np.maximum(cards.sum(axis=1, keepdims=True), 1e-12)
    return np.hstack([cards, namer_probs[:, n_cards:]]).astype(np.float32)
