"""Corner-index labels for the phone photos of the second deck, from their whole-card boxes.

``../shared/data/real-cards-phone`` labels each card with one axis-aligned box around the whole
card; the namer learns from corner indices. A card's indices are found with the shipped corner
finder, and each found corner takes the name of the labelled card it belongs to:

- the corner's centre must lie inside that card's box (with a small margin);
- among the cards whose boxes hold it, the one whose *rank* the shipped namer reads most
  likely names it, and only when that rank is the namer's first choice or at least
  ``MIN_RANK_PROBABILITY`` likely: the finder's boxes on pips or face pictures are left out;
- when two holding cards share that rank (a set fanned over itself), the suit cannot be told
  from the boxes and the corner is left out.

Found boxes in the middle of exactly one card (``INTERIOR`` of its box from the centre) are
that card's pips or picture, never an index: they are written apart (``none/``) as "not a corner"
examples, since the finder boxes them and the namer read big pips as aces.

The suit comes from the box, never from the namer, which is what the namer has to learn from
this deck (its clubs were read as spades). Frames the exporter may have mirrored are read as
they are and mirrored back; the orientation whose corners agree better with the boxes is kept
(mirrored glyphs read poorly), so no mirrored index reaches training.

Usage (only the earlier scenes: the held-out ones stay out of training)::

    .venv/bin/python -m vision.training.phone_corners --out data/phone-corners
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.inference.classes import yolo_class_names
from vision.inference.corner_crops import NAMER_CLASSES
from vision.inference.detector import CardDetector, load_detector
from vision.training.phone_data import (
    PHONE_DATA,
    PhoneFrame,
    card_code,
    labelled_codes,
    load_frames,
    split_by_time,
)
from vision.training.synth.scene import code_to_class_id
from vision.training.yolo_labels import read_label_boxes

RANKS = "A23456789TJQK"
MIN_FINDER_SCORE = 0.3
MIN_RANK_PROBABILITY = 0.25
BOX_MARGIN = 0.03  # of the card box's side: a corner box may stick out of a tight card box
# a found box whose centre lies within this share of its card box's half-sides from the box's
# centre is a pip or a picture (an index sits at a card corner: 0.5 and more, measured on the
# labelled corners of the earlier scenes: 18 of 4,508 below 0.5)
INTERIOR = 0.45


@dataclass(frozen=True)
class CardBox:
    """One labelled whole card: its code and box (x1, y1, x2, y2) in pixels."""

    code: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelledCorner:
    """A found corner index named after the card box it belongs to."""

    code: str
    box: tuple[float, float, float, float]
    rank_probability: float


@cache
def _class_names(root: Path) -> list[str]:
    return yolo_class_names(root / "data.yaml")


def card_boxes(
    frame: PhoneFrame, width: int, height: int, root: Path = PHONE_DATA
) -> list[CardBox]:
    """The frame's labelled whole-card boxes in pixels (unknown class names skipped)."""
    names = _class_names(root)
    labels = read_label_boxes(root / "labels" / f"{frame.image.stem}.txt", width, height)
    codes = labelled_codes(frame.image.name, [card_code(names[lb.class_id]) for lb in labels])
    return [CardBox(code, label.box) for code, label in zip(codes, labels, strict=True)
            if code is not None]


def rank_probabilities(card_probs: np.ndarray) -> np.ndarray:
    """(N, 53) card probabilities (suit-major, then "none") -> (N, 13) rank probabilities."""
    ranks = np.zeros((len(card_probs), len(RANKS)), np.float32)
    for index, code in enumerate(NAMER_CLASSES[:-1]):
        ranks[:, RANKS.index(code[0])] += card_probs[:, index]
    return ranks


def _holds(card: CardBox, x: float, y: float) -> bool:
    x1, y1, x2, y2 = card.box
    mx, my = BOX_MARGIN * (x2 - x1), BOX_MARGIN * (y2 - y1)
    return x1 - mx <= x <= x2 + mx and y1 - my <= y <= y2 + my


def label_corners(
    corners: np.ndarray, scores: np.ndarray, card_probs: np.ndarray, cards: list[CardBox]
) -> list[LabelledCorner]:
    """Name each found corner after the labelled card it belongs to (rules in the module doc)."""
    ranks = rank_probabilities(card_probs)
    out = []
    for box, score, rank_p in zip(corners, scores, ranks, strict=True):
        if score < MIN_FINDER_SCORE:
            continue
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        holding = [card for card in cards if _holds(card, x, y)]
        if not holding:
            continue
        best = max(holding, key=lambda card: rank_p[RANKS.index(card.code[0])])
        p = float(rank_p[RANKS.index(best.code[0])])
        first_choice = RANKS[int(np.argmax(rank_p))] == best.code[0]
        if not (first_choice or p >= MIN_RANK_PROBABILITY):
            continue
        if sum(card.code[0] == best.code[0] for card in holding) > 1:
            continue  # same rank twice under this corner: the suit is not known
        out.append(LabelledCorner(best.code, tuple(float(v) for v in box), p))
    return out


def interior_boxes(
    corners: np.ndarray, scores: np.ndarray, cards: list[CardBox]
) -> list[tuple[float, float, float, float]]:
    """Found boxes in the middle of exactly one card: its pips or picture, not an index."""
    out = []
    for box, score in zip(corners, scores, strict=True):
        if score < MIN_FINDER_SCORE:
            continue
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        holding = [card for card in cards if _holds(card, x, y)]
        if len(holding) != 1:
            continue
        x1, y1, x2, y2 = holding[0].box
        off = max(
            abs(x - (x1 + x2) / 2) / ((x2 - x1) / 2), abs(y - (y1 + y2) / 2) / ((y2 - y1) / 2)
        )
        if off < INTERIOR:
            out.append(tuple(float(v) for v in box))
    return out


@dataclass(frozen=True)
class PhotoCorners:
    """One photo's labelled corners and its pip/picture boxes ("not a corner")."""

    corners: list[LabelledCorner]
    pips: list[tuple[float, float, float, float]]


def read_corners(detector: CardDetector, image: np.ndarray, cards: list[CardBox]) -> PhotoCorners:
    """Find, name and label the corners of one (640-px) phone photo."""
    boxes, scores = detector.finder.find(image)
    h, w = image.shape[:2]
    boxes = np.clip(boxes, 0, [w, h, w, h]).astype(np.float32)
    patches = [detector.namer.crop(image, tuple(b)) for b in boxes]
    probs = detector.namer.probabilities(patches, detector.turns)
    return PhotoCorners(
        label_corners(boxes, scores, probs, cards), interior_boxes(boxes, scores, cards)
    )


def mirrored(cards: list[CardBox], width: int) -> list[CardBox]:
    """The card boxes of the frame mirrored left to right."""
    return [
        CardBox(c.code, (width - c.box[2], c.box[1], width - c.box[0], c.box[3])) for c in cards
    ]


def _agreement(read: PhotoCorners) -> tuple[int, float]:
    return len(read.corners), sum(c.rank_probability for c in read.corners)


def frame_corners(
    detector: CardDetector, frame: PhoneFrame
) -> tuple[np.ndarray, PhotoCorners, bool]:
    """(image in the kept orientation, what it holds, whether it was mirrored back)."""
    image = cv2.imread(str(frame.image))
    if image is None:
        raise ValueError(f"cannot read {frame.image}")
    h, w = image.shape[:2]
    cards = card_boxes(frame, w, h)
    read = read_corners(detector, image, cards)
    if not frame.may_be_mirrored:
        return image, read, False
    flipped = cv2.flip(image, 1)
    flipped_read = read_corners(detector, flipped, mirrored(cards, w))
    if _agreement(flipped_read) > _agreement(read):
        return flipped, flipped_read, True
    return image, read, False


def _yolo_line(class_id: int, box: tuple[float, float, float, float], w: int, h: int) -> str:
    x1, y1, x2, y2 = box
    return (
        f"{class_id} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
        f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
    )


def write_folder(out: Path, frames: list[PhoneFrame], detector: CardDetector) -> dict[str, int]:
    """Write the frames' labelled corners as a YOLO folder (real-cards class names) and their
    pip/picture boxes as ``none/STEM.txt`` (class -1: "not a corner", read by the trainer)."""
    for sub in ("images", "labels", "none"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    counts = {"frames": 0, "corners": 0, "pips": 0, "mirrored_back": 0, "cards": 0}
    suits: dict[str, int] = {}
    for frame in frames:
        image, read, flipped = frame_corners(detector, frame)
        h, w = image.shape[:2]
        counts["frames"] += 1
        counts["cards"] += len(frame.cards)
        counts["mirrored_back"] += flipped
        counts["corners"] += len(read.corners)
        counts["pips"] += len(read.pips)
        for corner in read.corners:
            suits[corner.code[1]] = suits.get(corner.code[1], 0) + 1
        cv2.imwrite(str(out / "images" / f"{frame.image.stem}.png"), image)
        lines = [_yolo_line(code_to_class_id(c.code), c.box, w, h) for c in read.corners]
        (out / "labels" / f"{frame.image.stem}.txt").write_text("\n".join(lines) + "\n")
        pips = [_yolo_line(-1, box, w, h) for box in read.pips]
        (out / "none" / f"{frame.image.stem}.txt").write_text("\n".join(pips) + "\n")
    counts.update({f"suit_{s}": n for s, n in sorted(suits.items())})
    return counts


def main(argv: list[str] | None = None) -> int:
    """Write the earlier scenes' labelled corners (never the held-out scenes)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("data/phone-corners"))
    ap.add_argument("--limit", type=int, default=None, help="first N frames only (a quick look)")
    args = ap.parse_args(argv)
    earlier, _held_out = split_by_time(load_frames())
    detector = load_detector("onnx", normalise_light=False)
    counts = write_folder(args.out, earlier[: args.limit], detector)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
