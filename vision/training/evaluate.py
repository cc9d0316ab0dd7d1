"""`gintray eval-detector DIR`: score the card detector on a YOLO-labelled folder.

Reports mAP50 over the 52 cards (COCO-style 101-point AP at IoU 0.5, classes with labels only),
class-agnostic mAP50 (finding corners regardless of name), card-level precision, recall and F1
(distinct cards per image against the labelled ones, micro-averaged) and the most frequent
confusions (labelled card -> card read, for boxes matched at IoU 0.5).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.inference.detection import Detections, iou


@dataclass
class ImageTruth:
    """Labelled corner boxes of one image as (card code, box in pixels)."""

    path: Path
    boxes: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)

    @property
    def cards(self) -> set[str]:
        """Distinct labelled cards."""
        return {c for c, _ in self.boxes}


def _class_names(folder: Path) -> list[str]:
    for cand in (folder / "data.yaml", folder.parent / "data.yaml"):
        if cand.exists():
            names: dict[int, str] = {}
            in_names = False
            for line in cand.read_text().splitlines():
                if line.strip().startswith("names:"):
                    in_names = True
                    continue
                if in_names and ":" in line and line.startswith(" "):
                    k, v = line.split(":", 1)
                    names[int(k.strip())] = v.strip().strip("'\"")
                elif in_names and line and not line.startswith(" "):
                    in_names = False
            if names:
                return [names[i] for i in sorted(names)]
    from vision.training.synth.scene import CLASS_NAMES

    return list(CLASS_NAMES)


def load_truth(folder: Path, image: Path, shape: tuple[int, int], names: list[str]) -> ImageTruth:
    """Read labels/<stem>.txt for an image (YOLO normalised) into card-coded pixel boxes."""
    from vision.training.synth.scene import class_name_to_code
    from vision.training.yolo_labels import read_label_boxes

    h, w = shape
    truth = ImageTruth(image)
    for label in read_label_boxes(folder / "labels" / (image.stem + ".txt"), w, h):
        code = class_name_to_code(names[label.class_id])
        if code is not None:
            truth.boxes.append((code, label.box))
    return truth


@dataclass(frozen=True)
class LabelFix:
    """One labelled box corrected after looking at the photo: the `box`-th card line of
    `image`'s label file says `labelled`, the card shown is `corrected`."""

    image: str
    box: int
    labelled: str
    corrected: str


def load_label_fixes(path: Path) -> list[LabelFix]:
    """Corrections from a CSV with columns image, box, labelled, corrected (and any notes)."""
    import csv

    with path.open(newline="") as fh:
        return [
            LabelFix(row["image"], int(row["box"]), row["labelled"], row["corrected"])
            for row in csv.DictReader(fh)
        ]


def apply_label_fixes(truth: ImageTruth, fixes: list[LabelFix]) -> int:
    """Correct `truth` in place with the fixes for its image; returns how many applied.

    A fix whose box does not say what the fix expects is an error: the labels changed, so the
    fix may no longer be right.
    """
    applied = 0
    for fix in fixes:
        if fix.image != truth.path.name:
            continue
        if fix.box >= len(truth.boxes) or truth.boxes[fix.box][0] != fix.labelled:
            raise ValueError(
                f"label fix for {fix.image} box {fix.box} expects {fix.labelled}, the labels say "
                f"{truth.boxes[fix.box][0] if fix.box < len(truth.boxes) else 'no such box'}"
            )
        truth.boxes[fix.box] = (fix.corrected, truth.boxes[fix.box][1])
        applied += 1
    return applied


def cards_f1(frames: Iterable[tuple[Collection[str], Collection[str]]]) -> float:
    """Card F1 pooled over frames of (cards read, true cards): each frame's distinct cards
    read against its true ones, no boxes; 1.0 when no frame reads or holds any card."""
    right = read_all = true_all = 0
    for read, truth in frames:
        read, truth = set(read), set(truth)
        right, read_all, true_all = right + len(read & truth), read_all + len(read), \
            true_all + len(truth)
    return 2 * right / (read_all + true_all) if read_all + true_all else 1.0


def average_precision(scored: list[tuple[float, bool]], n_truth: int) -> float:
    """COCO 101-point interpolated AP from (score, is_true_positive) pairs."""
    if n_truth == 0:
        return float("nan")
    if not scored:
        return 0.0
    scored = sorted(scored, key=lambda s: -s[0])
    tp = np.cumsum([1 if t else 0 for _, t in scored])
    fp = np.cumsum([0 if t else 1 for _, t in scored])
    recall = tp / n_truth
    precision = tp / np.maximum(tp + fp, 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([envelope[i] if i < len(envelope) else 0.0 for i in idx]))


def _match(preds, truths, same_class: bool):
    """Greedy matching by score for one image; yields (score, tp) and matched pairs."""
    used: set[int] = set()
    out = []
    for det in sorted(preds, key=lambda d: -d.confidence):
        best, best_iou = None, 0.5
        for j, (card, box) in enumerate(truths):
            if j in used or (same_class and card != det.card):
                continue
            v = iou(det.box, box)
            if v >= best_iou:
                best, best_iou = j, v
        if best is not None:
            used.add(best)
        out.append((det, best))
    return out


def map50(results: list[tuple[ImageTruth, Detections]], agnostic: bool = False) -> float:
    """mAP at IoU 0.5 over labelled classes (or one class when agnostic)."""
    per_class: dict[str, list[tuple[float, bool]]] = {}
    n_truth: Counter = Counter()
    for truth, preds in results:
        key = (lambda c: "corner") if agnostic else (lambda c: c)
        for card, _ in truth.boxes:
            n_truth[key(card)] += 1
        for det, j in _match(preds, truth.boxes, same_class=not agnostic):
            per_class.setdefault(key(det.card), []).append((det.confidence, j is not None))
    aps = [average_precision(per_class.get(c, []), n) for c, n in n_truth.items()]
    return float(np.mean(aps)) if aps else float("nan")


def card_scores(results, threshold: float) -> dict:
    """Card-level precision/recall/F1 (distinct cards per image), top confusions, and how
    often a misread corner offered the right card as its alternative (and a right one offered
    any alternative: the checks asked of people for nothing)."""
    tp = n_pred = n_true = 0
    confusions: Counter = Counter()
    offered: Counter = Counter()
    for truth, preds in results:
        kept = [d for d in preds if d.confidence >= threshold]
        predicted = {d.card for d in kept}
        tp += len(predicted & truth.cards)
        n_pred += len(predicted)
        n_true += len(truth.cards)
        for det, j in _match(kept, truth.boxes, same_class=False):
            if j is None:
                continue
            alternative = det.alternative
            if truth.boxes[j][0] != det.card:
                confusions[(truth.boxes[j][0], det.card)] += 1
                offered["misread"] += 1
                offered["misread_offering_the_card"] += alternative == truth.boxes[j][0]
            else:
                offered["right"] += 1
                offered["right_offering_another"] += alternative is not None
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_true if n_true else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {
        "card_precision": round(p, 4),
        "card_recall": round(r, 4),
        "card_f1": round(f1, 4),
        "top_confusions": [
            {"labelled": a, "read_as": b, "count": n} for (a, b), n in confusions.most_common(10)
        ],
        "alternatives": {
            k: offered[k]
            for k in ("misread", "misread_offering_the_card", "right", "right_offering_another")
        },
    }


def labelled_frames(folder: Path, every: int = 1):
    """(image path, BGR frame or None when unreadable, its labels) for every `every`-th image of
    a folder (only those are read)."""
    import cv2

    names = _class_names(folder)
    for image in sorted((folder / "images").iterdir())[::every]:
        frame = cv2.imread(str(image))
        truth = load_truth(folder, image, frame.shape[:2], names) if frame is not None else None
        yield image, frame, truth


def evaluate_folder(
    folder: Path,
    detector,
    threshold: float = 0.25,
    labelled_boxes: bool = False,
    label_fixes: list[LabelFix] | None = None,
) -> dict:
    """Run the detector on every image of a YOLO folder and score it.

    With `labelled_boxes`, the report also has the namer alone on every labelled box
    (`namer_on_labelled_boxes`), from the same pass over the images. `label_fixes` correct
    labels known to be wrong before scoring (the report counts them).
    """
    results = []
    errors = []
    fixed = 0
    labelled: list[tuple[list[str], list, list]] = []
    started = time.perf_counter()
    for image, frame, truth in labelled_frames(folder):
        if frame is None:
            errors.append(str(image))
            continue
        fixed += apply_label_fixes(truth, label_fixes or [])
        results.append((truth, detector.detect(frame, min_confidence=0.001)))
        if labelled_boxes:
            labelled.append(_labelled_crops(frame, truth, detector.namer.crop_size))
    elapsed = time.perf_counter() - started
    report = {
        "folder": str(folder),
        "images": len(results),
        "labelled_corners": sum(len(t.boxes) for t, _ in results),
        "map50": round(map50(results), 4),
        "map50_class_agnostic": round(map50(results, agnostic=True), 4),
        "threshold": threshold,
        **card_scores(results, threshold),
        "seconds_per_image": round(elapsed / max(len(results), 1), 3),
        "labels_fixed": fixed,
    }
    if labelled_boxes:
        report["namer_on_labelled_boxes"] = _naming_report(
            labelled, detector.namer, detector.turns
        )
    if errors:
        report["unreadable_images"] = errors
    return report


def _labelled_crops(frame, truth: ImageTruth, size: int) -> tuple[list[str], list, list]:
    from vision.inference.corner_crops import crop_corner

    boxes = [box for _, box in truth.boxes]
    crops = [crop_corner(frame, b, size=size) for b in boxes]
    return [code for code, _ in truth.boxes], boxes, crops


def namer_on_labelled_boxes(folder: Path, namer, turns: int = 2) -> dict:
    """The namer alone on every labelled corner box: card, rank and per-suit accuracy.

    Isolates naming from finding: each labelled box is cropped as the detector would crop a
    found box and named; the suits' counts show which suit is read as which. The card accuracy
    is also given after the corner-pair vote (`vision.inference.corner_pairing`) within each frame.
    """
    labelled = [
        _labelled_crops(frame, truth, namer.crop_size)
        for _, frame, truth in labelled_frames(folder)
        if frame is not None
    ]
    return _naming_report(labelled, namer, turns)


def _naming_report(labelled: list[tuple[list[str], list, list]], namer, turns: int) -> dict:
    """Naming scores over frames given as (codes, boxes, crops)."""
    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.inference.corner_pairing import vote_pairs

    pairs, voted_right = [], 0
    for codes, boxes, patches in labelled:
        if not codes:
            continue
        probs = namer.probabilities(patches, turns)
        pairs += zip(codes, [NAMER_CLASSES[int(i)] for i in probs.argmax(axis=1)], strict=True)
        voted = vote_pairs(np.array(boxes, np.float32), probs).argmax(axis=1)
        voted_right += sum(
            code == NAMER_CLASSES[int(i)] for code, i in zip(codes, voted, strict=True)
        )
    suits: dict[str, Counter] = {s: Counter() for s in "CDHS"}
    for code, got in pairs:
        suits[code[1]][got[1] if got != "none" else "none"] += 1
    n = max(len(pairs), 1)
    return {
        "boxes": len(pairs),
        "card_accuracy": round(sum(c == g for c, g in pairs) / n, 4),
        "card_accuracy_pair_vote": round(voted_right / n, 4),
        "rank_accuracy": round(sum(c[0] == g[0] and g != "none" for c, g in pairs) / n, 4),
        "suits_read_as": {s: dict(counter.most_common()) for s, counter in suits.items()},
    }


def main(argv: list[str]) -> int:
    """`gintray eval-detector DIR [--backend onnx] [--conf 0.25] [--json]`."""
    from vision.detector_options import add_detector_options, detector_from_options

    ap = argparse.ArgumentParser(prog="gintray eval-detector", description=__doc__)
    ap.add_argument("folder", type=Path, help="YOLO folder with images/ and labels/")
    add_detector_options(ap)
    ap.add_argument("--conf", type=float, default=0.25, help="card-level score threshold")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument(
        "--labelled-boxes",
        action="store_true",
        help="also name every labelled box with the namer alone (naming without finding)",
    )
    ap.add_argument(
        "--label-fixes",
        type=Path,
        help="CSV of labels corrected after looking at the photos (image, box, labelled, "
        "corrected); e.g. models/dev_label_fixes.csv for the shared dev folder",
    )
    args = ap.parse_args(argv)
    if not (args.folder / "images").is_dir():
        print(f"gintray eval-detector: {args.folder}/images is not a folder", file=sys.stderr)
        return 2
    fixes = []
    if args.label_fixes:
        try:
            fixes = load_label_fixes(args.label_fixes)
        except (OSError, KeyError, ValueError) as exc:
            print(f"gintray eval-detector: cannot read {args.label_fixes}: {exc}", file=sys.stderr)
            return 2
    from vision.inference.detector import DetectorUnavailable

    try:
        detector = detector_from_options(args)
    except DetectorUnavailable as exc:
        print(f"gintray eval-detector: {exc}", file=sys.stderr)
        return 2
    try:
        report = evaluate_folder(args.folder, detector, args.conf, args.labelled_boxes, fixes)
    except ValueError as exc:
        print(f"gintray eval-detector: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['images']} images, {report['labelled_corners']} labelled corners")
    if report["labels_fixed"]:
        print(f"{report['labels_fixed']} labels corrected from {args.label_fixes}")
    print(f"mAP50 {report['map50']:.3f}  (class-agnostic {report['map50_class_agnostic']:.3f})")
    print(
        f"cards @ {args.conf}: precision {report['card_precision']:.3f}  "
        f"recall {report['card_recall']:.3f}  F1 {report['card_f1']:.3f}"
    )
    for c in report["top_confusions"]:
        print(f"  {c['labelled']} read as {c['read_as']}: {c['count']}")
    alt = report["alternatives"]
    print(
        f"alternatives: {alt['misread_offering_the_card']} of {alt['misread']} misread corners "
        f"offer the right card; {alt['right_offering_another']} of {alt['right']} right ones "
        "offer another"
    )
    if "namer_on_labelled_boxes" in report:
        alone = report["namer_on_labelled_boxes"]
        print(
            f"namer alone on {alone['boxes']} labelled boxes: card {alone['card_accuracy']:.3f}"
            f"  rank {alone['rank_accuracy']:.3f}"
            f"  card with the corner-pair vote {alone['card_accuracy_pair_vote']:.3f}"
        )
        for suit, read in alone["suits_read_as"].items():
            print(f"  {suit} read as " + ", ".join(f"{k} {v}" for k, v in read.items()))
    for bad in report.get("unreadable_images", []):
        print(f"  unreadable image: {bad}", file=sys.stderr)
    return 0
