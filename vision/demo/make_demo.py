"""Regenerate the demo footage: two whole hands of gin rummy seen from above, with ground truth.

    .venv/bin/python -m vision.demo.make_demo [--out vision/demo]

Frames are composed (deterministically, fixed seed) from real card designs (the Debian SVG
decks rendered by :mod:`vision.training.synth.cards`) on a felt table with the printed ArUco markers
of :mod:`vision.table.markers`. Each hand: the table cleared, the deal with the up card in the tray,
play (discards cover the up card, a hand reaches over the table), the knock (a face-down
discard, the knocker's spread laid down meld by meld), the defender's spread and a layoff on
the knocker's meld. Between the hands the camera is bumped (the layout is found again from
the markers). Writes ``hand/frame_NNN.jpg``, ``layout.json`` and ``ground_truth.json``.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.table.layout import TableLayout, save_layout
from vision.table.markers import detect_markers, marker_image

W, H = 960, 540
CARD_W = 80
SEED = 2026
DECK = "kde-standard"
JPEG_QUALITY = 80
DETECTOR_SCALE = 1.0
FAN_STEP = 24.0  # a run fanned to the right shows each card's index strip
STACK_STEP = 40.0  # a set stacked downwards shows each card's whole index (rank and suit)
VISIBLE = 0.6  # an index counts as visible when this share of its box is not covered

MARKER = 34
MARKER_PLACES = {0: (10, 10), 1: (W - 10 - MARKER, 10), 2: (W - 10 - MARKER, H - 10 - MARKER),
                 3: (10, H - 10 - MARKER), 4: (392, 253), 5: (534, 253)}
SLOT_CENTER = (480.0, 270.0)
STOCK_CENTER = (300.0, 270.0)
SLOT = [(436.0, 206.0), (524.0, 206.0), (524.0, 334.0), (436.0, 334.0)]
AREA_B = [(0.0, 0.0), (float(W), 0.0), (float(W), 200.0), (0.0, 200.0)]
AREA_A = [(0.0, 340.0), (float(W), 340.0), (float(W), float(H)), (0.0, float(H))]

HANDS = [
    {
        "up_card": "4C", "discards": ["KC", "7C"], "knocker": "A",
        "spreads": {
            "A": {"groups": [["5H", "6H", "7H"], ["6C", "6D", "6S"], ["9S", "TS", "JS"]],
                  "loose": ["AC"], "layoffs": []},
            "B": {"groups": [["8C", "8D", "8S"], ["2H", "3H", "4H"]],
                  "loose": ["KD", "TD", "3C"], "layoffs": ["8H"]},
        },
        "layoff_on": ("A", 0),  # the layoff extends A's first meld
        "bump": False,
    },
    {
        "up_card": "9D", "discards": ["4H", "KD"], "knocker": "B",
        "spreads": {
            "B": {"groups": [["2C", "3C", "4C", "5C"], ["7H", "7S", "7D"]],
                  "loose": ["AH", "2S", "3D"], "layoffs": []},
            "A": {"groups": [["JC", "JH", "JD"], ["8S", "9S", "TS"]],
                  "loose": ["KS", "QH", "4D"], "layoffs": ["6C"]},
        },
        "layoff_on": ("B", 0),
        "bump": True,
    },
]


@dataclass
class Placed:
    """A card lying on the table: face code (None = back), center, angle in degrees."""

    code: str | None
    cx: float
    cy: float
    angle: float


class Composer:
    """Draws table scenes and their visible corner-index boxes."""

    def __init__(self, rng: np.random.Generator, deck: str = DECK,
                 needed: list[str] | None = None) -> None:
        """`deck`'s faces (`needed`: the cards it must have, default the demo's hands')."""
        from vision.training.synth.cards import CardFaces

        self.rng = rng
        self.faces = CardFaces(width=CARD_W, deck=deck)
        missing = sorted(set(_all_codes() if needed is None else needed) - set(self.faces.codes))
        if missing:
            raise ValueError(f"deck {deck} has no usable face for {missing}")
        self.card_h = self.faces.face("2C").shape[0]
        self.back = self._card_back()
        self.table = self._table()

    def _card_back(self) -> np.ndarray:
        back = np.zeros((self.card_h, CARD_W, 4), np.uint8)
        back[:] = (255, 255, 255, 255)
        inner = back[4:-4, 4:-4]
        inner[:] = (40, 40, 170, 255)
        for k in range(-self.card_h, CARD_W, 8):
            cv2.line(inner, (k, 0), (k + self.card_h, self.card_h), (70, 70, 200, 255), 2)
        return back

    def _table(self) -> np.ndarray:
        noise = self.rng.normal(0, 1, (H // 8, W // 8)).astype(np.float32)
        noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 2), (W, H))
        table = np.zeros((H, W, 3), np.float32)
        table[:] = (52, 98, 38)  # green felt (BGR)
        table += noise[:, :, None] * 6
        tray = (slice(200, 340), slice(250, 580))
        table[tray] = (70, 86, 104)  # the wooden tray across the middle
        for marker_id, (x, y) in MARKER_PLACES.items():
            pad = 6
            table[y - pad:y + MARKER + pad, x - pad:x + MARKER + pad] = 245
            table[y:y + MARKER, x:x + MARKER] = marker_image(marker_id, MARKER)[:, :, None]
        return np.clip(table, 0, 255).astype(np.uint8)

    def _matrix(self, card: Placed, face: np.ndarray) -> np.ndarray:
        h, w = face.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), card.angle, 1.0)
        m[0, 2] += card.cx - w / 2
        m[1, 2] += card.cy - h / 2
        return m

    def _face(self, card: Placed) -> np.ndarray:
        return self.back if card.code is None else self.faces.face(card.code)

    def render(self, cards: list[Placed], hands: list[tuple[float, float, float]],
               bump: np.ndarray | None) -> tuple[np.ndarray, list[dict]]:
        image = self.table.astype(np.float32)
        owner = np.full((H, W), -1, np.int32)
        for z, card in enumerate(cards):
            face = self._face(card)
            m = self._matrix(card, face)
            warped = cv2.warpAffine(face, m, (W, H), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
            alpha = warped[:, :, 3:4].astype(np.float32) / 255
            shadow = cv2.GaussianBlur(np.roll(alpha[:, :, 0], (3, 3), (0, 1)), (0, 0), 2.5)
            image *= 1 - 0.35 * shadow[:, :, None]
            image = image * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
            owner[alpha[:, :, 0] > 0.5] = z
        for hx, hy, angle in hands:
            self._draw_hand(image, owner, hx, hy, angle)
        labels = []
        for z, card in enumerate(cards):
            if card.code is None:
                continue
            m = self._matrix(card, self._face(card))
            for box in self.faces.index_boxes(card.code):
                x1, y1, x2, y2 = box
                pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
                pts = cv2.transform(pts[None], m)[0]
                bx1, by1 = np.floor(pts.min(axis=0)).astype(int)
                bx2, by2 = np.ceil(pts.max(axis=0)).astype(int)
                region = owner[max(by1, 0):max(by2, 0), max(bx1, 0):max(bx2, 0)]
                poly = np.zeros_like(region, np.uint8)
                cv2.fillConvexPoly(poly, np.round(pts - (max(bx1, 0), max(by1, 0))).astype(
                    np.int32), 1)
                inside = poly.astype(bool)
                if inside.sum() == 0 or (region[inside] == z).mean() < VISIBLE:
                    continue
                labels.append({"card": card.code, "pts": pts})
        image = cv2.GaussianBlur(image, (0, 0), 0.6)
        image += self.rng.normal(0, 2.5, image.shape).astype(np.float32)
        frame = np.clip(image, 0, 255).astype(np.uint8)
        if bump is not None:
            frame = cv2.warpPerspective(frame, bump, (W, H), borderMode=cv2.BORDER_REPLICATE)
        out = []
        for label in labels:
            pts = label["pts"]
            if bump is not None:
                pts = cv2.perspectiveTransform(pts[None], bump)[0]
            x1, y1 = pts.min(axis=0)
            x2, y2 = pts.max(axis=0)
            out.append({"card": label["card"],
                        "box": [round(float(v), 1) for v in (x1, y1, x2, y2)]})
        return frame, out

    @staticmethod
    def _draw_hand(image: np.ndarray, owner: np.ndarray, hx: float, hy: float,
                   angle: float) -> None:
        """A player's hand and forearm reaching in from the edge (skin tone, soft shading)."""
        mask = np.zeros((H, W), np.uint8)
        direction = np.array([math.sin(math.radians(angle)), -math.cos(math.radians(angle))])
        elbow = np.array([hx, hy]) - direction * 400
        cv2.line(mask, tuple(int(v) for v in elbow), (int(hx), int(hy)), 255, 70)
        cv2.ellipse(mask, (int(hx), int(hy)), (48, 38), angle, 0, 360, 255, -1)
        for k in (-1.5, -0.5, 0.5, 1.5):
            side = np.array([direction[1], -direction[0]])
            tip = np.array([hx, hy]) + direction * 62 + side * k * 20
            base = np.array([hx, hy]) + side * k * 20
            cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, 16)
        soft = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32)[:, :, None] / 255
        skin = np.array([120, 150, 205], np.float32)
        image[:] = image * (1 - soft) + skin * soft
        owner[mask > 0] = -2


def _all_codes() -> list[str]:
    codes = []
    for hand in HANDS:
        codes += [hand["up_card"], *hand["discards"]]
        for spread in hand["spreads"].values():
            codes += [c for g in spread["groups"] for c in g] + spread["loose"] + spread["layoffs"]
    return codes


def _jitter(rng: np.random.Generator, size: float) -> float:
    return float(rng.uniform(-size, size))


def spread_cards(spread: dict, top: bool, rng: np.random.Generator, card_h: int,
                  layoff_group: int | None = None, layoffs: list[str] | None = None
                  ) -> list[list[Placed]]:
    """Cards of one spread, meld by meld (each meld a list, loose cards last as one list).

    The bottom player's cards face up the picture; the top player's are turned 180 degrees.
    Runs are fanned to the right, sets are stacked downwards.
    """
    angle = 180.0 if top else 0.0
    y0 = 14 + card_h / 2 if top else 350 + card_h / 2
    x = 60.0
    laid: list[list[Placed]] = []
    for g, group in enumerate(spread["groups"]):
        is_set = len({c[:-1] for c in group}) == 1
        cards = list(group) + (layoffs or [] if g == layoff_group else [])
        placed = []
        for i, code in enumerate(cards):
            dx, dy = (0.0, STACK_STEP * i) if is_set else (FAN_STEP * i, 0.0)
            placed.append(Placed(code, x + CARD_W / 2 + dx + _jitter(rng, 1.5),
                                 y0 + dy + _jitter(rng, 1.5), angle + _jitter(rng, 2.5)))
        laid.append(placed)
        width = CARD_W + (0 if is_set else FAN_STEP * (len(group) + 1))
        x += width + 46
    loose = []
    x += 20
    for code in spread["loose"]:
        loose.append(Placed(code, x + CARD_W / 2, y0 + _jitter(rng, 4), angle + _jitter(rng, 6)))
        x += CARD_W + 22
    laid.append(loose)
    return laid


def _bump_matrix() -> np.ndarray:
    m = cv2.getRotationMatrix2D((W / 2, H / 2), 2.5, 0.97)
    m[:, 2] += (14, -9)
    return np.vstack([m, [0, 0, 1]])


def build(out: Path) -> dict:
    """Write the frames, layout and ground truth into ``out``; return the ground truth."""
    rng = np.random.default_rng(SEED)
    comp = Composer(rng)
    frames_dir = out / "hand"
    frames_dir.mkdir(parents=True, exist_ok=True)
    for old in frames_dir.glob("*.jpg"):
        old.unlink()
    truth: dict = {"source": "synthetic: vision/demo/make_demo.py, deck " + DECK,
                   "size": [W, H], "frames": [], "hands": []}
    index = 0
    bump = None

    def emit(cards: list[Placed], phase: str, hand_no: int,
             hands: list[tuple[float, float, float]] | None = None) -> None:
        nonlocal index
        image, labels = comp.render(cards, hands or [], bump)
        name = f"frame_{index:03d}.jpg"
        cv2.imwrite(str(frames_dir / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        truth["frames"].append({"frame": name, "hand": hand_no, "phase": phase,
                                "detections": labels})
        index += 1

    def pile(cards: list[str | None]) -> list[Placed]:
        return [Placed(c, SLOT_CENTER[0] + _jitter(rng, 3), SLOT_CENTER[1] + _jitter(rng, 3),
                       _jitter(rng, 7)) for c in cards]

    for hand_no, hand in enumerate(HANDS):
        if hand["bump"]:
            bump = _bump_matrix()
        first = index
        for _ in range(5):
            emit([], "cleared", hand_no)
        stock = [Placed(None, STOCK_CENTER[0], STOCK_CENTER[1], 90.0)]
        deal = pile([hand["up_card"]])
        for _ in range(5):
            emit(stock + deal, "deal", hand_no)
        d1 = deal + pile([hand["discards"][0]])
        for _ in range(3):
            emit(stock + d1, "play", hand_no)
        emit(stock + d1, "play", hand_no, hands=[(470.0, 300.0, 0.0)])
        d2 = d1 + pile([hand["discards"][1]])
        for _ in range(3):
            emit(stock + d2, "play", hand_no)
        knocked = d2 + pile([None])
        spreads = hand["spreads"]
        knocker = hand["knocker"]
        defender = next(p for p in spreads if p != knocker)
        k_parts = spread_cards(spreads[knocker], knocker == "B", rng, comp.card_h)
        d_parts = spread_cards(spreads[defender], defender == "B", rng, comp.card_h)
        shown: list[Placed] = []
        for part in k_parts[:-1]:
            shown = shown + part
            emit(stock + knocked + shown, "knock", hand_no)
        shown = shown + k_parts[-1]
        for _ in range(5):
            emit(stock + knocked + shown, "knock", hand_no)
        defender_cards = [c for part in d_parts for c in part]
        emit(stock + knocked + shown + defender_cards[:3], "defend", hand_no)
        reach = (480.0, 120.0, 180.0) if defender == "B" else (480.0, 420.0, 0.0)
        emit(stock + knocked + shown + defender_cards, "defend", hand_no, hands=[reach])
        for _ in range(3):
            emit(stock + knocked + shown + defender_cards, "defend", hand_no)
        # the layoff: the defender's card extends the knocker's meld
        _, group_no = hand["layoff_on"]
        meld = k_parts[group_no]
        last = meld[-1]
        lay = [Placed(code, last.cx + FAN_STEP * (i + 1),
                      last.cy + _jitter(rng, 1.0), last.angle) for i, code in
               enumerate(spreads[defender]["layoffs"])]
        for _ in range(6):
            emit(stock + knocked + shown + defender_cards + lay, "layoff", hand_no)
        truth["hands"].append({
            "hand": hand_no, "up_card": hand["up_card"], "knocker": knocker,
            "spreads": spreads, "frames": [first, index - 1],
        })
    for _ in range(3):
        emit([], "cleared", len(HANDS))
    truth["hands"][-1]["frames"][1] = index - 1
    # calibration, as a user would do it: the layout drawn on the first (unbumped) frame,
    # with the markers found in it
    first_frame = cv2.imread(str(frames_dir / "frame_000.jpg"))
    markers = detect_markers(first_frame)
    layout = TableLayout(
        up_card_slot=SLOT, areas={"A": AREA_A, "B": AREA_B}, image_size=(W, H),
        markers={i: [(float(x), float(y)) for x, y in c] for i, c in markers.items()},
        name="demo table",
        # this camera sees corner indices about 12 px wide; the detector would shrink the
        # 960 px frame to 640 and make them 8 px: read native-scale tiles instead
        detector_scale=DETECTOR_SCALE,
    )
    save_layout(layout, out / "layout.json")
    (out / "ground_truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    truth = build(args.out)
    print(f"wrote {len(truth['frames'])} frames, {len(truth['hands'])} hands to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
