"""Teach the dev deck from the training photos' corners and read the dev photos with it.

Run:  GINTRAY_THREADS=1 .venv/bin/python benchmarks/bench_deck.py [--per-card 3] [--source phone]
          [--out /tmp/dev-deck.json] [--no-baseline]

Teaching corners: for each of the 52 cards, its labelled corner boxes in the first `--per-card`
photos (sorted by name) of `../shared/data/real-cards/train` that show it (`--source phone`: the
phone close-ups IMG_*, `webcam`: the cards held to a webcam, `all`: both). Dev is never taught
from (the train and dev photos are separate sets). The profile is fitted by
`vision.deck.teach.teach_deck` (the same code as `gintray deck learn`), timed in CPU seconds
(one thread: GINTRAY_THREADS=1), and written to `--out`; then `gintray eval-detector`'s scoring
(`vision.training.evaluate.evaluate_folder`, labelled boxes too) reads dev without and with it.

Pi 5 estimate (the method of hardware/pi/detector_formats.md): the published Pi 5 time of one
YOLO11n ONNX pass at 640 (168.082 ms) over this CPU's one-thread time of a 640x640 pass of the
shipped corner finder (a YOLO11n) measured here, times the CPU seconds taught here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from vision.inference.cpu import cpu_info
from vision.training.evaluate import evaluate_folder, labelled_frames

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "real-cards"
PI5_YOLO11N_ONNX_MS = 168.082  # Ultralytics' Raspberry Pi guide, Pi 5, FP32, 640


def is_phone_photo(path: Path) -> bool:
    """The train folder's phone close-ups are IMG_*; the webcam frames are named CARD-uuid."""
    return path.name.startswith("IMG_")


def teaching_corners(folder: Path, per_card: int, source: str):
    """TaughtCorners of every card from the first `per_card` photos that show it."""
    from vision.deck.teach import TaughtCorner

    photos: dict[str, int] = {}
    corners = []
    for path, frame, truth in labelled_frames(folder):
        if frame is None or (source != "all" and is_phone_photo(path) != (source == "phone")):
            continue
        for card in sorted(truth.cards):
            if photos.get(card, 0) >= per_card:
                continue
            photos[card] = photos.get(card, 0) + 1
            corners += [TaughtCorner(card, frame, box, path.name)
                        for code, box in truth.boxes if code == card]
    return corners


def finder_pass_ms(runs: int = 10) -> float:
    """Median one-thread time of one 640x640 pass of the shipped corner finder here."""
    from vision.inference.detector import DEFAULT_CORNERS_ONNX, OnnxCornerFinder

    finder = OnnxCornerFinder(DEFAULT_CORNERS_ONNX)
    image = np.random.default_rng(0).integers(0, 255, (640, 640, 3), np.uint8)
    finder.find(image)
    times = []
    for _ in range(runs):
        started = time.process_time()
        finder.find(image)
        times.append(time.process_time() - started)
    return float(np.median(times)) * 1000


def summary(report: dict) -> dict:
    alone = report.get("namer_on_labelled_boxes", {})
    return {"card_f1": report["card_f1"], "precision": report["card_precision"],
            "recall": report["card_recall"], "map50": report["map50"],
            "namer_alone": alone.get("card_accuracy"),
            "confusions": report.get("top_confusions", [])[:5]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-card", type=int, default=3, help="photos a card (default 3)")
    ap.add_argument("--source", choices=["phone", "webcam", "all"], default="phone")
    ap.add_argument("--copies", type=int, default=None, help="crops a corner (default: teach's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/dev-deck.json"))
    ap.add_argument("--no-baseline", action="store_true", help="skip the read without a profile")
    ap.add_argument("--train", type=Path, default=DATA / "train")
    ap.add_argument("--dev", type=Path, default=DATA / "dev")
    args = ap.parse_args(argv)

    from vision.deck.teach import COPIES, teach_deck
    from vision.inference.detector import DEFAULT_NAMER_ONNX, Namer, load_detector

    print(f"CPU: {cpu_info().describe()}", flush=True)
    corners = teaching_corners(args.train, args.per_card, args.source)
    cards = {c.card for c in corners}
    photos = {c.source for c in corners}
    print(f"teaching {len(corners)} corners of {len(cards)} cards from {len(photos)} photos "
          f"({args.source}, {args.per_card} a card)", flush=True)
    namer = Namer(DEFAULT_NAMER_ONNX, with_features=True)
    started = time.process_time()
    profile = teach_deck(corners, namer, args.copies or COPIES, args.seed)
    taught_s = time.process_time() - started
    profile.save(args.out)
    pass_ms = finder_pass_ms()
    pi_s = taught_s * PI5_YOLO11N_ONNX_MS / pass_ms
    result: dict = {"cpu": cpu_info().describe(), "corners": len(corners), "cards": len(cards),
                    "photos": len(photos), "teach_cpu_s": round(taught_s, 1),
                    "finder_pass_ms": round(pass_ms, 1), "pi5_estimate_s": round(pi_s, 1),
                    "profile": str(args.out)}
    print(f"taught in {taught_s:.1f} s of CPU (one thread); a 640 finder pass here "
          f"{pass_ms:.1f} ms, on a Pi 5 {PI5_YOLO11N_ONNX_MS} ms: Pi 5 about {pi_s:.0f} s",
          flush=True)
    if not args.no_baseline:
        result["without"] = summary(evaluate_folder(args.dev, load_detector(),
                                                    labelled_boxes=True))
        print("without a profile:", json.dumps(result["without"]), flush=True)
    result["with"] = summary(evaluate_folder(args.dev, load_detector(deck=args.out),
                                             labelled_boxes=True))
    print("with the profile:", json.dumps(result["with"]), flush=True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
