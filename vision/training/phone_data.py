"""The real phone photos of a second deck (``../shared/data/real-cards-phone``): frames, their
true cards, scenes by time, and the held-out split.

Photos taken seconds apart show one scene, so frames are grouped into scenes by the time in
their file names (``IMG_YYYYMMDD_HHMMSS``) and split by scene, never by frame: the last scenes
shot are held out. Frames the exporter may have mirrored (``source_split`` train, random flips)
are marked: a table camera never sees mirrored glyphs. Which of them the exporter did mirror
was seen by eye (``phone_orientation.csv``, rank glyphs and court figures; counts in
vision/README.md); a label seen to be wrong is mended (`label_fixes`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from pathlib import Path

from vision.inference.classes import yolo_class_names
from vision.inference.detection import face_card_code
from vision.training.evaluate import LabelFix, load_label_fixes

PHONE_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-cards-phone"
SCENE_GAP_SECONDS = 60.0  # photos closer in time than this are one scene
HELD_OUT_SHARE = 0.3  # the last 30% of scenes (by time) are held out
_RANKS = {"ace": "A", "jack": "J", "queen": "Q", "king": "K", "10": "T"}
_SUITS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
_TAKEN = re.compile(r"(\d{8})_(\d{6})")
ORIENTATION_FILE = Path(__file__).with_name("phone_orientation.csv")
#: Labels seen to be wrong, by eye (the dev photos' are in models/dev_label_fixes.csv)
LABEL_FIXES_FILE = Path(__file__).resolve().parents[2] / "models" / "phone_label_fixes.csv"


@dataclass(frozen=True)
class PhoneFrame:
    """One phone photo with its labelled cards (codes like ``"TC"``) and when it was taken."""

    image: Path
    cards: tuple[str, ...]
    taken: datetime
    may_be_mirrored: bool
    scene: int = -1
    # mirrored as seen by eye: False for frames never flipped, None where nobody looked or
    # could not tell (``phone_orientation.csv``)
    seen_mirrored: bool | None = None


def card_code(name: str) -> str | None:
    """``"10 of clubs"`` / ``"jack  of clubs"`` -> ``"TC"`` / ``"JC"``; None for other names."""
    parts = name.lower().split()
    if len(parts) != 3 or parts[1] != "of" or parts[2] not in _SUITS:
        return None
    return face_card_code(_RANKS.get(parts[0], parts[0]) + _SUITS[parts[2]])


@cache
def label_fixes() -> tuple[LabelFix, ...]:
    """The phone photos' label corrections (`LABEL_FIXES_FILE`, read once)."""
    return tuple(load_label_fixes(LABEL_FIXES_FILE))


def labelled_codes(image_name: str, codes: list[str | None]) -> list[str | None]:
    """A photo's label lines as card codes, in line order, mended by `label_fixes` (a fix names
    its line as ``box``, as `evaluate.apply_label_fixes` does for the dev photos). A fix whose
    line does not say what it expects is an error: the labels changed under it."""
    mended = list(codes)
    for fix in label_fixes():
        if fix.image != image_name:
            continue
        if fix.box >= len(mended) or mended[fix.box] != fix.labelled:
            raise ValueError(f"label fix for {fix.image} line {fix.box} expects {fix.labelled}")
        mended[fix.box] = fix.corrected
    return mended


def _seen_mirrored() -> dict[str, bool | None]:
    """``phone_orientation.csv``: image file -> mirrored (None: unsure)."""
    if not ORIENTATION_FILE.is_file():
        return {}
    with ORIENTATION_FILE.open(newline="") as handle:
        return {row["image"]: {"as-is": False, "mirrored": True}.get(row["orientation"])
                for row in csv.DictReader(handle)}


def load_frames(root: Path = PHONE_DATA) -> list[PhoneFrame]:
    """Every labelled photo, in time order, with its scene number."""
    names = yolo_class_names(root / "data.yaml")
    splits = {}
    with (root / "manifest.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            splits[row["file"]] = row["source_split"]
    seen = _seen_mirrored()
    frames = []
    for image in sorted((root / "images").glob("*.jpg")):
        found = _TAKEN.search(image.name)
        label = root / "labels" / f"{image.stem}.txt"
        if found is None or not label.is_file():
            continue
        codes = labelled_codes(image.name, [card_code(names[int(line.split()[0])])
                                            for line in label.read_text().splitlines()
                                            if line.strip()])
        may_be_mirrored = splits.get(image.name, "train") == "train"
        frames.append(PhoneFrame(
            image=image,
            cards=tuple(sorted(c for c in codes if c)),
            taken=datetime.strptime("".join(found.groups()), "%Y%m%d%H%M%S"),
            may_be_mirrored=may_be_mirrored,
            seen_mirrored=seen.get(image.name) if may_be_mirrored else False,
        ))
    frames.sort(key=lambda f: (f.taken, f.image.name))
    out, scene, previous = [], -1, None
    for frame in frames:
        if previous is None or (frame.taken - previous).total_seconds() > SCENE_GAP_SECONDS:
            scene += 1
        previous = frame.taken
        out.append(replace(frame, scene=scene))
    return out


def split_by_time(
    frames: list[PhoneFrame], held_out_share: float = HELD_OUT_SHARE
) -> tuple[list[PhoneFrame], list[PhoneFrame]]:
    """(earlier scenes, held-out last scenes): whole scenes, the last ``held_out_share``."""
    scenes = sorted({f.scene for f in frames})
    first_held = scenes[round(len(scenes) * (1 - held_out_share))] if scenes else 0
    earlier = [f for f in frames if f.scene < first_held]
    return earlier, [f for f in frames if f.scene >= first_held]
