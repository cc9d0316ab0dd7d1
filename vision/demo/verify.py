"""Play the demo footage through the table reader and compare each hand with its ground truth.

    .venv/bin/python -m vision.demo.verify            # with the shipped detector
    .venv/bin/python -m vision.demo.verify --truth    # reader logic only: labelled corners
    .venv/bin/python -m vision.demo.verify --footage DIR   # a copy of the footage (same names),
                                                           # e.g. with camera noise (noisy.py)

A hand is read exactly when its knock card, knocker, every group (as a set of cards), the loose
cards and the layoffs of the last table read of the hand equal the ground truth and the read
lists no problem.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

from vision.inference.detection import Detections
from vision.inference.tiling import DetectorSettings, configured
from vision.table.events import HandDealt, TableRead
from vision.table.layout import load_layout
from vision.table.reader import TableReader

DEMO_DIR = Path(__file__).resolve().parent


@dataclass
class HandCheck:
    """One hand of the demo: what was read and how it differs from the truth."""

    hand: int
    dealt: list[str]
    final: TableRead | None
    differences: list[str]

    @property
    def exact(self) -> bool:
        return not self.differences


class TruthDetector:
    """Returns each frame's labelled corners in turn (for checking the reader without the
    model). It answers for whole frames in frame pixels (``frame_level``: never tiled), and
    starts again at the first frame when a looping replay does."""

    frame_level = True

    def __init__(self, frames: list[dict[str, Any]]) -> None:
        self.frames = frames
        self.position = 0

    def detect(self, image: Any) -> Detections:
        frame = self.frames[self.position % len(self.frames)]
        self.position += 1
        return Detections.from_labels((d["card"], d["box"]) for d in frame["detections"])


def _spread_key(spread: dict[str, list]) -> tuple:
    return (sorted(sorted(g) for g in spread["groups"]), sorted(spread["loose"]),
            sorted(spread["layoffs"]))


def compare(final: TableRead | None, dealt: list[str], truth: dict[str, Any]) -> list[str]:
    """Differences between the hand's read and its ground truth (empty when exact)."""
    if final is None:
        return ["no table read for this hand"]
    diffs = []
    if dealt != [truth["up_card"]]:
        diffs.append(f"knock card events {dealt}, expected [{truth['up_card']}]")
    if (final.up_card.code if final.up_card else None) != truth["up_card"]:
        diffs.append(f"up card {final.up_card}, expected {truth['up_card']}")
    if final.knocker != truth["knocker"]:
        diffs.append(f"knocker {final.knocker}, expected {truth['knocker']}")
    for player, spread in truth["spreads"].items():
        got = final.spreads.get(player)
        if got is None:
            diffs.append(f"no spread for {player}")
            continue
        have = _spread_key(got.to_json())
        want = _spread_key(spread)
        if have != want:
            diffs.append(f"{player}: read {have}, expected {want}")
    if final.problems:
        diffs.append(f"problems reported: {final.problems}")
    return diffs


def check_demo(detector: Any = None, *, use_truth: bool = False,
               demo_dir: Path = DEMO_DIR, tile: int | None = None,
               frame_level: bool = False, footage: Path | None = None) -> list[HandCheck]:
    """Feed every demo frame to a TableReader; one HandCheck per hand of the ground truth.

    ``frame_level``: the detector answers for whole frames in frame pixels (labelled corners,
    test doubles), so the layout's native-scale tiles are not applied. ``footage``: a folder
    holding a copy of the frames under the same names (layout and truth from ``demo_dir``).
    """
    frames_dir = footage or demo_dir / "hand"
    truth = json.loads((demo_dir / "ground_truth.json").read_text())
    layout = load_layout(demo_dir / "layout.json")
    if use_truth:
        detector = TruthDetector(truth["frames"])
    elif detector is None:
        from vision.inference.detector import load_detector

        detector = load_detector()
    # labels are already in frame pixels; the model reads the camera as its layout says
    settings = DetectorSettings() if use_truth or frame_level else layout.detector_settings(tile)
    reader = TableReader(configured(detector, settings), layout)
    per_hand: dict[int, dict[str, Any]] = {h["hand"]: {"dealt": [], "final": None}
                                           for h in truth["hands"]}
    current = None
    for frame in truth["frames"]:
        image = cv2.imread(str(frames_dir / frame["frame"]))
        if image is None:
            raise FileNotFoundError(frames_dir / frame["frame"])
        current = frame["hand"] if frame["hand"] in per_hand else current
        for event in reader.feed(image).events:
            if isinstance(event, HandDealt):
                per_hand[current]["dealt"].append(event.up_card.code)
            elif isinstance(event, TableRead):
                per_hand[current]["final"] = event
    return [HandCheck(h["hand"], per_hand[h["hand"]]["dealt"], per_hand[h["hand"]]["final"],
                      compare(per_hand[h["hand"]]["final"], per_hand[h["hand"]]["dealt"], h))
            for h in truth["hands"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--truth", action="store_true", help="use labelled corners, no model")
    parser.add_argument("--tile", type=int, help="detector tiles of this size at native scale")
    parser.add_argument("--footage", type=Path,
                        help="a folder with a copy of the demo frames (same file names)")
    args = parser.parse_args(argv)
    if args.footage is not None and not args.footage.is_dir():
        parser.error(f"--footage {args.footage}: no such folder")
    detector = None
    if not args.truth:  # loaded before the clock starts: the figure is the reading's
        from vision.inference.detector import load_detector

        detector = load_detector()
    frames = len(json.loads((DEMO_DIR / "ground_truth.json").read_text())["frames"])
    started = time.process_time()
    try:
        checks = check_demo(detector, use_truth=args.truth, tile=args.tile,
                            footage=args.footage)
    except FileNotFoundError as exc:
        print(f"error: frame missing from the footage: {exc}", file=sys.stderr)
        return 2
    cpu = time.process_time() - started
    for check in checks:
        status = "exact" if check.exact else "WRONG"
        print(f"hand {check.hand}: {status}")
        for diff in check.differences:
            print(f"  {diff}")
    exact = sum(c.exact for c in checks)
    print(f"{exact}/{len(checks)} hands read exactly; {cpu / frames:.3f} s of CPU a frame "
          f"({frames} frames, {cpu:.1f} s; GINTRAY_THREADS={detector_threads()})")
    return 0 if exact == len(checks) else 1


def detector_threads() -> int:
    """The inference threads the detector runs with (CPU seconds count every thread)."""
    from vision.inference.detector import _threads

    return _threads()


if __name__ == "__main__":
    sys.exit(main())
