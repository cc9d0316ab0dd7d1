"""The corners to teach from photos of the laid-out deck.

The director lays the 52 cards face up in the set order (`LAYOUT_ROWS` x `LAYOUT_COLUMNS`:
clubs, diamonds, hearts, spades from top to bottom, ace to king from left to right, the table
showing between the cards) and takes one or a few photos of the whole layout. Each card's name
comes from its place:

1. the finder's corner indices (score `TEACH_SCORE`), the photo read in tiles at the scale
   that brings a laid-out deck's indices to the finder's best size (`LAYOUT_INDEX`);
2. each corner's card: the paper around the index is flood-filled (a fixed colour range about
   the paper's own colour), so every corner of one card lands in one region and the table
   between cards separates them (where a card's picture reaches its edge, the regions smaller
   than a card are joined into whole cards: `_whole_cards`); a region with more than
   `MOST_INDICES` corners is cards that could not be told from the table (or touch);
3. the card grid: the regions' turn (their rectangles' median angle) is taken out, rows are
   split where the centres' height jumps by half a card, columns counted along each row by the
   row's own pitch (a missing card leaves a gap of two), and a row missing its ace or king is
   placed against the grid of the whole rows (`_columns`), so a slight turn or perspective does
   not matter; a corner with no paper about it (a court card's picture round its index) joins
   the card at its place in that grid.

A photo may show only some rows when its name says which (``rows-CD.jpg``, ``rows-HS.jpg``).
Every problem names the photo; cards no photo showed are named (`LaidOutDeck.missing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path

import cv2
import numpy as np

from vision.deck.photos import MOST_INDICES, TEACH_SCORE, photo_files
from vision.deck.teach import TaughtCorner
from vision.inference.detector import CardDetector

LAYOUT_SUITS = "CDHS"  # rows, top to bottom
LAYOUT_RANKS = "A23456789TJQK"  # columns, left to right
LAYOUT_ROWS, LAYOUT_COLUMNS = len(LAYOUT_SUITS), len(LAYOUT_RANKS)
#: a flood fill takes the pixels within this many levels (each channel) of the paper's colour
PAPER_RANGE = 40
#: the fewest corner indices a photo of the laid-out deck shows before it is looked at
FEWEST_CORNERS = 8
#: a laid-out deck spans the photo: its indices are about this share of the photo's long side
#: (13 cards and their gaps across it, an index a fifth of a card's height)
INDEX_SHARE = 1 / 55
#: the finder reads the photo scaled so that such an index is this many pixels
#: (`vision.inference.detector.FINE_INDEX`), tile by tile, enlarged at most `MOST_ENLARGED`
LAYOUT_INDEX = 32.0
MOST_ENLARGED = 3.0
#: how far a card's middle lies from its corner index's, across the card: a share of its width
INDEX_TO_MIDDLE = 0.38
#: a corner box this share of whose area lies within a bigger box of the same card is a part
#: of that index (its rank or its suit alone), not taught
NESTED = 0.7

Box = tuple[float, float, float, float]


def layout_card(row: int, column: int) -> str:
    """The card the set order puts at `row`, `column` (0-based): (0, 0) is AC, (3, 12) KS."""
    return LAYOUT_RANKS[column] + LAYOUT_SUITS[row]


@dataclass(frozen=True)
class LaidCard:
    """One card found in a photo of the laid-out deck: its name from its place, the place,
    its corner boxes and its outline (the card's box in the photo's pixels)."""

    card: str
    row: int
    column: int
    corners: tuple[Box, ...]
    outline: tuple[int, int, int, int]


@dataclass
class LaidOutPhoto:
    """The cards found in one photo (`image` is the frame the finder read, light-normalised)."""

    photo: str
    image: np.ndarray
    cards: list[LaidCard]

    def taught_corners(self, names: dict[str, str] | None = None) -> list[TaughtCorner]:
        """Every corner of every card, named by place, or by `names` (card by place -> the
        card it really is: a misplaced card fixed by hand)."""
        names = names or {}
        return [TaughtCorner(names.get(c.card, c.card), self.image, box, self.photo)
                for c in self.cards for box in c.corners]


@dataclass
class LaidOutDeck:
    """What photos of the laid-out deck teach: the photos' cards, the problems, the cards
    that no photo showed."""

    photos: list[LaidOutPhoto] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def found(self) -> set[str]:
        return {c.card for p in self.photos for c in p.cards}

    @property
    def missing(self) -> list[str]:
        return [layout_card(r, c) for r in range(LAYOUT_ROWS) for c in range(LAYOUT_COLUMNS)
                if layout_card(r, c) not in self.found]

    def taught_corners(self) -> list[TaughtCorner]:
        return [corner for p in self.photos for corner in p.taught_corners()]


def _paper_seed(image: np.ndarray, box: np.ndarray) -> tuple[int, int] | None:
    """A pixel of the card's paper just outside an index box: of a ring of places around the
    box, the one nearest the paper's colour (the brightest tenth of the box's pixels)."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(np.rint(v)) for v in box)
    inside = image[max(0, y1):min(h, y2), max(0, x1):min(w, x2)].reshape(-1, 3).astype(np.int16)
    if len(inside) == 0:
        return None
    bright = inside[inside.sum(axis=1) >= np.percentile(inside.sum(axis=1), 90)]
    paper = np.median(bright, axis=0)
    reach = 0.3 * max(x2 - x1, y2 - y1)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    best, best_distance = None, float(PAPER_RANGE)
    for fx, fy in ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)):
        x = int(np.rint(cx + fx * ((x2 - x1) / 2 + reach)))
        y = int(np.rint(cy + fy * ((y2 - y1) / 2 + reach)))
        if 1 <= x < w - 1 and 1 <= y < h - 1:
            patch = image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(np.int16)
            distance = float(np.abs(patch - paper).max())
            if distance < best_distance:
                best, best_distance = (x, y), distance
    return best


def _card_regions(image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Each box's card region label (0: none) in a label mask the size of the image + 2."""
    h, w = image.shape[:2]
    mask = np.zeros((h + 2, w + 2), np.uint8)
    labels = [0] * len(boxes)
    next_label = 1
    for i, box in enumerate(boxes):
        seed = _paper_seed(image, box)
        if seed is None:
            continue
        held = int(mask[seed[1] + 1, seed[0] + 1])
        if held:
            labels[i] = held
            continue
        if next_label > 255:
            break
        flags = 8 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (next_label << 8)
        cv2.floodFill(image, mask, seed, 0, (PAPER_RANGE,) * 3, (PAPER_RANGE,) * 3, flags)
        labels[i] = next_label
        next_label += 1
    return mask[1:-1, 1:-1], labels


@dataclass(frozen=True)
class _Region:
    centre: np.ndarray  # x, y
    size: tuple[float, float]  # the card's short and long side
    angle: float  # degrees its long side is off the vertical, in [-45, 45)
    outline: tuple[int, int, int, int]
    corners: tuple[Box, ...]


def _region(points: np.ndarray, corners: list[Box]) -> _Region:
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
    if rw > rh:  # long side first along y
        rw, rh, angle = rh, rw, angle + 90
    angle = (angle + 45) % 90 - 45
    x, y, bw, bh = cv2.boundingRect(points)
    return _Region(np.array([cx, cy]), (rw, rh), angle, (x, y, x + bw, y + bh), tuple(corners))


def _whole_cards(parts: list[tuple[np.ndarray, list[Box]]]) -> list[tuple[np.ndarray, list]]:
    """Paper regions joined into whole cards: where a card's picture reaches its edge, the
    paper round each corner index is a region of its own; a region smaller than a card joins
    the nearest one that the two together still make one card's size (the median size of the
    regions holding two or more indices)."""
    def size(points: np.ndarray) -> np.ndarray:
        return np.sort(cv2.minAreaRect(points)[1])

    whole = [size(points) for points, mine in parts if len(mine) >= 2] or \
        [size(points) for points, _ in parts]
    card = np.median(whole, axis=0)
    parts = list(parts)
    joined = True
    while joined:
        joined = False
        for i, (points, mine) in enumerate(parts):
            if (size(points) >= 0.85 * card).all():
                continue
            centre = points.reshape(-1, 2).mean(axis=0)
            fits = []
            for j, (other, _) in enumerate(parts):
                both = cv2.convexHull(np.concatenate([points, other]))
                if j != i and (size(both) <= 1.12 * card).all():
                    fits.append((float(np.linalg.norm(other.reshape(-1, 2).mean(axis=0)
                                                      - centre)), j, both))
            if fits:
                _, j, both = min(fits, key=lambda f: f[0])
                parts[min(i, j)] = (both, mine + parts[j][1] if j > i else parts[j][1] + mine)
                del parts[max(i, j)]
                joined = True
                break
    return parts


def _inside(outline: tuple[int, int, int, int], point: np.ndarray) -> bool:
    return outline[0] <= point[0] <= outline[2] and outline[1] <= point[1] <= outline[3]


def _own_corners(regions: list[_Region]) -> tuple[list[_Region], list[Box]]:
    """Each corner with the card it lies on: a corner whose paper seed reached across the
    gap to a neighbour's paper (a big index, a court card's picture round it, cards laid
    close) lies outside that region's outline; it goes to the card whose outline holds it
    (the nearest such), or, on none, is left to the grid (the strays returned)."""
    owner: dict[int, list[Box]] = {i: [] for i in range(len(regions))}
    strays: list[Box] = []
    for i, region in enumerate(regions):
        for box in region.corners:
            centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
            if _inside(region.outline, centre):
                owner[i].append(box)
                continue
            holders = [j for j, r in enumerate(regions) if _inside(r.outline, centre)]
            if holders:
                j = min(holders, key=lambda j: float(np.linalg.norm(regions[j].centre - centre)))
                owner[j].append(box)
            else:
                strays.append(box)
    return [replace(r, corners=tuple(owner[i])) for i, r in enumerate(regions)], strays


def _whole_indices(corners: list[Box]) -> tuple[Box, ...]:
    """A card's corners less those lying within a bigger one of them (`NESTED` of their
    area): where the finder boxed a big index whole and also its rank or its suit alone, the
    part would teach that a rank or a pip alone is this card."""
    def area(b: Box) -> float:
        return max(b[2] - b[0], 0.0) * max(b[3] - b[1], 0.0)

    def within(small: Box, big: Box) -> float:
        w = min(small[2], big[2]) - max(small[0], big[0])
        h = min(small[3], big[3]) - max(small[1], big[1])
        return max(w, 0.0) * max(h, 0.0) / max(area(small), 1e-9)

    return tuple(b for b in corners
                 if not any(area(o) > area(b) and within(b, o) >= NESTED for o in corners))


def _rows(regions: list[_Region], along: np.ndarray, height: float) -> list[list[int]]:
    """Regions split into rows, top to bottom, where the height jumps by half a card."""
    order = np.argsort(along[:, 1])
    rows: list[list[int]] = [[int(order[0])]]
    for a, b in pairwise(order):
        if along[b, 1] - along[a, 1] > 0.5 * height:
            rows.append([])
        rows[-1].append(int(b))
    return [sorted(row, key=lambda i: along[i, 0]) for row in rows]


def _line(ys: list[float], values: list[float]) -> tuple[float, float]:
    """Intercept and slope of `values` against `ys` (a constant when all ys are alike)."""
    if len(ys) < 2 or np.ptp(ys) < 1e-6:
        return float(np.median(values)), 0.0
    slope, intercept = np.polyfit(ys, values, 1)
    return float(intercept), float(slope)


@dataclass(frozen=True)
class _Grid:
    """Where the columns lie down an unturned photo: column k's centre at height y is at
    first(y) + k pitch(y), both lines (intercept, slope)."""

    first: tuple[float, float]
    pitch: tuple[float, float]

    def column(self, x: float, y: float) -> int:
        """The column nearest (x, y)."""
        first, pitch = self.first[0] + self.first[1] * y, self.pitch[0] + self.pitch[1] * y
        return int(np.rint((x - first) / pitch))

    def centre(self, column: int, y: float) -> float:
        return (self.first[0] + self.first[1] * y) + column * (self.pitch[0] + self.pitch[1] * y)


def _columns(rows: list[list[int]], along: np.ndarray,
             width: float) -> tuple[list[list[int]], _Grid]:
    """Each row's column numbers, and the grid of the columns. Along a row they are counted
    by the row's own pitch (a missing card leaves a gap of two). A row that spans all 13
    places starts at column 0; a shorter one (its ace or its king missing) is placed against
    the grid of the whole rows: in a slightly tilted photo the grid's first column and its
    pitch change linearly down the photo (one whole row: its middle column taken as straight
    above the others')."""
    steps = [along[b, 0] - along[a, 0] for row in rows for a, b in pairwise(row)]
    everywhere = float(np.median(steps)) if steps else 1.1 * width
    heights, pitches, counted = [], [], []
    for row in rows:
        gaps = np.diff(along[row, 0])
        usual = gaps[gaps < 1.5 * everywhere]
        pitch = float(np.median(usual)) if len(usual) else everywhere
        numbers = [0]
        for gap in gaps:
            numbers.append(numbers[-1] + max(1, int(np.rint(gap / pitch))))
        heights.append(float(np.median(along[row, 1])))
        pitches.append(pitch)
        counted.append(numbers)
    pitch_at = _line(heights, pitches)
    whole = [r for r, numbers in enumerate(counted) if numbers[-1] == LAYOUT_COLUMNS - 1]
    firsts = [float(along[row[0], 0]) for row in rows]
    if len(whole) >= 2:
        first_at = _line([heights[r] for r in whole], [firsts[r] for r in whole])
    elif whole:
        r = whole[0]
        middle = LAYOUT_COLUMNS // 2
        first_at = (firsts[r] + middle * (pitch_at[0] + pitch_at[1] * heights[r])
                    - middle * pitch_at[0], -middle * pitch_at[1])
    else:
        first_at = (min(firsts), 0.0)
    columns = []
    for r, numbers in enumerate(counted):
        offset = 0
        if r not in whole:
            y = heights[r]
            guess = (firsts[r] - first_at[0] - first_at[1] * y) / (pitch_at[0] + pitch_at[1] * y)
            offset = int(np.clip(np.rint(guess), 0, max(0, LAYOUT_COLUMNS - 1 - numbers[-1])))
        columns.append([offset + n for n in numbers])
    return columns, _Grid(first_at, pitch_at)


def laid_out_photo(detector: CardDetector, name: str, image: np.ndarray,
                   suits: str = LAYOUT_SUITS) -> tuple[LaidOutPhoto | None, str | None]:
    """The cards of one photo of the laid-out deck, named by place, or the photo's problem.
    A photo may show only some rows: `suits` are its rows' suits, top to bottom."""
    scale = min(MOST_ENLARGED, LAYOUT_INDEX / (INDEX_SHARE * max(image.shape[:2])))
    found = detector.find_corners(image, scale=scale)
    boxes = found.boxes[found.scores >= TEACH_SCORE]
    if len(boxes) < FEWEST_CORNERS:
        return None, (f"{name}: {len(boxes)} corner indices found; a photo of the laid-out deck "
                      f"shows its {LAYOUT_ROWS} rows of {LAYOUT_COLUMNS} cards face up")
    mask, labels = _card_regions(found.image, boxes)
    parts = []
    for label in sorted(set(labels) - {0}):
        mine = [tuple(float(v) for v in boxes[i]) for i, k in enumerate(labels) if k == label]
        ys, xs = np.nonzero(mask == label)
        parts.append((cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32)), mine))
    regions, strays = _own_corners([_region(points, mine) for points, mine in
                                    _whole_cards(parts)])
    crowded = [r for r in regions if len(r.corners) > MOST_INDICES]
    if crowded or not regions:
        return None, (f"{name}: the cards could not be told from the table (or they touch); lay "
                      "them on a plain cloth darker than the cards, the cloth showing between "
                      "them")
    angle = float(np.median([r.angle for r in regions]))
    turn = np.deg2rad(angle)
    unturn = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    along = np.array([unturn @ r.centre for r in regions])
    width, height = (float(np.median([r.size[k] for r in regions])) for k in (0, 1))
    rows = _rows(regions, along, height)
    if len(rows) != len(suits):
        return None, (f"{name}: the cards lie in {len(rows)} rows, not {len(suits)}; lay them "
                      f"out in {LAYOUT_ROWS} rows of {LAYOUT_COLUMNS} (clubs, diamonds, hearts, "
                      "spades; ace to king) and show all of them in each photo, or name a photo "
                      "of some rows after their suits (rows-CD.jpg)")
    columns, grid = _columns(rows, along, width)
    if max(max(c) for c in columns) >= LAYOUT_COLUMNS:
        worst = max(range(len(rows)), key=lambda r: max(columns[r]))
        return None, (f"{name}: row {worst + 1} ({suits[worst]}) holds more than "
                      f"{LAYOUT_COLUMNS} places; lay the cards out {LAYOUT_ROWS} rows of "
                      f"{LAYOUT_COLUMNS}, evenly spaced")
    places: dict[tuple[int, int], tuple[list[Box], tuple[int, int, int, int]]] = {}
    for r, (row, numbers) in enumerate(zip(rows, columns, strict=True)):
        if len(set(numbers)) != len(numbers):
            return None, f"{name}: two cards at one place in row {r + 1}; lay them evenly spaced"
        for i, column in zip(row, numbers, strict=True):
            places[r, column] = (list(regions[i].corners), regions[i].outline)
    heights = [float(np.median(along[row, 1])) for row in rows]
    for box in [*(boxes[i] for i, label in enumerate(labels) if label == 0), *strays]:
        _place_by_grid(places, np.asarray(box), unturn, grid, heights, (width, height))
    rows_laid = [LAYOUT_SUITS.index(suit) for suit in suits]
    cards = [LaidCard(layout_card(rows_laid[r], c), rows_laid[r], c, _whole_indices(corners),
                      outline)
             for (r, c), (corners, outline) in sorted(places.items())]
    return LaidOutPhoto(name, found.image, cards), None


def _place_by_grid(places: dict, box: np.ndarray, unturn: np.ndarray, grid: _Grid,
                   heights: list[float], card: tuple[float, float]) -> None:
    """A corner with no paper about it (a court card whose picture surrounds its index) joins
    the card at its place in the grid, or makes it (its outline: a card's size there)."""
    x, y = unturn @ np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    row = int(np.argmin([abs(y - h) for h in heights]))
    if abs(y - heights[row]) > 0.6 * card[1]:
        return
    # the card's middle, not the corner, picks the column: a top-left index (above the row's
    # middle) lies left of its card's middle, a bottom-right one (below it) right of it; a
    # bottom-right index is otherwise as near the next card's column as its own
    toward = 1.0 if y < heights[row] else -1.0
    column = grid.column(x + toward * INDEX_TO_MIDDLE * card[0], heights[row])
    if not 0 <= column < LAYOUT_COLUMNS:
        return
    corners, outline = places.get((row, column), ([], None))
    if outline is None:
        cx, cy = unturn.T @ np.array([grid.centre(column, heights[row]), heights[row]])
        w, h = 0.55 * card[0], 0.55 * card[1]
        outline = (int(cx - w), int(cy - h), int(cx + w), int(cy + h))
    places[row, column] = ([*corners, tuple(float(v) for v in box)], outline)


def rows_named(path: Path) -> tuple[str, str | None]:
    """The rows a photo shows: those its name gives (``rows-CD.jpg``: clubs and diamonds, top
    to bottom), else all four; or the problem with its name."""
    named = re.search(r"rows-([a-z]+)", path.stem, re.IGNORECASE)
    if named is None:
        return LAYOUT_SUITS, None
    suits = named.group(1).upper()
    if not suits or any(s not in LAYOUT_SUITS for s in suits) or \
            "".join(sorted(set(suits), key=LAYOUT_SUITS.index)) != suits:
        return suits, (f"{path.name}: {named.group(0)!r} names no rows of the layout; name the "
                       "rows it shows top to bottom in the set order: rows-CD.jpg, rows-HS.jpg")
    return suits, None


def laid_out_deck(paths: list[Path], detector: CardDetector) -> LaidOutDeck:
    """Every photo (a file, or a folder's files) of the laid-out deck read (`LaidOutDeck`)."""
    deck = LaidOutDeck()
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = photo_files(path)
            if not inside:
                deck.problems.append(f"{path}: no photos in it")
            files += inside
        elif path.is_file():
            files.append(path)
        else:
            deck.problems.append(f"{path}: no such photo or folder")
    for path in files:
        suits, problem = rows_named(path)
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if problem is None else None
        if problem or image is None:
            deck.problems.append(problem or f"{path.name}: not a readable image")
            continue
        photo, problem = laid_out_photo(detector, path.name, image, suits)
        if problem:
            deck.problems.append(problem)
        else:
            deck.photos.append(photo)
    return deck
