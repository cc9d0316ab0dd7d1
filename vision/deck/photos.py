"""The corners to teach from a folder of photos, each showing one card and named after it
(``KH.jpg``, ``TS.png``, ``10C.jpg``; a folder may teach only some cards).

Every problem is found before anything is taught, each naming the photo and the card: a file
name that is no card, one card named twice, a photo that cannot be read, a photo with no card
or with more than one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.deck.teach import TaughtCorner
from vision.inference.corner_crops import NAMER_CLASSES
from vision.inference.detection import card_code
from vision.inference.detector import CardDetector

#: the shipped namer reads a corner this surely as one card: a letter it never saw is not read
#: this surely (the drawn jacks printed "B" of tests/test_deck.py), a standard index mostly is
SURE_READING = 0.9
#: a found box this sure of being a corner index is one of the photo's card's indices
TEACH_SCORE = 0.4
#: a card shows at most four indices (most two): more in one photo is more than one card
MOST_INDICES = 4


@dataclass
class TeachingPhotos:
    """What a folder teaches: the corners found, the cards they show, and the problems."""

    corners: list[TaughtCorner] = field(default_factory=list)
    cards: dict[str, str] = field(default_factory=dict)  # card -> the photo teaching it
    problems: list[str] = field(default_factory=list)


def photo_files(folder: Path) -> list[Path]:
    """The folder's files, hidden ones left out, sorted by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def _card_of(path: Path) -> str | None:
    try:
        return card_code(path.stem)
    except ValueError:
        return None


def _sure_ranks(detector: CardDetector, image: np.ndarray, boxes: np.ndarray) -> dict[str, str]:
    """rank -> a card the shipped namer surely (`SURE_READING`) reads on one of the boxes: two
    such corners of different ranks in one photo are two cards (a club read as a spade keeps
    its rank, and a letter the namer never saw is not read surely)."""
    probs = detector.namer.probabilities([detector.namer.crop(image, tuple(b)) for b in boxes],
                                         detector.turns)
    sure: dict[str, str] = {}
    for p in probs:
        k = int(p.argmax())
        if k < len(NAMER_CLASSES) - 1 and p[k] >= SURE_READING:
            sure.setdefault(NAMER_CLASSES[k][0], NAMER_CLASSES[k])
    return sure


def photo_corners(detector: CardDetector, path: Path, card: str,
                  image: np.ndarray) -> tuple[list[TaughtCorner], str | None]:
    """The corners of the one card in a photo, or the problem with it."""
    found = detector.find_corners(image)
    boxes = found.boxes[found.scores >= TEACH_SCORE]
    if len(boxes) == 0:
        return [], f"{path.name}: no card found in the photo (it should show {card})"
    if len(boxes) > MOST_INDICES:
        return [], (f"{path.name}: {len(boxes)} corner indices found, more than one card shows; "
                    f"give {card} a photo of its own")
    sure = _sure_ranks(detector, found.image, boxes)
    if len(sure) > 1:
        return [], (f"{path.name}: shows more than one card (read there: "
                    f"{', '.join(sorted(sure.values()))}); give {card} a photo of its own")
    return [TaughtCorner(card, found.image, tuple(float(v) for v in box), path.name)
            for box in boxes], None


def teaching_photos(folder: Path, detector: CardDetector) -> TeachingPhotos:
    """Every photo of `folder` checked and its card's corners found (`TeachingPhotos`)."""
    taught = TeachingPhotos()
    if not folder.is_dir():
        taught.problems.append(f"{folder}: no such folder")
        return taught
    files = photo_files(folder)
    if not files:
        taught.problems.append(f"{folder}: no photos in it (name each after its card: KH.jpg)")
    for path in files:
        card = _card_of(path)
        if card is None:
            taught.problems.append(f"{path.name}: the file name {path.stem!r} is no card; name "
                                   "each photo after the card it shows (KH.jpg, TS.png, 10C.jpg)")
            continue
        if card in taught.cards:
            taught.problems.append(f"{path.name}: {card} is taught twice (also by "
                                   f"{taught.cards[card]}); keep one photo a card")
            continue
        taught.cards[card] = path.name
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            taught.problems.append(f"{path.name}: not a readable image (it should show {card})")
            continue
        corners, problem = photo_corners(detector, path, card, image)
        taught.corners += corners
        if problem:
            taught.problems.append(problem)
    return taught
