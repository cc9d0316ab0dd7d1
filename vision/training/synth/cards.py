"""Card faces from real SVG decks, with the pixel boxes of their corner indices.

`CardFaces(deck="kde-standard", width=200).face("7D")` is a BGRA image of the seven of diamonds;
`index_boxes("7D")` lists the corner-index boxes (rank + suit) in that image's pixels: the
top-left index, its 180-degree counterpart and, for decks that print four, the other two.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.inference.classes import ALL_CODES
from vision.inference.detection import card_code
from vision.training.synth.decks import (
    DECK_FILES,
    DEFAULT_DECK_DIR,
    UNSEEN_DECK_FILES,
    ensure_decks,
)

Box = tuple[int, int, int, int]  # x1, y1, x2, y2 (exclusive) in face pixels


def _ink_mask(face: np.ndarray) -> np.ndarray:
    """Pixels that are printed ink (dark or saturated) on an opaque card face."""
    bgr = face[:, :, :3].astype(np.int16)
    alpha = face[:, :, 3]
    opaque = alpha > 200
    paper = np.median(bgr[opaque], axis=0) if opaque.any() else np.array([255, 255, 255])
    diff = np.abs(bgr - paper).max(axis=2)
    return (diff > 70) & opaque


def _corner_index_box(ink: np.ndarray) -> Box | None:
    """Box of the rank+suit ink cluster nearest the top-left corner of an ink mask."""
    h, w = ink.shape
    margin = max(2, round(0.035 * w))
    rx2, ry2 = round(0.27 * w), round(0.36 * h)
    region = np.ascontiguousarray(ink[margin:ry2, margin:rx2], dtype=np.uint8)
    if region.shape[0] < 8 or region.shape[1] < 8:
        return None
    n, _, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 3:
            continue
        touches_edge = x + bw >= region.shape[1] - 1 or y + bh >= region.shape[0] - 1
        if touches_edge or bw > 0.2 * w or bh > 0.25 * h:
            continue
        comps.append((x, y, x + bw, y + bh))
    if not comps:
        return None
    seed = min(comps, key=lambda c: c[0] + c[1])
    box = list(seed)
    gap = 0.045 * w
    changed = True
    while changed:
        changed = False
        for c in comps:
            if c[0] >= box[0] and c[1] >= box[1] and c[2] <= box[2] and c[3] <= box[3]:
                continue
            near = (
                c[0] <= box[2] + gap * 0.5
                and c[2] >= box[0] - gap * 0.5
                and c[1] <= box[3] + gap
                and c[3] >= box[1] - gap
            )
            if near:
                merged = [
                    min(box[0], c[0]), min(box[1], c[1]), max(box[2], c[2]), max(box[3], c[3])
                ]
                if merged[2] - merged[0] <= 0.2 * w and merged[3] - merged[1] <= 0.3 * h:
                    box = merged
                    changed = True
    pad = max(1, round(0.01 * w))
    x1, y1, x2, y2 = box
    return (
        max(0, x1 + margin - pad),
        max(0, y1 + margin - pad),
        min(w, x2 + margin + pad),
        min(h, y2 + margin + pad),
    )


def _similar(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.size == 0 or a.std() < 1 or b.std() < 1:
        return False
    score = cv2.matchTemplate(a.astype(np.float32), b.astype(np.float32), cv2.TM_CCOEFF_NORMED)
    return float(score.max()) > 0.6


def find_index_boxes(face: np.ndarray) -> list[Box]:
    """Corner-index boxes of a BGRA card face: top-left, bottom-right and any mirrored pair."""
    h, w = face.shape[:2]
    ink = _ink_mask(face)
    tl = _corner_index_box(ink)
    if tl is None:
        return []
    x1, y1, x2, y2 = tl
    boxes: list[Box] = [tl, (w - x2, h - y2, w - x1, h - y1)]
    gray = cv2.cvtColor(face[:, :, :3], cv2.COLOR_BGR2GRAY)
    tl_patch = gray[y1:y2, x1:x2]
    br_patch = gray[h - y2 : h - y1, w - x2 : w - x1]
    tr = (w - x2, y1, w - x1, y2)
    bl = (x1, h - y2, x2, h - y1)
    if _similar(gray[tr[1] : tr[3], tr[0] : tr[2]], tl_patch):
        boxes.append(tr)
    if _similar(gray[bl[1] : bl[3], bl[0] : bl[2]], br_patch):
        boxes.append(bl)
    return boxes


@lru_cache(maxsize=2048)
def _load_face(path: str) -> np.ndarray:
    face = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if face is None:
        raise FileNotFoundError(path)
    if face.shape[2] == 3:
        face = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    return face


def _face_ok(path: Path) -> bool:
    """A render is usable when it has a card's shape and two plausible corner indices.

    Some SVG elements are not the whole card (no paper, or a partial group): their renders
    have the wrong aspect ratio or no index where one should be, and are left out.
    """
    h, w = _load_face(str(path)).shape[:2]
    if not 1.3 <= h / w <= 1.65:
        return False
    boxes = _native_boxes(str(path))
    if len(boxes) < 2:
        return False
    if path.with_name(BOXES_FILE).exists():  # listed by hand (a jumbo index is bigger)
        return True
    x1, y1, x2, y2 = boxes[0]
    return 0.05 * w <= x2 - x1 <= 0.22 * w and 0.08 * h <= y2 - y1 <= 0.3 * h


@lru_cache(maxsize=256)
def usable_codes(deck: str, deck_dir: str | Path | None = None) -> tuple[str, ...]:
    """Cards of `deck` whose rendered face and corner indices passed the sanity checks.

    The answer is cached beside the faces (usable.txt) since checking means reading them all.
    """
    root = Path(deck_dir or DEFAULT_DECK_DIR) / "faces" / deck
    cache = root / "usable.txt"
    if cache.exists():
        return tuple(cache.read_text().split())
    paths = {c: root / f"{c}.png" for c in ALL_CODES}
    codes = tuple(c for c, p in paths.items() if p.exists() and _face_ok(p))
    if root.is_dir() and codes:
        cache.write_text(" ".join(codes) + "\n")
    return codes


def available_decks(deck_dir: str | Path | None = None, min_cards: int = 30) -> list[str]:
    """Decks with at least `min_cards` usable faces, unpacking and rendering them first if needed.

    Rendering first matters: `usable_codes` is cached per process, so asking before the faces
    exist would remember every deck as empty.
    """
    ensure_decks(Path(deck_dir) if deck_dir else None)
    return [d for d in DECK_FILES if len(usable_codes(d, deck_dir)) >= min_cards]


class CardFaces:
    """The 52 faces of one real SVG deck at a chosen width, with their corner-index boxes."""

    def __init__(
        self,
        deck_dir: str | Path | None = None,
        width: int = 200,
        deck: str = "kde-standard",
    ) -> None:
        self.deck_dir = Path(deck_dir or DEFAULT_DECK_DIR)
        rendered = (self.deck_dir / "faces" / deck / "KS.png").exists()
        if deck not in DECK_FILES and deck not in UNSEEN_DECK_FILES and not rendered:
            raise ValueError(f"unknown deck {deck!r}; known: {', '.join(DECK_FILES)}")
        self.deck = deck
        self.width = width
        faces_root = self.deck_dir / "faces"
        if not (faces_root / deck / "KS.png").exists():
            ensure_decks(self.deck_dir, [deck])
        self._dir = faces_root / deck

    @property
    def codes(self) -> tuple[str, ...]:
        """Card codes rendered for this deck (normally all 52)."""
        return usable_codes(self.deck, self.deck_dir)

    def _native(self, code: str) -> np.ndarray:
        return _load_face(str(self._dir / f"{card_code(code)}.png"))  # ValueError: no card

    def face(self, code: str) -> np.ndarray:
        """BGRA image of card `code`, `width` pixels wide (aspect ratio of the deck)."""
        native = self._native(code)
        h, w = native.shape[:2]
        height = round(h * self.width / w)
        interp = cv2.INTER_AREA if self.width < w else cv2.INTER_CUBIC
        return cv2.resize(native, (self.width, height), interpolation=interp)

    def index_boxes(self, code: str) -> list[tuple[float, float, float, float]]:
        """Corner-index boxes (x1, y1, x2, y2) of card `code` in `face(code)` pixels."""
        native = self._native(code)
        scale = self.width / native.shape[1]
        return [
            (x1 * scale, y1 * scale, x2 * scale, y2 * scale)
            for x1, y1, x2, y2 in _native_boxes(str(self._dir / f"{card_code(code)}.png"))
        ]


#: a deck directory may list its cards' index boxes (face pixels) in this file, for faces whose
#: ink the box finder cannot read (the unseen decks' court cards: `unseen_decks`)
BOXES_FILE = "index_boxes.json"


@lru_cache(maxsize=4096)
def _native_boxes(path: str) -> tuple[Box, ...]:
    listed = Path(path).with_name(BOXES_FILE)
    if listed.exists():
        boxes = json.loads(listed.read_text()).get(Path(path).stem)
        if boxes:
            return tuple(tuple(int(v) for v in box) for box in boxes)
    return tuple(find_index_boxes(_load_face(path)))
