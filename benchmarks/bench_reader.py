"""Frames per second of the table reader on this machine, stage by stage, side by side.

    .venv/bin/python benchmarks/bench_reader.py [--frames N] [--backend onnx]

Plays the demo footage (960x540) through every stage and prints, per frame (median): the
marker search that places the layout, the reader's own logic (merging corners, voting,
grouping, the hand's rules) on the labelled corners, the detector, and the full read
(``TableReader.feed``: markers + detector + logic) with its frames per second. The last column
is each stage's share of the slowest full read. The demo's layout asks for native-scale tiles
(two 640 px tiles per 960x540 frame); "one detector pass" is the detector's own policy (the
frame shrunk to 640 px).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.demo.verify import DEMO_DIR, TruthDetector  # noqa: E402
from vision.inference.tiling import DetectorSettings, configured  # noqa: E402
from vision.table.layout import load_layout  # noqa: E402
from vision.table.reader import TableReader  # noqa: E402


def _median_ms(run: Callable[[int], object], n: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        for i in range(n):
            start = time.perf_counter()
            run(i)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=74, help="demo frames to play")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--backend", default="onnx")
    parser.add_argument("--tile", type=int, default=640,
                        help="also time the full read with native-scale tiles of this size "
                             "(0: skip)")
    args = parser.parse_args(argv)
    truth = json.loads((DEMO_DIR / "ground_truth.json").read_text())
    frames = truth["frames"][: args.frames]
    images = [cv2.imread(str(DEMO_DIR / "hand" / f["frame"])) for f in frames]
    layout = load_layout(DEMO_DIR / "layout.json")
    n = len(images)
    rows: list[tuple[str, float]] = []

    rows.append(
        ("layout from markers", _median_ms(lambda i: layout.locate(images[i]), n, args.repeats))
    )
    placed = [layout.locate(im)[0] for im in images]
    labelled = TruthDetector(frames)
    truth_dets = [labelled.detect(None) for _ in range(n)]

    def logic(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
        if i == 0:
            reader[:] = [TableReader(None, layout)]
        reader[0].feed_detections(truth_dets[i], i, placed[i])

    rows.append(("reader logic (labelled corners)", _median_ms(logic, n, args.repeats)))
    try:
        from vision.inference.detector import load_detector

        detector = load_detector(args.backend)
    except Exception as exc:  # no model yet: report what can be measured
        print(f"detector unavailable ({exc}); full-read figures skipped")
        detector = None
    if detector is not None:
        rows.append((f"detector ({args.backend}), one pass",
                     _median_ms(lambda i: detector.detect(images[i]), n, args.repeats)))
        own = replace(layout, detector_scale=None)

        def full(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
            if i == 0:
                reader[:] = [TableReader(detector, own)]
            reader[0].feed(images[i])

        rows.append(("full read, one detector pass", _median_ms(full, n, args.repeats)))
        if args.tile:

            tiles = DetectorSettings.for_table(tile=args.tile)

            def tiled(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
                if i == 0:
                    reader[:] = [TableReader(configured(detector, tiles), own)]
                reader[0].feed(images[i])

            rows.append((f"full read, {args.tile}px native tiles (demo)",
                         _median_ms(tiled, n, args.repeats)))
    total = max(ms for _, ms in rows)
    h, w = images[0].shape[:2]
    print(f"{n} demo frames {w}x{h}, {args.repeats} passes, median per frame")
    print(f"{'stage':34} {'ms/frame':>9} {'frames/s':>9} {'share':>7}")
    for name, ms in rows:
        print(f"{name:34} {ms:9.2f} {1000 / ms:9.1f} {ms / total:7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
