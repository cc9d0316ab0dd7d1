"""Mirror-image benchmark: does the view with more corner evidence tell a
photo from its mirror image (`vision.inference.mirror`)?

Frames: real photos never mirrored (phone photos from the exporter's valid/test splits, the dev
overhead frames) and the phone photos the exporter may have flipped (its train split). Each is
read as it is and as its mirror image, once each.

- never mirrored: how often the mirror image shows as much card or more (``gintray read``'s
  ``--mirror auto`` would then read the photo flipped), how often a camera showing the photo
  would be judged mirrored (`OrientedRead.clearly_mirrored`: the margin), and, for the same
  photos mirrored, how often each is caught;
- maybe flipped: the frames where one view reads clearly better by the labels (card F1 of the
  two views differs by 0.3 or more), and how often the view with more evidence is that one.

Usage::

    .venv/bin/python benchmarks/bench_mirror.py [--backend onnx] [--limit N]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_melds_real import dev_frames  # noqa: E402

from vision.inference.mirror import (  # noqa: E402
    MIN_EVIDENCE,
    MIRROR_MARGIN,
    OrientedRead,
    corner_evidence,
    unmirror,
)
from vision.training.evaluate import cards_f1  # noqa: E402
from vision.training.phone_data import load_frames  # noqa: E402

CLEAR_F1_GAP = 0.3


def card_f1(detections, truth: tuple[str, ...]) -> float:
    return cards_f1([({d.card for d in detections}, truth)])


def judged(detections, image, other: float, mirrored: bool) -> OrientedRead:
    return OrientedRead(image, detections, mirrored, corner_evidence(detections), other)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=None, help="detector backend (default: portable)")
    parser.add_argument("--limit", type=int, default=None, help="read only N frames a set")
    args = parser.parse_args(argv)
    from vision.inference.cpu import cpu_info
    from vision.inference.detector import default_backend, load_detector

    backend = args.backend or default_backend()
    detector = load_detector(backend)
    print(f"CPU: {cpu_info().describe()} ({platform.node()}); backend {backend}")
    frames = load_frames()
    plain = [(f.image, f.cards) for f in frames if not f.may_be_mirrored][: args.limit]
    plain += [(image, truth) for _stem, image, truth in dev_frames()][: args.limit]
    maybe = [(f.image, f.cards) for f in frames if f.may_be_mirrored][: args.limit]
    started = time.perf_counter()
    ratios, flipped_wins, false_alarms, caught = [], 0, 0, 0
    for path, _truth in plain:
        image = cv2.imread(str(path))
        found, mirrored = detector.detect(image), detector.detect(unmirror(image))
        as_is, other = corner_evidence(found), corner_evidence(mirrored)
        ratios.append(other / as_is if as_is else 0.0)
        flipped_wins += other >= as_is
        # a camera showing the photo (judged on its mirror view), and one showing its mirror
        false_alarms += judged(mirrored, image, as_is, True).clearly_mirrored
        caught += judged(found, image, other, True).clearly_mirrored
    clear, agree = 0, 0
    for path, truth in maybe:
        image = cv2.imread(str(path))
        found, mirrored = detector.detect(image), detector.detect(unmirror(image))
        f1_as_is, f1_mirrored = card_f1(found, truth), card_f1(mirrored, truth)
        if abs(f1_as_is - f1_mirrored) < CLEAR_F1_GAP:
            continue
        clear += 1
        more_evidence_mirrored = corner_evidence(mirrored) > corner_evidence(found)
        agree += more_evidence_mirrored == (f1_mirrored > f1_as_is)
    seconds = time.perf_counter() - started
    ratios.sort()
    print(f"margin {MIRROR_MARGIN}, least evidence {MIN_EVIDENCE}")
    print("| frames | figure | value |\n| --- | --- | --- |")
    print(f"| never mirrored ({len(plain)}) | mirror image shows as much card or more | "
          f"{flipped_wins} |")
    print(f"| never mirrored | mirror image's evidence / photo's: max, median | "
          f"{ratios[-1]:.2f}, {ratios[len(ratios) // 2]:.2f} |")
    print(f"| never mirrored | a camera showing the photo judged mirrored | {false_alarms} |")
    print(f"| the same, mirrored | a camera showing the mirror image judged mirrored | "
          f"{caught}/{len(plain)} |")
    print(f"| maybe flipped ({len(maybe)}) | one view clearly better by the labels | {clear} |")
    print(f"| maybe flipped | the view with more evidence is that one | {agree}/{clear} |")
    print(f"{2 * (len(plain) + len(maybe))} reads in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
