"""Measure the printed size of corner indices on real card designs, scaled to a poker card.

Uses the detector's card faces (vision.training.synth.cards: real SVG decks from Debian and their
corner-index boxes, rank + suit, the same boxes the detector is trained on) and reports each
deck's corner-index box in millimetres on a 63.5 mm wide card. Run from the repository root:

    .venv/bin/python hardware/mount/measure_corner_index.py
"""

from __future__ import annotations

import statistics
import sys

POKER_WIDTH_MM = 63.5
PX_PER_MM = 10


def main() -> int:
    """Print a markdown table of corner-index box sizes (mm) per deck and over all decks."""
    try:
        from vision.training.synth.cards import CardFaces, available_decks
    except ImportError as exc:  # run outside the project's venv
        print(f"measure_corner_index: {exc}; run with the project's .venv", file=sys.stderr)
        return 2
    width_px = round(POKER_WIDTH_MM * PX_PER_MM)
    print("| deck | cards | median width mm | 10th pct width mm | median height mm |")
    print("| --- | --- | --- | --- | --- |")
    all_w: list[float] = []
    for deck in available_decks():
        faces = CardFaces(width=width_px, deck=deck)
        widths, heights = [], []
        for code in faces.codes:
            boxes = faces.index_boxes(code)
            if boxes:
                x1, y1, x2, y2 = boxes[0]
                widths.append((x2 - x1) / PX_PER_MM)
                heights.append((y2 - y1) / PX_PER_MM)
        if not widths:
            continue
        all_w += widths
        p10 = statistics.quantiles(widths, n=10)[0]
        print(f"| {deck} | {len(widths)} | {statistics.median(widths):.1f} | {p10:.1f} | "
              f"{statistics.median(heights):.1f} |")
    if not all_w:
        print("no decks available (see vision/training/synth/decks.py)", file=sys.stderr)
        return 1
    p10 = statistics.quantiles(all_w, n=10)[0]
    print(f"| all decks | {len(all_w)} | {statistics.median(all_w):.1f} | {p10:.1f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
