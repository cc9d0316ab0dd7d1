"""Card detector latency: the three backends side by side on the same 1280x720 frames.

Run:  .venv/bin/python benchmarks/bench_detector.py                 (10 frames x 5 rounds)
      .venv/bin/python benchmarks/bench_detector.py --frames 20 --rounds 3 --backends onnx opencv

Frames are the shared dev photos (640x640, squeezed from 16:9 webcam frames) resized back to
1280x720, so each is a webcam-sized frame of a real spread. Every backend runs the whole
pipeline (`CardDetector.detect`: scale policy, corner finder, crops, namer) on the same frames
in the same process after one warm-up pass, interleaved frame by frame; the script prints the
median and 90th-percentile latency per frame, the ratio to the ultralytics backend, and the
corner finder's share. `--float-onnx` and `--float-namer` add a row "onnx-float" that runs
the float ONNX exports of the finder and/or the namer (the shipped ones are int8);
`--candidate-namer` adds "onnx-candidate", the onnx backend with another namer;
`--variant LABEL FINDER NAMER` (repeatable) adds a row for any pair of ONNX files (say, int8
candidates). The first line printed is the CPU (model and the instruction sets that pick the
inference kernels): compare timings only from one run on one CPU. Set GINTRAY_THREADS to pin
the thread count (default 1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2

from vision.inference.cpu import cpu_info
from vision.inference.detector import BACKENDS, DEFAULT_TURNS, DetectorUnavailable, load_detector

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "real-cards" / "dev" / "images"


def frames(n: int) -> list:
    """The first n dev photos as 1280x720 BGR frames."""
    paths = sorted(DEV.glob("*.jpg"))[:n]
    return [
        cv2.resize(cv2.imread(str(p)), (1280, 720), interpolation=cv2.INTER_CUBIC) for p in paths
    ]


def time_backends(detectors: dict, images: list, rounds: int) -> dict:
    """Latencies (ms) of detect() and of the corner finder alone, backends interleaved.

    Each round runs every backend on every frame in turn, so the machine's other load weighs on
    all of them alike.
    """
    for det in detectors.values():
        for img in images[:2]:  # warm-up
            det.detect(img)
    total: dict[str, list[float]] = {name: [] for name in detectors}
    finder: dict[str, list[float]] = {name: [] for name in detectors}
    for _ in range(rounds):
        for img in images:
            small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
            for name, det in detectors.items():
                t0 = time.perf_counter()
                det.detect(img)
                total[name].append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                det.finder.find(small)
                finder[name].append((time.perf_counter() - t0) * 1000)
    results = {}
    for name, det in detectors.items():
        times = sorted(total[name])
        results[name] = {
            "median": statistics.median(times),
            "p90": times[int(0.9 * (len(times) - 1))],
            "finder": statistics.median(finder[name]),
            "cards": sum(len(det.detect(img)) for img in images[:3]),
        }
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    ap.add_argument(
        "--turns", type=int, default=DEFAULT_TURNS, choices=[1, 2, 4], help="namer quarter turns"
    )
    ap.add_argument(
        "--float-onnx",
        type=Path,
        help="also time the onnx backend with this float export of the finder (row onnx-float; "
        "make one with ultralytics: YOLO('models/gintray-corners.pt').export(format='onnx', "
        "dynamic=True, opset=17))",
    )
    ap.add_argument(
        "--float-namer",
        type=Path,
        help="the namer's float ONNX for the onnx-float row (gintray train export --calibration '' "
        "writes one)",
    )
    ap.add_argument(
        "--candidate-namer",
        type=Path,
        help="also time the onnx backend with this namer instead of the shipped one (row "
        "onnx-candidate), to weigh a new namer's cost before shipping it",
    )
    ap.add_argument(
        "--variant",
        nargs=3,
        action="append",
        default=[],
        metavar=("LABEL", "FINDER", "NAMER"),
        help="also time the onnx backend with this finder and namer ONNX (row LABEL)",
    )
    args = ap.parse_args(argv)
    print(f"CPU: {cpu_info().describe()}")
    images = frames(args.frames)
    if not images:
        print(f"no frames found in {DEV}", file=sys.stderr)
        return 2
    print(f"{len(images)} frames 1280x720 x {args.rounds} rounds, namer turns {args.turns}")
    detectors = {}
    for name in args.backends:
        try:
            detectors[name] = load_detector(name, turns=args.turns)
        except DetectorUnavailable as exc:
            print(f"  {name:<12} unavailable: {exc}")
    if args.float_onnx or args.float_namer:
        detectors["onnx-float"] = load_detector(
            "onnx", args.float_onnx, args.float_namer, turns=args.turns
        )
    if args.candidate_namer:
        detectors["onnx-candidate"] = load_detector(
            "onnx", None, args.candidate_namer, turns=args.turns
        )
    for label, finder, namer in args.variant:
        detectors[label] = load_detector("onnx", finder, namer, turns=args.turns)
    results = time_backends(detectors, images, args.rounds)
    ref = (results.get("ultralytics") or {}).get("median")
    print(
        f"  {'backend':<22} {'median ms':>10} {'p90 ms':>8} {'finder ms':>10}"
        f" {'vs ultralytics':>15}"
    )
    for name, r in results.items():
        ratio = f"{ref / r['median']:.2f}x speed" if ref else "n/a"
        print(f"  {name:<22} {r['median']:10.1f} {r['p90']:8.1f} {r['finder']:10.1f} {ratio:>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
