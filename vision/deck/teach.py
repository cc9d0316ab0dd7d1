"""Teach a deck: fit a `DeckProfile` on the shipped namer's features of the deck's own corners.

Each taught corner (a card, the frame it lies in and its index box) gives `COPIES` crops: the
crop as the detector cuts it, and augmented copies as a table's camera would see the corner
(light and colour of the light, defocus and motion blur, JPEG, sensor noise, a far camera's
12-18 px index, box jitter, a tilt and a quarter turn), made with the robustness sweep's and the
namer training's own helpers (`vision.training.perturb`, `train_classifier.small_index_crop`).
The namer gives each crop's probabilities and features (one run, `Namer.features`). The cards
the namer misreads on the taught corners themselves (`namer_misreads`: each corner as the
detector cuts it, its reading averaged over the reader's quarter turns) are the only ones the
profile reads otherwise: a residual adapter over the namer's log-probabilities whose only
columns are theirs is fitted in numpy (`fit_adapter`) on every copy, the cards not taught shown
as procedural indices of their own (`other_cards`) and the photos' other parts (pips, pictures,
the table) and the table's printed markers (`marker_crops`) as "not a corner", so that it
moves nothing else; each taught
card's prototype and radius are taken from its copies (`vision.inference.deck`). Needs numpy,
OpenCV and ONNX Runtime, and Pillow (which reportlab brings) for the procedural indices'
typefaces when the system has typefaces.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.inference.corner_crops import NAMER_CLASSES, crop_corner, tilt_about_box
from vision.inference.deck import DeckProfile
from vision.inference.detection import iou
from vision.inference.detector import DEFAULT_TURNS, Namer
from vision.table.markers import TABLE_CORNER_IDS, TRAY_IDS, marker_image
from vision.training import perturb
from vision.training.synth.index_glyphs import sample_index
from vision.training.train_classifier import small_index_crop

COPIES = 24  # crops a taught corner gives: itself and 23 augmented copies
SMALL_SHARE = 0.35  # copies seen as a far, cheap webcam sees an index (12-18 px, JPEG, noise)
TILT_DEGREES = 25.0  # copies lie turned up to this much (then any quarter turn)
BOX_JITTER = 0.12  # a finder's box is off by up to this share of its side
RADIUS_PERCENTILE = 5  # a card's radius: the similarity 95 % of its copies reach
L2 = 1e-2  # the adapter's weight decay
EPOCHS = 300
LEARNING_RATE = 0.05
BATCH = 256  # crops the namer reads at a time while teaching
#: when some cards are not taught, each of them is shown to the adapter by this many procedural
#: indices (the namer training's glyphs: standard letters in many typefaces), so that a standard
#: 8 beside a jack printed "B" stays the namer's 8
OTHER_COPIES = 8
#: crops of the table's printed markers shown to the adapter as "not a corner"
MARKER_COPIES = 96
#: a rank or suit sign misread on this share of the taught cards that carry it, and on at
#: least `GLYPH_MIN` of them, is read otherwise on all of them
GLYPH_SHARE = 0.5
GLYPH_MIN = 3


@dataclass(frozen=True)
class TaughtCorner:
    """One corner index of the deck: the card it shows, the BGR frame and its box there."""

    card: str
    image: np.ndarray
    box: tuple[float, float, float, float]
    source: str = ""  # the photo it came from


def _jittered(rng: np.random.Generator, box) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    j = rng.uniform(-BOX_JITTER, BOX_JITTER, 4) * (bw, bh, bw, bh)
    return (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3])


def _camera_look(rng: np.random.Generator, patch: np.ndarray) -> np.ndarray:
    """Light, focus, compression and noise of a table camera, each on part of the copies."""
    if rng.random() < 0.6:
        patch = perturb.gamma(patch, float(np.exp(rng.uniform(np.log(0.5), np.log(2.0)))))
    if rng.random() < 0.4:
        patch = perturb.white_balance(patch, float(rng.uniform(3000, 8000)))
    r = rng.random()
    if r < 0.25:
        patch = perturb.defocus(patch, float(rng.uniform(0.7, 2.5)))
    elif r < 0.4:
        patch = perturb.motion_blur(patch, float(rng.uniform(2, 8)), float(rng.uniform(0, 180)))
    if rng.random() < 0.4:
        electrons = float(np.exp(rng.uniform(np.log(0.7), np.log(6.0))))
        patch = perturb.sensor_noise(patch, electrons, float(rng.uniform(0.5, 4.0)), rng)
    if rng.random() < 0.5:
        patch = perturb.jpeg(patch, int(rng.integers(30, 91)))
    return patch


def augmented_crop(rng: np.random.Generator, image: np.ndarray, box, size: int) -> np.ndarray:
    """One copy of the corner at `box` in `image` as a table camera might show it, cut as the
    detector cuts crops (`size` px)."""
    window, tilted = tilt_about_box(image, box, float(rng.uniform(-TILT_DEGREES, TILT_DEGREES)))
    if rng.random() < SMALL_SHARE:  # a far webcam's index: shrunk, JPEG and/or noise, enlarged
        patch = small_index_crop(rng, window, tilted, BOX_JITTER, size)
    else:
        patch = crop_corner(window, _jittered(rng, tilted), size=size)
        if rng.random() < 0.5:  # a lower resolution than the photo's
            side = int(rng.integers(16, size + 1))
            small = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
            patch = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
        patch = _camera_look(rng, patch)
    return np.ascontiguousarray(np.rot90(patch, int(rng.integers(4))))


def corner_copies(rng: np.random.Generator, corner: TaughtCorner, copies: int,
                  size: int) -> list[np.ndarray]:
    """The corner's crop as the detector cuts it, then `copies` - 1 augmented copies."""
    first = crop_corner(corner.image, corner.box, size=size)
    return [first, *(augmented_crop(rng, corner.image, corner.box, size)
                     for _ in range(copies - 1))]


def fit_adapter(x: np.ndarray, prior: np.ndarray, labels: np.ndarray, columns: np.ndarray,
                l2: float = L2, epochs: int = EPOCHS, lr: float = LEARNING_RATE,
                ) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression of `labels` (N,) in range(K) on ``prior + x @ W + b``: standardised
    features `x` (N, F), the namer's log-probabilities `prior` (N, K); only the `columns` (K,
    bool) of W and b are fitted (full-batch Adam, weight decay `l2`), the others stay zero.
    Returns W (F, K), b (K,)."""
    n, f = x.shape
    classes = prior.shape[1]
    onehot = np.eye(classes, dtype=np.float32)[labels]
    free = columns.astype(np.float32)
    params = [np.zeros((f, classes), np.float32), np.zeros(classes, np.float32)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    for step in range(1, epochs + 1):
        logits = prior + x @ params[0] + params[1]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        d = (p - onehot) / n
        grads = [(x.T @ d + l2 * params[0]) * free, (d.sum(axis=0) + l2 * params[1]) * free]
        for param, grad, (m, v) in zip(params, grads, moments, strict=True):
            m *= b1
            m += (1 - b1) * grad
            v *= b2
            v += (1 - b2) * grad * grad
            param -= lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + eps)
    return params[0], params[1]


def other_cards(rng: np.random.Generator, cards: Sequence[str], size: int,
                copies: int = OTHER_COPIES) -> list[tuple[str, np.ndarray]]:
    """(card, crop) of procedural indices of every card not in `cards`, `copies` each."""
    crops = []
    for card in NAMER_CLASSES[:-1]:
        if card not in cards:
            for _ in range(copies):
                image, box = sample_index(rng, card)
                crops.append((card, augmented_crop(rng, image, box, size)))
    return crops


def not_corners(rng: np.random.Generator, corners: Sequence[TaughtCorner], size: int,
                attempts: int = 20) -> list[np.ndarray]:
    """Crops of the teaching photos' other parts (pips, court-card pictures, the table), one a
    taught corner where one is found: a box of that corner's size at a random place of its
    photo touching none of the photo's taught corners, cut and seen as a table camera would."""
    boxes_of: dict[int, list] = {}
    for corner in corners:
        boxes_of.setdefault(id(corner.image), []).append(corner.box)
    crops = []
    for corner in corners:
        h, w = corner.image.shape[:2]
        bw, bh = corner.box[2] - corner.box[0], corner.box[3] - corner.box[1]
        if bw >= w or bh >= h:
            continue
        for _ in range(attempts):
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            box = (x, y, x + bw, y + bh)
            if not any(iou(box, taught) > 0 for taught in boxes_of[id(corner.image)]):
                crops.append(augmented_crop(rng, corner.image, box, size))
                break
    return crops


def marker_crops(rng: np.random.Generator, size: int, count: int = MARKER_COPIES
                 ) -> list[np.ndarray]:
    """Crops of the table's own printed markers (`vision.table.markers`: the corner and tray
    markers every table has), whole or in part, as a table camera sees them: never a card."""
    crops = []
    for _ in range(count):
        marker_id = int(rng.choice((*TABLE_CORNER_IDS, *TRAY_IDS)))
        side, pad = int(rng.integers(20, 56)), int(rng.integers(3, 9))
        canvas = np.empty((side + 2 * pad + 40, side + 2 * pad + 40, 3), np.uint8)
        canvas[:] = rng.integers(0, 256, 3)  # the cloth or the tray around it
        top = 20
        canvas[top : top + side + 2 * pad, top : top + side + 2 * pad] = 245
        canvas[top + pad : top + pad + side, top + pad : top + pad + side] = \
            marker_image(marker_id, side)[:, :, None]
        part = float(rng.uniform(0.5, 1.0)) * (side + 2 * pad)
        x = top + float(rng.uniform(0, side + 2 * pad - part))
        y = top + float(rng.uniform(0, side + 2 * pad - part))
        crops.append(augmented_crop(rng, canvas, (x, y, x + part, y + part), size))
    return crops


def fit_profile(features: np.ndarray, probs: np.ndarray, labels: np.ndarray,
                cards: Sequence[str], adapted: Sequence[str], namer_sha256: str,
                feature_output: str) -> DeckProfile:
    """A deck profile from (N, F) namer features and (N, 53) probabilities of crops whose
    `labels` index `NAMER_CLASSES` (the taught `cards`' copies and other cards'): the
    standardisation, the adapter over the `adapted` cards' columns, the taught cards'
    prototypes and radii."""
    features = features.astype(np.float32)
    mean = features.mean(axis=0)
    spread = features.std(axis=0)
    scale = spread + max(float(np.median(spread)), 1e-3) * 0.1  # a dead unit stays finite
    x = (features - mean) / scale
    columns = np.isin(np.array(NAMER_CLASSES), list(adapted))
    if columns.any():
        weights, bias = fit_adapter(x, np.log(np.clip(probs, 1e-6, 1.0)), labels, columns)
    else:  # the namer read every taught corner right: nothing to read otherwise
        weights = np.zeros((x.shape[1], len(NAMER_CLASSES)), np.float32)
        bias = np.zeros(len(NAMER_CLASSES), np.float32)
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
    prototypes = np.zeros((len(cards), x.shape[1]), np.float32)
    radius = np.zeros(len(cards), np.float32)
    for k, card in enumerate(cards):
        own = unit[labels == NAMER_CLASSES.index(card)]
        centre = own.mean(axis=0)
        prototypes[k] = centre / max(float(np.linalg.norm(centre)), 1e-9)
        radius[k] = np.percentile(own @ prototypes[k], RADIUS_PERCENTILE)
    return DeckProfile(namer_sha256, tuple(cards), mean, scale.astype(np.float32), weights,
                       bias, prototypes, radius, feature_output, None, tuple(adapted))


def namer_misreads(namer: Namer, corners: Sequence[TaughtCorner],
                   turns: int = DEFAULT_TURNS) -> dict[str, set[str]]:
    """taught card -> what the shipped namer reads instead (another card, or "none": not a
    corner) on one of its taught corners, each as the detector cuts it, its reading averaged
    over the reader's quarter turns (as `Namer.probabilities` reads it)."""
    misread: dict[str, set[str]] = {}
    for start in range(0, len(corners), BATCH):
        batch = corners[start : start + BATCH]
        probs, _ = namer.features([namer.crop(c.image, c.box) for c in batch], turns=turns)
        for corner, p in zip(batch, probs.mean(axis=0), strict=True):
            read = NAMER_CLASSES[int(p.argmax())]
            if read != corner.card:
                misread.setdefault(corner.card, set()).add(read)
    return misread


def cards_to_adapt(cards: Sequence[str], misread: dict[str, set[str]]) -> tuple[str, ...]:
    """The adapter's columns: the taught cards the namer misread, every taught card carrying a
    sign it misread (`misread_signs`), and the cards it took those for (a "B" jack read as an
    8: the 8 must give way). A card misread alone (one photo's blur) moves only itself."""
    signs = set(misread_signs(cards, list(misread)))
    adapted = set(misread) | signs
    adapted |= {read for card in signs for read in misread.get(card, ())
                if read in NAMER_CLASSES[:-1]}
    return tuple(sorted(adapted, key=NAMER_CLASSES.index))


def misread_signs(cards: Sequence[str], misread: Sequence[str]) -> tuple[str, ...]:
    """The taught `cards` carrying a rank or suit sign misread on at least `GLYPH_SHARE` (and
    `GLYPH_MIN`) of the taught cards that carry it (a jack printed "B", a blue diamond: the
    namer misreads the sign, on whichever card)."""
    carriers: set[str] = set()
    for position in (0, 1):  # the rank, then the suit
        for sign in {card[position] for card in cards}:
            carrying = [card for card in cards if card[position] == sign]
            wrong = sum(card in misread for card in carrying)
            if wrong >= GLYPH_MIN and wrong >= GLYPH_SHARE * len(carrying):
                carriers.update(carrying)
    return tuple(sorted(carriers, key=NAMER_CLASSES.index))


def teach_deck(corners: Sequence[TaughtCorner], namer: Namer, copies: int = COPIES,
               seed: int = 0) -> DeckProfile:
    """A deck profile for `namer` (loaded `with_features`) from the deck's taught corners.
    Deterministic for a given seed."""
    if not corners:
        raise ValueError("nothing to teach: no corner of any card")
    started = time.process_time()
    cards = sorted({c.card for c in corners}, key=NAMER_CLASSES.index)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    seen: dict[str, int] = {}
    for corner in corners:
        # each corner's copies from its own stream (the seed, its card, its number among that
        # card's corners): what is taught of one card does not change another card's copies
        seen[corner.card] = seen.get(corner.card, 0) + 1
        rng = np.random.default_rng([seed, NAMER_CLASSES.index(corner.card), seen[corner.card]])
        crops += corner_copies(rng, corner, copies, namer.crop_size)
        labels += [NAMER_CLASSES.index(corner.card)] * copies
    for card, crop in other_cards(np.random.default_rng([seed, len(NAMER_CLASSES)]), cards,
                                  namer.crop_size):
        crops.append(crop)
        labels.append(NAMER_CLASSES.index(card))
    background = not_corners(np.random.default_rng([seed, len(NAMER_CLASSES) + 1]), corners,
                             namer.crop_size)
    background += marker_crops(np.random.default_rng([seed, len(NAMER_CLASSES) + 2]),
                               namer.crop_size)
    crops += background
    labels += [len(NAMER_CLASSES) - 1] * len(background)  # "not a corner"
    probs, features = [], []
    for start in range(0, len(crops), BATCH):
        p, f = namer.features(crops[start : start + BATCH], turns=1)
        probs.append(p[0])
        features.append(f[0])
    profile = fit_profile(np.concatenate(features), np.concatenate(probs), np.array(labels),
                          cards, cards_to_adapt(cards, namer_misreads(namer, corners)),
                          namer.sha256,
                          namer.feature_output)
    return replace(profile, teaching={
        "corners": len(corners), "copies": copies, "seed": seed,
        "photos": sorted({c.source for c in corners if c.source}),
        "cpu_seconds": round(time.process_time() - started, 2)})
