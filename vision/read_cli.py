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
from typing import TYPE_CHECKING

import cv2

from vision.detector_options import add_detector_options, detector_from_options
from vision.inference.classes import yolo_class_names
from vision.inference.mirror import MirrorSetting

if TYPE_CHECKING:
    from vision.table.events import TableRead


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gintray read", description=__doc__.splitlines()[0])
    parser.add_argument("images", nargs="*", type=Path, help="photos of the table")
    parser.add_argument("--layout", type=Path, help="table layout JSON (up-card slot, areas)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per image")
    add_detector_options(parser)
    parser.add_argument("--labels", type=Path, metavar="DIR",
                        help="score the reads against YOLO labels (DIR/NAME.txt, classes from "
                             "DIR/../../data.yaml or --names): card precision/recall, exact sets")
    parser.add_argument("--names", type=Path, help="data.yaml with the label class names")
    parser.add_argument("--tile", type=int, metavar="PX",
                        help="run the detector on PX-sized tiles at native scale (default: "
                             "the layout's detector_scale, else whole frames)")
    parser.add_argument("--mirror", choices=[s.value for s in MirrorSetting], default="auto",
                        help="auto (default): also read each photo's mirror image and keep the "
                             "view that shows more card (a photo saved mirrored, a camera set to "
                             "flip its picture; the read then says \"mirrored\"); no: as it "
                             "is (half the work); yes: always flipped back")
    parser.add_argument("--marker-sheet", type=Path, metavar="PNG",
                        help="write the printable ArUco marker sheet and exit")
    return parser


def _describe(read: TableRead) -> str:
    lines = [f"up card: {read.up_card or '-'}   confidence {read.confidence:.2f}"]
    if read.mirrored:
        lines.insert(0, "the photo is a mirror image: read flipped back")
    for player, spread in read.spreads.items():
        groups = "  ".join("[" + " ".join(map(str, g)) + "]" for g in spread.groups) or "-"
        lines.append(f"{player}: groups {groups}  loose {' '.join(map(str, spread.loose)) or '-'}")
    lines += [f"problem: {p}" for p in read.problems]
    return "\n".join(lines)


def read_main(argv: list[str]) -> int:
    """Entry point of `gintray read`; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.marker_sheet:
        from vision.table.markers import marker_sheet

        marker_sheet(args.marker_sheet)
        print(f"marker sheet written to {args.marker_sheet}")
        return 0
    if not args.images:
        print("gintray read: give at least one image (or --marker-sheet OUT.png)", file=sys.stderr)
        return 2
    from vision.table.layout import LayoutError, load_layout
    from vision.table.reader import read_image

    layout = None
    if args.layout:
        try:
            layout = load_layout(args.layout)
        except LayoutError as exc:
            print(f"gintray read: {exc}", file=sys.stderr)
            return 2
    try:
        from vision.inference.tiling import DetectorSettings, configured

        settings = (layout.detector_settings(args.tile) if layout is not None
                    else DetectorSettings.for_table(tile=args.tile))
        detector = configured(detector_from_options(args), settings)
    except Exception as exc:  # DetectorUnavailable, missing backend: one clear message
        print(f"gintray read: detector unavailable: {exc}", file=sys.stderr)
        return 2
    scorer = _LabelScore(args.labels, args.names) if args.labels else None
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
        read = read_image(image, layout, detector, MirrorSetting(args.mirror))
        if scorer is not None:
            scorer.add(path, {c.card for c in read.cards})
        if args.json:
            print(json.dumps({"image": str(path), **read.to_json()}))
        else:
            print(f"{path}\n{_describe(read)}")
    if scorer is not None:
        print(json.dumps(scorer.summary()) if args.json else scorer.report())
    return status


class _LabelScore:
    """Card-level precision/recall of the reads against YOLO-labelled corners."""

    def __init__(self, labels: Path, names: Path | None) -> None:
        self.labels = labels
        yaml_path = names or labels.parent.parent / "data.yaml"
        self.names = yolo_class_names(yaml_path)
        self.tp = self.fp = self.fn = self.exact = self.images = 0
        self.errors: list[str] = []

    def add(self, image: Path, read: set[str]) -> None:
        from vision.inference.detection import face_card_code

        label_file = self.labels / f"{image.stem}.txt"
        truth: set[str] = set()
        for line in label_file.read_text().splitlines() if label_file.is_file() else []:
            if line.strip():
                code = face_card_code(self.names[int(line.split()[0])])
                if code:
                    truth.add(code)
        self.images += 1
        self.tp += len(read & truth)
        self.fp += len(read - truth)
        self.fn += len(truth - read)
        self.exact += read == truth
        if read != truth:
            self.errors.append(f"{image.name}: missed {sorted(truth - read)}, "
                               f"extra {sorted(read - truth)}")

    def summary(self) -> dict:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"images": self.images, "card_precision": round(precision, 4),
                "card_recall": round(recall, 4), "card_f1": round(f1, 4),
                "exact_frames": self.exact,
                "exact_share": round(self.exact / self.images, 4) if self.images else 0.0,
                "true_positives": self.tp, "false_positives": self.fp, "false_negatives": self.fn}

    def report(self) -> str:
        s = self.summary()
        return "\n".join([*self.errors, (
            f"{s['images']} images: card precision {s['card_precision']:.3f}, recall "
            f"{s['card_recall']:.3f}, F1 {s['card_f1']:.3f}; whole set exactly right in "
            f"{s['exact_frames']}/{s['images']} ({s['exact_share']:.1%})")])


