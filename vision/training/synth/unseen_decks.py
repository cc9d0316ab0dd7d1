"""Decks the namer never saw, for measuring what teaching a deck does.

- ``gnome-berlin``: aisleriot's Berlin pattern, rendered from its SVG (`decks.UNSEEN_DECK_FILES`):
  German index letters, B, D, K for jack, queen, king;
- ``four-colour``: ``kde-standard`` printed as a four-colour deck: clubs green, diamonds blue
  (the ink of every club and diamond recoloured, as four-colour poker decks print them);
- ``jumbo-index``: ``kde-standard`` with jumbo indices: each corner index enlarged `JUMBO` times
  over the paper at its corner (both corners).

`ensure_unseen_decks()` renders and derives them into the faces directory (`data/decks/faces/`,
gitignored), where `CardFaces` and the scene generator find them, with every card's index boxes
(`cards.BOXES_FILE`): found in its ink, or else, where court-card art touches the index, the
deck's usual place (the median box of the cards whose ink gives it, a ten's as wide as the
tens'). Build and benchmark time only.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.inference.classes import ALL_CODES
from vision.training.synth.cards import BOXES_FILE, find_index_boxes
from vision.training.synth.decks import ensure_decks

UNSEEN_DECKS = ("gnome-berlin", "four-colour", "jumbo-index")
DERIVED_FROM = {"four-colour": "kde-standard", "jumbo-index": "kde-standard"}
CLUB_GREEN = np.array([40, 140, 30], np.float32)  # BGR
DIAMOND_BLUE = np.array([200, 80, 20], np.float32)
JUMBO = 1.45


def four_colour(face: np.ndarray, suit: str) -> np.ndarray:
    """A BGRA face with its club ink green or its diamond ink blue (hearts, spades kept)."""
    if suit not in "CD":
        return face
    out = face.copy()
    bgr = face[:, :, :3].astype(np.float32)
    if suit == "C":  # dark ink: how dark says how much green
        ink = np.clip((160 - bgr.max(axis=2)) / 160, 0, 1)
        target = CLUB_GREEN
    else:  # red ink: how much redder than it is green
        ink = np.clip((bgr[:, :, 2] - bgr[:, :, 1]) / 150, 0, 1)
        target = DIAMOND_BLUE
    paper = bgr * (1 - ink[..., None])
    out[:, :, :3] = np.clip(paper + target * ink[..., None], 0, 255).astype(np.uint8)
    return out


def _jumbo_corner(face: np.ndarray, box) -> tuple[int, int, int, int]:
    """Enlarge the index at `box` (top-left) in place, over the paper at that corner; its new
    box."""
    x1, y1, x2, y2 = (int(v) for v in box)
    index = face[y1:y2, x1:x2].copy()
    big = cv2.resize(index, (round((x2 - x1) * JUMBO), round((y2 - y1) * JUMBO)),
                     interpolation=cv2.INTER_CUBIC)
    h, w = big.shape[:2]
    paper = np.median(face[y2 : y2 + 4, x1:x2].reshape(-1, face.shape[2]), axis=0)
    face[y1 : y1 + h + 2, x1 : x1 + w + 2] = paper.astype(np.uint8)
    face[y1 : y1 + h, x1 : x1 + w] = big
    return x1, y1, x1 + w, y1 + h


def jumbo_index(face: np.ndarray, box) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A BGRA face with both corner indices (top-left at `box`) enlarged `JUMBO` times, and
    the new top-left box."""
    out = face.copy()
    big = _jumbo_corner(out, box)
    turned = np.ascontiguousarray(out[::-1, ::-1])
    _jumbo_corner(turned, box)
    return np.ascontiguousarray(turned[::-1, ::-1]), big


def _both_corners(box, shape) -> list[list[int]]:
    h, w = shape[:2]
    x1, y1, x2, y2 = (int(v) for v in box)
    return [[x1, y1, x2, y2], [w - x2, h - y2, w - x1, h - y1]]


def _top_left_boxes(faces: dict[str, np.ndarray]) -> dict[str, tuple[int, int, int, int]]:
    """Each face's top-left index box: from its ink, or the deck's usual box (tens apart)."""
    found = {code: find_index_boxes(face) for code, face in faces.items()}
    found = {code: boxes[0] for code, boxes in found.items() if boxes}
    usual = {ten: np.median([b for c, b in found.items() if (c[0] == "T") == ten] or
                            list(found.values()), axis=0).astype(int)
             for ten in (False, True)}
    return {code: tuple(int(v) for v in found.get(code, usual[code[0] == "T"]))
            for code in faces}


def _load(path: Path) -> np.ndarray | None:
    face = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if face is not None and face.shape[2] == 3:
        face = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    return face


def _write_deck(out: Path, faces: dict[str, np.ndarray], boxes: dict[str, tuple]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for code, face in faces.items():
        cv2.imwrite(str(out / f"{code}.png"), face)
    (out / "usable.txt").unlink(missing_ok=True)
    listed = {code: _both_corners(box, faces[code].shape) for code, box in boxes.items()}
    (out / BOXES_FILE).write_text(json.dumps(listed, indent=0))


def ensure_unseen_decks(deck_dir: Path | None = None) -> Path:
    """Render Berlin and derive the four-colour and jumbo-index decks, each with its index
    boxes; the faces directory."""
    faces_root = ensure_decks(deck_dir, ["gnome-berlin", *DERIVED_FROM.values()])
    if all((faces_root / deck / BOXES_FILE).exists() for deck in UNSEEN_DECKS):
        return faces_root
    berlin = {c: f for c in ALL_CODES
              if (f := _load(faces_root / "gnome-berlin" / f"{c}.png")) is not None}
    _write_deck(faces_root / "gnome-berlin", berlin, _top_left_boxes(berlin))
    for deck, base in DERIVED_FROM.items():
        faces = {c: f for c in ALL_CODES
                 if (f := _load(faces_root / base / f"{c}.png")) is not None}
        boxes = _top_left_boxes(faces)
        if deck == "four-colour":
            made = {c: four_colour(f, c[1]) for c, f in faces.items()}
        else:
            made, boxes = {}, dict(boxes)
            for c, f in faces.items():
                made[c], boxes[c] = jumbo_index(f, boxes[c])
        _write_deck(faces_root / deck, made, boxes)
    return faces_root
