"""Shared fixtures for the table reader's tests: real labelled frames and laid-down spreads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorer import parse_cards
from vision.inference.detection import Detection, Detections
from vision.table.events import SpreadRead

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GINTRAY_SHARED", REPO.parent / "shared"))
REAL_CARDS = SHARED / "data" / "real-cards"
REAL_DEV = REAL_CARDS / "dev"

# card geometry used by the laid-down spreads below (pixels)
CARD_W, CARD_H = 100.0, 140.0
INDEX_W, INDEX_H = 16.0, 36.0
INDEX_INSET = 4.0


def class_names() -> list[str]:
    """Class index -> name from the real data set's data.yaml (no YAML library needed)."""
    names: dict[int, str] = {}
    in_names = False
    for line in (REAL_CARDS / "data.yaml").read_text().splitlines():
        if line.startswith("names:"):
            in_names = True
            continue
        if in_names and ":" in line and line.startswith("  "):
            key, value = line.split(":", 1)
            names[int(key)] = value.strip()
    return [names[i] for i in range(len(names))]


def needs_real_data() -> None:
    if not (REAL_DEV / "labels").is_dir():
        pytest.skip(f"real frames not found at {REAL_DEV}")


def real_stems() -> list[str]:
    needs_real_data()
    return sorted(p.stem for p in (REAL_DEV / "labels").glob("*.txt"))


def real_detections(stem: str, size: int = 640) -> Detections:
    """A real dev frame's labelled corners as detections (boxes in pixels, confidence 1; card
    backs and jokers left out)."""
    names = class_names()
    out = []
    for line in (REAL_DEV / "labels" / f"{stem}.txt").read_text().split("\n"):
        if not line.strip():
            continue
        cls, cx, cy, w, h = line.split()
        cx, cy, w, h = (float(v) * size for v in (cx, cy, w, h))
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        out.append((names[int(cls)], box))
    return Detections.from_labels(out)


def labelled_cards(stem: str) -> set[str]:
    """Distinct playing cards labelled in a real frame, as codes like 'TC'."""
    return {d.card for d in real_detections(stem)}


def laid_card(code: str, x: float, y: float, corners: str = "both",
              confidence: float = 0.95) -> list[Detection]:
    """Detections of one card lying upright with its top-left at (x, y).

    corners: 'both', 'top' (only the top-left index shows) or 'bottom'.
    """
    top = (x + INDEX_INSET, y + INDEX_INSET, x + INDEX_INSET + INDEX_W, y + INDEX_INSET + INDEX_H)
    bx, by = x + CARD_W - INDEX_INSET - INDEX_W, y + CARD_H - INDEX_INSET - INDEX_H
    bottom = (bx, by, bx + INDEX_W, by + INDEX_H)
    boxes = {"both": [top, bottom], "top": [top], "bottom": [bottom]}[corners]
    return [Detection(code, box, confidence) for box in boxes]


def fan(codes: list[str], x: float, y: float, dx: float = 26.0, dy: float = 0.0,
        confidence: float = 0.95) -> list[Detection]:
    """A meld fanned in a line: every card's top-left index shows, the top card shows both."""
    out: list[Detection] = []
    for i, code in enumerate(codes):
        last = i == len(codes) - 1
        out += laid_card(code, x + i * dx, y + i * dy, "both" if last else "top", confidence)
    return out


def stack(codes: list[str], x: float, y: float, dy: float = 44.0) -> list[Detection]:
    """Cards stacked downwards (a set laid by rank): each card's top index shows."""
    return fan(codes, x, y, dx=0.0, dy=dy)


def table_layout():
    """The laid-out test table (1280x900): B at the top, the tray slot, A at the bottom."""
    from vision.table.layout import TableLayout

    return TableLayout(
        up_card_slot=[(560, 320), (720, 320), (720, 560), (560, 560)],
        areas={"A": [(0, 580), (1280, 580), (1280, 900), (0, 900)],
               "B": [(0, 0), (1280, 0), (1280, 300), (0, 300)]},
        image_size=(1280, 900),
        name="test table",
    )


def up_card_in_tray(code: str) -> list[Detection]:
    """A card lying face up in the tray's slot (both corners visible)."""
    return laid_card(code, 590, 370)


# A's spread (the knocker): run of hearts, set of nines, three loose cards (deadwood 6).
A_RUN = ["5H", "6H", "7H", "8H"]
A_SET = ["9C", "9D", "9S"]
A_LOOSE = ["2C", "AD", "3S"]
# B's spread (the defender): set of kings, run of diamonds, three loose cards, and 9H laid off.
B_SET = ["KC", "KH", "KS"]
B_RUN = ["2D", "3D", "4D"]
B_LOOSE = ["TC", "JS", "QH"]
B_LAYOFF = "9H"


def knocker_spread(with_layoff: bool = False) -> list[Detection]:
    run = [*A_RUN, B_LAYOFF] if with_layoff else A_RUN
    return (fan(run, 40, 620) + stack(A_SET, 300, 600)
            + laid_card("2C", 700, 650) + laid_card("AD", 850, 650) + laid_card("3S", 1000, 650))


def defender_spread() -> list[Detection]:
    return (stack(B_SET, 40, 20) + fan(B_RUN, 300, 40)
            + laid_card("TC", 600, 40) + laid_card("JS", 750, 40) + laid_card("QH", 900, 40))


class NoisyLabels:
    """A stand-in detector with a bad day: returns a demo frame's labelled corners with some
    dropped, some misnamed, boxes jittered, confidences spread, and stray detections added."""

    CODES = tuple(r + s for r in "A23456789TJQK" for s in "CDHS")

    def __init__(self, frames, drop=0.1, misname=0.02, strays=1, seed=0, size=(960, 540)):
        import random

        self.frames, self.position = frames, 0
        self.rng = random.Random(seed)
        self.drop, self.misname, self.strays, self.size = drop, misname, strays, size

    def detect(self, image) -> Detections:
        frame = self.frames[self.position]
        self.position += 1
        out = []
        for d in frame["detections"]:
            if self.rng.random() < self.drop:
                continue
            card = self.rng.choice(self.CODES) if self.rng.random() < self.misname else d["card"]
            box = tuple(v + self.rng.uniform(-2, 2) for v in d["box"])
            out.append(Detection(card, box, self.rng.uniform(0.5, 0.99)))
        for _ in range(self.strays):
            x = self.rng.uniform(0, self.size[0] - 20)
            y = self.rng.uniform(0, self.size[1] - 30)
            out.append(Detection(self.rng.choice(self.CODES), (x, y, x + 12, y + 28),
                                 self.rng.uniform(0.3, 0.6)))
        return Detections(out)


class TickingClock:
    """A CPU clock that advances ``cost`` seconds at each look: every read costs ``cost`` (a
    fast or a loaded machine, whatever this one is)."""

    def __init__(self, cost: float) -> None:
        self.cost, self.now = cost, 0.0

    def __call__(self) -> float:
        self.now += self.cost
        return self.now


def spread_of(player: str, groups: list[list[str]], loose: list[str], confidence: float,
              layoffs: tuple[str, ...] | list[str] = ()) -> SpreadRead:
    """A `SpreadRead` written with card codes (the reader holds the engine's cards)."""
    return SpreadRead(player, [parse_cards(g) for g in groups], parse_cards(loose), confidence,
                      layoffs=parse_cards(layoffs))
