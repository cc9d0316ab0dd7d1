"""`gintray synth|train|detect|eval-detector|read`: the vision part's command-line entry points.

Heavy imports (torch, ultralytics, onnxruntime) happen inside each command, never at import.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.read_cli import read_main

__all__ = ["detect_main", "eval_main", "read_main", "synth_main", "train_main", "watch_main"]


def synth_main(argv: list[str]) -> int:
    """Generate a deterministic synthetic YOLO dataset of table scenes."""
    ap = argparse.ArgumentParser(prog="gintray synth", description=synth_main.__doc__)
    ap.add_argument("--out", required=True, type=Path, help="output folder (images/, labels/)")
    ap.add_argument("--count", type=int, default=1000, help="number of scenes")
    ap.add_argument("--seed", type=int, default=0, help="dataset seed (same seed, same images)")
    ap.add_argument("--size", type=int, default=320, help="scene side in pixels")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes")
    args = ap.parse_args(argv)
    from vision.training.synth.writer import write_dataset

    n = write_dataset(args.out, args.count, args.seed, args.size, args.workers)
    print(f"wrote {args.count} scenes, {n} corner labels to {args.out}")
    return 0


def train_main(argv: list[str]) -> int:
    """Train the card detector (see models/MODEL_CARD.md for the committed model's command)."""
    from vision.training.train import main

    return main(argv)


def detect_main(argv: list[str]) -> int:
    """Detect cards in images; one JSON line per image with --json."""
    from vision.detect_cli import main

    return main(argv)


def eval_main(argv: list[str]) -> int:
    """Score the detector on a YOLO-labelled folder (mAP50, card P/R/F1, confusions)."""
    from vision.training.evaluate import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(synth_main(sys.argv[1:]))


def watch_main(argv: list[str]) -> int:
    """`gintray watch`: a camera through the live reader, a line each time the read changes."""
    from vision.watch_cli import watch_main as main

    return main(argv)


def doctor_main(argv: list[str]) -> int:
    """`gintray doctor`: the detector checked on this CPU, and how fast a table will feel."""
    from vision.inference import doctor
    from vision.table.speed import measure_table_speed

    return doctor.main(argv, measure_table_speed)
