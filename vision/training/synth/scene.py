"""Compose synthetic overhead table scenes of real card faces with occlusion-aware labels.

Each scene: a procedural table top (felt, wood, plain, cloth), an optional tray, melds fanned and
overlapping, loose and face-down cards at any rotation (half of them facing the other player),
hands and sleeves passing over, shadows, glare, perspective, optional anisotropic squash (like
16:9 webcam frames stretched to a square), blur, noise and JPEG artefacts. A corner index is
labelled, with its card, only where at least `min_visible` of it is unoccluded and in frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.inference.detection import face_card_code
from vision.training.synth.cards import CardFaces, available_decks

CLASS_NAMES: tuple[str, ...] = (
    "10C",
    "10D",
    "10H",
    "10S",
    "2C",
    "2D",
    "2H",
    "2S",
    "3C",
    "3D",
    "3H",
    "3S",
    "4C",
    "4D",
    "4H",
    "4S",
    "5C",
    "5D",
    "5H",
    "5S",
    "6C",
    "6D",
    "6H",
    "6S",
    "7C",
    "7D",
    "7H",
    "7S",
    "8C",
    "8D",
    "8H",
    "8S",
    "9C",
    "9D",
    "9H",
    "9S",
    "AC",
    "AD",
    "AH",
    "AS",
    "BACK",
    "BLACK JOKER",
    "JC",
    "JD",
    "JH",
    "JS",
    "KC",
    "KD",
    "KH",
    "KS",
    "QC",
    "QD",
    "QH",
    "QS",
    "RED JOKER",
)  # the class order of the real photos' data.yaml


def class_name_to_code(name: str) -> str | None:
    """Dataset class name ("10C", "7D") -> our card code ("TC", "7D"); None for non-cards."""
    return face_card_code(name)


def code_to_class_id(code: str) -> int:
    """Our card code ("TC") -> class index in the dataset's data.yaml."""
    name = ("10" + code[1]) if code[0] == "T" else code
    return CLASS_NAMES.index(name)


@dataclass
class Label:
    """One visible corner index: dataset class id and its box in scene pixels."""

    class_id: int
    box: tuple[float, float, float, float]


@dataclass
class _Placed:
    code: str
    matrix: np.ndarray  # 2x3 affine, face pixels -> canvas pixels
    index_boxes: list[tuple[float, float, float, float]]


def _noise_field(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((max(2, h // cells), max(2, w // cells))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    kind = rng.choice(["felt", "wood", "plain", "cloth", "desk"])
    base = rng.integers(20, 235, 3).astype(np.float32)
    if kind == "felt":
        base = (
            np.array(
                [rng.integers(20, 90), rng.integers(70, 150), rng.integers(10, 70)], np.float32
            )[[rng.permutation(3)[0], 1, 2]]
            if rng.random() < 0.3
            else np.array(
                [rng.integers(30, 80), rng.integers(90, 150), rng.integers(20, 60)], np.float32
            )
        )
    img = np.ones((h, w, 3), np.float32) * base
    if kind == "wood":
        y = np.arange(h, dtype=np.float32)[:, None]
        grain = np.sin(y / rng.uniform(3, 12) + 6 * _noise_field(rng, h, w, 40)) * 0.5 + 0.5
        img *= (0.75 + 0.35 * grain)[..., None]
        img = img[:, :, ::-1] * 0 + np.array([40, 90, 150], np.float32) * (
            0.6 + 0.6 * grain[..., None]
        )
        if rng.random() < 0.5:
            img = np.rot90(img).copy()
            img = cv2.resize(img, (w, h))
    elif kind == "cloth":
        img *= (0.8 + 0.4 * _noise_field(rng, h, w, 8))[..., None]
    elif kind == "desk":
        img[:] = rng.integers(170, 245)
    img *= (0.85 + 0.3 * _noise_field(rng, h, w, 60))[..., None]
    img += rng.normal(0, rng.uniform(1, 8), img.shape).astype(np.float32)
    return np.clip(img, 0, 255)


def _paste(
    canvas: np.ndarray,
    owner: np.ndarray,
    rgba: np.ndarray,
    matrix: np.ndarray,
    owner_id: int,
    shadow: float = 0.0,
    rng: np.random.Generator | None = None,
) -> None:
    """Warp an RGBA sprite into the canvas in place, marking owner where it is opaque."""
    h, w = canvas.shape[:2]
    sh, sw = rgba.shape[:2]
    corners = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float32) @ matrix.T
    pad = 12
    x1 = max(0, int(corners[:, 0].min()) - pad)
    y1 = max(0, int(corners[:, 1].min()) - pad)
    x2 = min(w, int(np.ceil(corners[:, 0].max())) + pad)
    y2 = min(h, int(np.ceil(corners[:, 1].max())) + pad)
    if x2 <= x1 or y2 <= y1:
        return
    m = matrix.copy()
    m[:, 2] -= (x1, y1)
    warped = cv2.warpAffine(
        rgba,
        m,
        (x2 - x1, y2 - y1),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = canvas[y1:y2, x1:x2]
    if shadow > 0 and rng is not None:
        dx, dy = rng.integers(-6, 7, 2)
        sm = np.roll(alpha[:, :, 0], (int(dy), int(dx)), axis=(0, 1))
        sm = cv2.GaussianBlur(sm, (0, 0), rng.uniform(2, 5))[..., None]
        roi *= 1 - shadow * sm
    roi[:] = roi * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
    owner[y1:y2, x1:x2][alpha[:, :, 0] > 0.5] = owner_id


def _card_back(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    color = rng.integers(20, 200, 3)
    back = np.zeros((h, w, 4), np.uint8)
    back[:, :, :3] = 245
    m = max(2, w // 14)
    back[m:-m, m:-m, :3] = color
    step = max(3, w // 10)
    for k in range(-h, w, step):
        cv2.line(back, (k, 0), (k + h, h), (*[int(c) // 2 for c in color], 255), 1)
    back[:, :, 3] = _rounded_mask(h, w, max(3, w // 16))
    return back


def _rounded_mask(h: int, w: int, r: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - r, h), 255, -1)
    cv2.rectangle(mask, (0, r), (w, h - r), 255, -1)
    for cx, cy in ((r, r), (w - r - 1, r), (r, h - r - 1), (w - r - 1, h - r - 1)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return mask


def _occluder(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A hand (palm + fingers) or a sleeve as an RGBA layer over the whole canvas."""
    layer = np.zeros((h, w, 4), np.uint8)
    skin = np.array([rng.integers(60, 190), rng.integers(90, 200), rng.integers(130, 240)])
    if rng.random() < 0.35:
        skin = rng.integers(10, 120, 3)  # sleeve / dark glove
    color = (*[int(c) for c in skin], 255)
    cx, cy = rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h
    size = rng.uniform(0.15, 0.4) * min(h, w) * 1.5
    ang = rng.uniform(0, 360)
    cv2.ellipse(
        layer, (int(cx), int(cy)), (int(size * 0.5), int(size * 0.4)), ang, 0, 360, color, -1
    )
    rad = np.deg2rad(ang)
    for f in range(rng.integers(0, 5)):
        off = (f - 1.5) * size * 0.18
        bx = cx + np.cos(rad) * size * 0.35 - np.sin(rad) * off
        by = cy + np.sin(rad) * size * 0.35 + np.cos(rad) * off
        length = size * rng.uniform(0.4, 0.8)
        ex, ey = bx + np.cos(rad) * length, by + np.sin(rad) * length
        cv2.line(layer, (int(bx), int(by)), (int(ex), int(ey)), color, max(2, int(size * 0.13)))
    # sleeve to the frame edge
    edge = (int(cx - np.cos(rad) * 3 * size), int(cy - np.sin(rad) * 3 * size))
    cv2.line(layer, (int(cx), int(cy)), edge, color, max(3, int(size * 0.7)))
    shade = 0.7 + 0.5 * _noise_field(rng, h, w, 30)
    layer[:, :, :3] = np.clip(layer[:, :, :3] * shade[..., None], 0, 255).astype(np.uint8)
    if rng.random() < 0.6:  # motion blur / soft edges
        layer = cv2.GaussianBlur(layer, (0, 0), rng.uniform(0.8, 3))
    return layer


def _layout(rng: np.random.Generator, w: int, h: int, cw: float, n_codes: int) -> list[tuple]:
    """(x, y, angle_deg) for each card: fanned melds plus loose cards."""
    spots = []
    for _ in range(rng.integers(1, 5)):
        n = int(rng.integers(2, 6))
        x, y = rng.uniform(-0.1, 1.0) * w, rng.uniform(-0.1, 1.0) * h
        ang = (
            rng.uniform(0, 360)
            if rng.random() < 0.5
            else rng.choice([0, 90, 180, 270]) + rng.normal(0, 12)
        )
        step = rng.uniform(0.14, 0.5) * cw
        fan = rng.uniform(-12, 12) if rng.random() < 0.4 else 0.0
        down = rng.uniform(-0.1, 0.1) * cw
        for i in range(n):
            a = ang + fan * i + rng.normal(0, 2)
            r = np.deg2rad(ang)
            spots.append(
                (
                    x + np.cos(r) * step * i - np.sin(r) * down * i,
                    y + np.sin(r) * step * i + np.cos(r) * down * i,
                    a,
                )
            )
    for _ in range(rng.integers(0, 5)):
        spots.append((rng.uniform(-0.1, 1.0) * w, rng.uniform(-0.1, 1.0) * h, rng.uniform(0, 360)))
    return spots[: max(1, n_codes)]


#: a card's width in a scene, in pixels of a 320 px scene (scaled with `size`): the training
#: range, up to half a 640 px frame across, closer than a table camera sees cards
TRAINING_CARD_WIDTH = (70.0, 170.0)


def compose_scene(
    seed: int, size: int = 320, decks: list[str] | None = None, min_visible: float = 0.6,
    card_width: tuple[float, float] | None = None,
) -> tuple[np.ndarray, list[Label]]:
    """One synthetic BGR scene of `size` x `size` pixels and its visible corner labels.

    `card_width` (pixels of this scene, before any squash to a square) overrides the training
    range `TRAINING_CARD_WIDTH`; the same seed draws the same scene at another card size."""
    rng = np.random.default_rng(seed)
    decks = decks or available_decks()
    stretch = rng.uniform(1.6, 1.9) if rng.random() < 0.55 else rng.uniform(0.85, 1.2)
    w, h = round(size * stretch), size
    canvas = _background(rng, h, w)
    owner = np.full((h, w), -1, np.int32)
    if rng.random() < 0.3:  # a tray or a mat under part of the cards
        tray = np.zeros(
            (int(h * rng.uniform(0.3, 0.8)), int(w * rng.uniform(0.3, 0.8)), 4), np.uint8
        )
        tray[:, :, :3] = rng.integers(0, 255, 3)
        tray[:, :, 3] = _rounded_mask(*tray.shape[:2], 8)
        m = cv2.getRotationMatrix2D((0, 0), rng.uniform(-20, 20), 1.0)
        m[:, 2] = (rng.uniform(-0.2, 0.8) * w, rng.uniform(-0.2, 0.8) * h)
        _paste(canvas, owner, tray, m, -1, shadow=0.3, rng=rng)
    deck_names = list(rng.choice(decks, size=2 if rng.random() < 0.2 else 1))
    low, high = card_width or tuple(w * size / 320 for w in TRAINING_CARD_WIDTH)
    card_w = rng.uniform(low, high)
    spots = _layout(rng, w, h, card_w, 30)
    placed: list[_Placed] = []
    faces_by_deck = {d: CardFaces(width=240, deck=d) for d in deck_names}
    codes_pool = {d: list(faces_by_deck[d].codes) for d in deck_names}
    flip_all = rng.random() < 0.5
    for i, (x, y, ang) in enumerate(spots):
        deck = deck_names[i % len(deck_names)]
        if rng.random() < 0.08:
            back = _card_back(rng, int(card_w), int(card_w * 1.4))
            m = cv2.getRotationMatrix2D((0, 0), -ang, 1.0)
            m[:, 2] += (x, y)
            _paste(canvas, owner, back, m, -1, shadow=0.35, rng=rng)
            continue
        code = codes_pool[deck][int(rng.integers(len(codes_pool[deck])))]
        faces = faces_by_deck[deck]
        face = faces.face(code)
        scale = card_w / face.shape[1]
        if flip_all and rng.random() < 0.8:
            ang += 180
        m = cv2.getRotationMatrix2D((0, 0), -ang, scale)
        m[:, 2] += (x, y)
        tint = rng.uniform(0.8, 1.1, 3)
        sprite = face.copy()
        sprite[:, :, :3] = np.clip(sprite[:, :, :3] * tint, 0, 255).astype(np.uint8)
        _paste(canvas, owner, sprite, m, len(placed), shadow=rng.uniform(0, 0.5), rng=rng)
        placed.append(_Placed(code, m, faces.index_boxes(code)))
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        layer = _occluder(rng, h, w)
        alpha = layer[:, :, 3:4].astype(np.float32) / 255.0
        canvas = canvas * (1 - alpha) + layer[:, :, :3].astype(np.float32) * alpha
        owner[alpha[:, :, 0] > 0.4] = -1
    quads: list[tuple[int, np.ndarray]] = []
    for idx, p in enumerate(placed):
        for x1, y1, x2, y2 in p.index_boxes:
            pts = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], np.float32)
            quad = pts @ p.matrix.T
            area = cv2.contourArea(quad.astype(np.float32))
            if area < 4:
                continue
            mask = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(mask, np.round(quad * 4).astype(np.int32), 1, cv2.LINE_8, 2)
            seen = np.count_nonzero((owner == idx) & (mask > 0))
            if seen / max(area, 1.0) >= min_visible:
                quads.append((code_to_class_id(p.code), quad))
    canvas = _lighting(rng, canvas)
    # mild perspective
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-0.06, 0.06, (4, 2)).astype(np.float32) * (w, h)
    hom = cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))
    canvas = cv2.warpPerspective(canvas, hom, (w, h), borderMode=cv2.BORDER_REFLECT)
    # squash to a square frame like stretched 16:9 webcam shots
    canvas = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    sx = size / w
    labels = []
    for cls, quad in quads:
        q = cv2.perspectiveTransform(quad[None].astype(np.float32), hom)[0] * (sx, 1.0)
        x1, y1 = np.clip(q.min(0), 0, size)
        x2, y2 = np.clip(q.max(0), 0, size)
        if x2 - x1 >= 3 and y2 - y1 >= 3:
            labels.append(Label(cls, (float(x1), float(y1), float(x2), float(y2))))
    return _camera(rng, canvas), labels


def _lighting(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    gain = 0.6 + 0.8 * _noise_field(rng, h, w, max(8, min(h, w) // 2))
    img = img * (rng.uniform(0.5, 1.2) * gain)[..., None]
    if rng.random() < 0.35:  # glare spot
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.05, 0.3) * max(h, w)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        img = img + glare[..., None] * rng.uniform(60, 200)
    img = img * rng.uniform(0.85, 1.15, 3) + rng.uniform(-20, 20, 3)  # white balance
    return np.clip(img, 0, 255)


def _camera(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Webcam artefacts: blur, sensor noise, salt-and-pepper specks, JPEG."""
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
    elif rng.random() < 0.3:
        k = int(rng.integers(3, 7))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    img = img + rng.normal(0, rng.uniform(0, 10), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # the photos' Roboflow-style salt-and-pepper specks
        frac = rng.uniform(0.001, 0.02)
        ys = rng.integers(0, img.shape[0], int(frac * img.size / 3))
        xs = rng.integers(0, img.shape[1], ys.size)
        img[ys, xs] = rng.choice([0, 255], ys.size)[:, None]
    quality = int(rng.integers(35, 95))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img
