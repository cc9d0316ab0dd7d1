"""`gintray detect IMAGE... [--json]`: find and name the cards in photos or frames."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.detector_options import add_detector_options, detector_from_options
from vision.inference.detector import DetectorUnavailable
from vision.inference.tiling import DetectorSettings
from vision.table.grouping import cards_from_detections, seen_twice


def detect_image(detector, path: Path) -> dict:
    """The JSON record for one image; {"image", "error"} when it cannot be read."""
    if not path.is_file():
        return {"image": str(path), "error": "no such file"}
    frame = cv2.imread(str(path))
    if frame is None:
        return {"image": str(path), "error": "not a readable image (corrupt or unknown format)"}
    detections = detector.detect(frame)
    cards = sorted({d.card for d in detections})
    return {
        "image": str(path),
        "detections": [d.to_json() for d in detections],
        "cards": cards,
        "duplicates": seen_twice(cards_from_detections(detections)[0]),
    }


def main(argv: list[str]) -> int:
    """Print one record per image; exit 1 if any image could not be read."""
    ap = argparse.ArgumentParser(prog="gintray detect", description=__doc__)
    ap.add_argument("images", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true", help="one JSON line per image")
    add_detector_options(ap)
    ap.add_argument("--conf", type=float, default=0.25, help="minimum score")
    ap.add_argument("--tile", type=int, metavar="PX",
                    help="read PX-sized tiles at native scale (default: whole frames)")
    ap.add_argument("--scale", type=float, metavar="X",
                    help="enlarge the frame X times and read it in native-scale tiles")
    args = ap.parse_args(argv)
    try:
        detector = detector_from_options(
            args, min_confidence=args.conf,
            settings=DetectorSettings.for_table(args.scale, args.tile))
    except DetectorUnavailable as exc:
        print(f"gintray detect: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        record = detect_image(detector, path)
        if "error" in record:
            status = 1
            print(f"gintray detect: {path}: {record['error']}", file=sys.stderr)
        if args.json:
            print(json.dumps(record), flush=True)
        elif "error" not in record:
            print(f"{path}: {' '.join(record['cards']) or '(no cards)'}")
            if record["duplicates"]:
                print(f"  seen twice far apart: {' '.join(record['duplicates'])}")
    return status
