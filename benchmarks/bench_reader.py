"""Frames per second of the table reader on this machine, stage by stage, side by side.

    .venv/bin/python benchmarks/bench_reader.py [--frames N] [--backend onnx]

Plays the demo footage (960x540) through every stage and prints, per frame, the CPU seconds
of this process (one thread unless GINTRAY_THREADS says more), median and mean: the marker
search that places the layout, the reader's own logic (merging corners, voting, grouping, the
hand's rules) on the labelled corners, the detector on whole frames, and the full live read
(``TableReader.feed``: the change gate, markers when the picture changed, the detector on the
regions that changed and settled, the logic) with its frames per second from the mean. The
demo's layout asks for native-scale tiles (640 px); "one detector pass" is the detector's own
scale policy. The live read's median is an unchanged frame; its mean is what a table costs.
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


def _cpu_ms(run: Callable[[int], object], n: int, repeats: int) -> tuple[float, float]:
    """(median, mean) CPU milliseconds of ``run(i)`` over every frame, ``repeats`` times."""
    times = []
    for _ in range(repeats):
        for i in range(n):
            start = time.process_time()
            run(i)
            times.append((time.process_time() - start) * 1000)
    return statistics.median(times), statistics.fmean(times)


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
    rows: list[tuple[str, tuple[float, float]]] = []

    rows.append(
        ("layout from markers", _cpu_ms(lambda i: layout.locate(images[i]), n, args.repeats))
    )
    placed = [layout.locate(im)[0] for im in images]
    labelled = TruthDetector(frames)
    truth_dets = [labelled.detect(None) for _ in range(n)]

    def logic(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
        if i == 0:
            reader[:] = [TableReader(None, layout)]
        reader[0].feed_detections(truth_dets[i], i, placed[i])

    rows.append(("reader logic (labelled corners)", _cpu_ms(logic, n, args.repeats)))
    try:
        from vision.inference.detector import load_detector

        detector = load_detector(args.backend)
    except Exception as exc:  # no model yet: report what can be measured
        print(f"detector unavailable ({exc}); full-read figures skipped")
        detector = None
    if detector is not None:
        rows.append((f"detector ({args.backend}), one pass",
                     _cpu_ms(lambda i: detector.detect(images[i]), n, args.repeats)))
        own = replace(layout, detector_scale=None)

        def full(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
            if i == 0:
                reader[:] = [TableReader(detector, own)]
            reader[0].feed(images[i])

        rows.append(("live read, one detector pass", _cpu_ms(full, n, args.repeats)))
        if args.tile:

            tiles = DetectorSettings.for_table(tile=args.tile)

            def tiled(i: int, reader: list[TableReader] = []) -> None:  # noqa: B006
                if i == 0:
                    reader[:] = [TableReader(configured(detector, tiles), own)]
                reader[0].feed(images[i])

            rows.append((f"live read, {args.tile}px native tiles (demo)",
                         _cpu_ms(tiled, n, args.repeats)))
    total = max(mean for _, (_, mean) in rows)
    h, w = images[0].shape[:2]
    print(f"{n} demo frames {w}x{h}, {args.repeats} passes, CPU ms a frame")
    print(f"{'stage':40} {'median':>8} {'mean':>8} {'frames/s':>9} {'share':>7}")
    for name, (median, mean) in rows:
        print(f"{name:40} {median:8.2f} {mean:8.2f} {1000 / mean:9.1f} {mean / total:7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
