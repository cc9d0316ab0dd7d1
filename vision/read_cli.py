"""`gintray read IMAGE... [--layout FILE] [--json]`: the table read of photos.

With a layout: the up card and each player's groups and loose cards. Without: every card seen,
grouped as laid down. One JSON line per image with ``--json``; a missing or unreadable image is
an error for that image only (exit status 1 at the end), the others are still read.
Also ``gintray read --marker-sheet OUT.png`` writes the printable ArUco marker sheet.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gintray read", description=__doc__.splitlines()[0])
    parser.add_argument("images", nargs="*", type=Path, help="photos of the table")
    parser.add_argument("--layout", type=Path, help="table layout JSON (up-card slot, areas)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per image")
    parser.add_argument("--backend", default="onnx", help="detector backend (onnx, ultralytics)")
    parser.add_argument("--weights", type=Path, help="detector weights (default: models/)")
    parser.add_argument("--marker-sheet", type=Path, metavar="PNG",
                        help="write the printable ArUco marker sheet and exit")
    return parser


def _describe(result: dict) -> str:
    lines = [f"up card: {result['up_card'] or '-'}   confidence {result['confidence']:.2f}"]
    for player, spread in result["spreads"].items():
        groups = "  ".join("[" + " ".join(g) + "]" for g in spread["groups"]) or "-"
        lines.append(f"{player}: groups {groups}  loose {' '.join(spread['loose']) or '-'}")
    lines += [f"problem: {p}" for p in result["problems"]]
    return "\n".join(lines)


def read_main(argv: list[str]) -> int:
    """Entry point of `gintray read`; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.marker_sheet:
        from vision.markers import marker_sheet

        marker_sheet(args.marker_sheet)
        print(f"marker sheet written to {args.marker_sheet}")
        return 0
    if not args.images:
        print("gintray read: give at least one image (or --marker-sheet OUT.png)", file=sys.stderr)
        return 2
    from vision.layout import LayoutError, load_layout
    from vision.reader import read_image

    layout = None
    if args.layout:
        try:
            layout = load_layout(args.layout)
        except LayoutError as exc:
            print(f"gintray read: {exc}", file=sys.stderr)
            return 2
    try:
        from vision.detector import load_detector

        detector = load_detector(args.backend, args.weights)
    except Exception as exc:  # DetectorUnavailable, missing backend: one clear message
        print(f"gintray read: detector unavailable: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            reason = "no such file" if not path.exists() else "not a readable image"
            error = {"image": str(path), "error": {"code": "bad_image", "message": reason}}
            print(json.dumps(error) if args.json else f"{path}: {reason}",
                  file=sys.stdout if args.json else sys.stderr)
            status = 1
            continue
        result = read_image(image, layout, detector).to_json()
        if args.json:
            print(json.dumps({"image": str(path), **result}))
        else:
            print(f"{path}\n{_describe(result)}")
    return status
