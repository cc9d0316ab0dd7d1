"""How long players wait: the live reader on footage, frame by frame.

    .venv/bin/python benchmarks/bench_latency.py [--footage DIR] [--noisy] [--sizes]
    .venv/bin/python benchmarks/bench_latency.py --calibrate   # the change gate's figures

For each hand of the demo footage (or a copy of it, `--footage DIR`; `--noisy` writes and
reads the seeded noisy copy, `vision.demo.noisy`) it reports the frames and CPU seconds
from the up card settling in the tray to the knock card event, and from the last spread
settling to the proposal (the hand's last `TableRead`); "settling" is the first frame of the
unbroken run of frames whose labelled cards are those of the event's frame. Then the CPU
seconds a frame for frames the reader read (a region changed) and frames it did not, the
finder passes (and their size in 640x640 passes) and namer crops a frame, and a Raspberry Pi 5
estimate from those counts with the published per-pass figure (hardware/pi/detector_formats.md:
YOLO11n 640, ONNX 168 ms, NCNN 88 ms), labelled as an estimate. `--sizes` reads one frame
scaled to 1280x720 and to 4056x3040 (the same card areas), changed and unchanged.

CPU seconds are this process's (`time.process_time`), with GINTRAY_THREADS threads (default 1).
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.demo.noisy import write_noisy_footage  # noqa: E402
from vision.demo.verify import DEMO_DIR  # noqa: E402
from vision.inference.cpu import cpu_info  # noqa: E402
from vision.inference.detector import load_detector  # noqa: E402
from vision.inference.tiling import configured  # noqa: E402
from vision.table.events import HandDealt, TableRead  # noqa: E402
from vision.table.gate import CHANGE_LEVEL, MIN_CHANGED, Signature, changed_pixels  # noqa: E402
from vision.table.layout import load_layout  # noqa: E402
from vision.table.reader import TableReader  # noqa: E402

PI5_PASS_MS = {"onnx": 168.0, "ncnn": 88.0}  # published YOLO11n 640 pass on a Pi 5
PASS_PIXELS = 640 * 640


@dataclass
class Counts:
    """Finder passes (and their pixels) and namer crops, counted through the detector's own
    finder and namer (wrapped, as supervision's tools take the model as a callback)."""

    passes: int = 0
    pass_pixels: int = 0
    crops: int = 0
    finder_cpu: float = 0.0
    namer_cpu: float = 0.0


def counted(detector, counts: Counts):
    """The same detector, its finder and namer counting into ``counts``."""
    find, name = detector.finder.find, detector.namer.probabilities

    def counting_find(image):
        start = time.process_time()
        try:
            return find(image)
        finally:
            counts.finder_cpu += time.process_time() - start
            counts.passes += 1
            h, w = image.shape[:2]
            scale = min(1.0, 640 / max(h, w))
            counts.pass_pixels += int(np.ceil(h * scale / 32) * 32 * np.ceil(w * scale / 32) * 32)

    def counting_name(patches, turns=4):
        start = time.process_time()
        try:
            return name(patches, turns)
        finally:
            counts.namer_cpu += time.process_time() - start
            counts.crops += len(patches) * turns

    detector.finder.find, detector.namer.probabilities = counting_find, counting_name
    return detector


@dataclass
class FrameCost:
    index: int
    cpu: float
    read: bool
    passes: int
    pass_pixels: int
    crops: int


@dataclass
class Replay:
    frames: list[FrameCost] = field(default_factory=list)
    hands: list[dict] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)


def _labelled(frame: dict) -> frozenset[str]:
    return frozenset(d["card"] for d in frame["detections"])


def _settled_at(frames: list[dict], event_at: int, same) -> int:
    """The first frame of the unbroken run ending at ``event_at`` whose labels ``same`` as the
    event frame's."""
    start = event_at
    while start > 0 and same(frames[start - 1], frames[event_at]):
        start -= 1
    return start


def replay(footage: Path) -> Replay:
    """Feed the footage to a live TableReader with the shipped detector; costs and events."""
    truth = json.loads((DEMO_DIR / "ground_truth.json").read_text())
    layout = load_layout(DEMO_DIR / "layout.json")
    out = Replay()
    detector = counted(load_detector(), out.counts)
    reader = TableReader(configured(detector, layout.detector_settings()), layout)
    dealt_at: dict[int, int] = {}
    proposed_at: dict[int, int] = {}
    for i, frame in enumerate(truth["frames"]):
        image = cv2.imread(str(footage / frame["frame"]))
        before = (out.counts.passes, out.counts.pass_pixels, out.counts.crops)
        start = time.process_time()
        read = reader.feed(image)
        cpu = time.process_time() - start
        out.frames.append(FrameCost(i, cpu, bool(reader.last_read),
                                    out.counts.passes - before[0],
                                    out.counts.pass_pixels - before[1],
                                    out.counts.crops - before[2]))
        for event in read.events:
            if isinstance(event, HandDealt):
                dealt_at.setdefault(frame["hand"], i)
            elif isinstance(event, TableRead):
                proposed_at[frame["hand"]] = i
    frames = truth["frames"]
    slot = {h["hand"]: h["up_card"] for h in truth["hands"]}
    for hand in sorted(slot):
        row: dict = {"hand": hand}
        if hand in dealt_at:
            at = dealt_at[hand]
            up = slot[hand]
            settle = _settled_at(frames, at, lambda a, b, up=up: up in _labelled(a)
                                 and _labelled(a) == _labelled(b))
            row["knock_card"] = (at - settle, sum(f.cpu for f in out.frames[settle:at + 1]))
        if hand in proposed_at:
            at = proposed_at[hand]
            settle = _settled_at(frames, at, lambda a, b: _labelled(a) == _labelled(b))
            row["proposal"] = (at - settle, sum(f.cpu for f in out.frames[settle:at + 1]))
        out.hands.append(row)
    return out


def report(name: str, result: Replay) -> None:
    print(f"\n== {name}: {len(result.frames)} frames")
    for row in result.hands:
        knock = row.get("knock_card")
        proposal = row.get("proposal")
        said = [f"hand {row['hand']}"]
        said.append(f"knock card {knock[0]} frames / {knock[1]:.2f} s CPU after the up card settled"
                    if knock else "knock card NOT SEEN")
        said.append(f"proposal {proposal[0]} frames / {proposal[1]:.2f} s CPU after the last "
                    "spread settled" if proposal else "proposal NOT SEEN")
        print("  " + "; ".join(said))
    read = [f for f in result.frames if f.read]
    idle = [f for f in result.frames if not f.read]
    total = sum(f.cpu for f in result.frames)
    print(f"  CPU a frame: {total / len(result.frames):.3f} s on average "
          f"({len(read)} frames read a region: median {_median(read, 'cpu'):.3f} s; "
          f"{len(idle)} unchanged: median {_median(idle, 'cpu') * 1000:.1f} ms)")
    passes = sum(f.passes for f in result.frames)
    pixels = sum(f.pass_pixels for f in result.frames) / PASS_PIXELS
    crops = sum(f.crops for f in result.frames)
    n = len(result.frames)
    print(f"  a frame: {passes / n:.2f} finder passes ({pixels / n:.2f} in 640x640 passes), "
          f"{crops / n:.1f} namer crops (quarter turns counted)")
    c = result.counts
    namer_per_pass = (c.namer_cpu / max(crops, 1)) / (c.finder_cpu / max(pixels, 1e-9))
    for backend, ms in PI5_PASS_MS.items():
        estimate = (pixels + crops * namer_per_pass) / n * ms / 1000
        print(f"  Pi 5 ESTIMATE ({backend} finder at the published {ms:.0f} ms a 640 pass, "
              f"crops at this CPU's crop/pass ratio): {estimate:.3f} s of CPU a frame")


def _median(frames: list[FrameCost], attr: str) -> float:
    return statistics.median(getattr(f, attr) for f in frames) if frames else 0.0


def sizes() -> None:
    """One frame at 1280x720 and at 4056x3040 (same card areas): changed and unchanged.

    Both are read with the detector's own scale policy inside each region (the demo layout's
    native-scale tiles are a setting for its 960x540 camera, not for these)."""
    layout = replace(load_layout(DEMO_DIR / "layout.json"), detector_scale=None)
    base = cv2.imread(str(DEMO_DIR / "hand" / "frame_030.jpg"))
    detector = load_detector()
    print("\n== frame size: the demo's check frame scaled (same card areas), CPU s")
    for w, h in ((1280, 720), (4056, 3040)):
        image = cv2.resize(base, (w, h), interpolation=cv2.INTER_CUBIC)
        changed, unchanged = [], []
        for _ in range(3):
            reader = TableReader(configured(detector, layout.detector_settings()), layout)
            start = time.process_time()
            reader.feed(image)
            changed.append(time.process_time() - start)
            start = time.process_time()
            reader.feed(image)
            unchanged.append(time.process_time() - start)
        print(f"  {w}x{h}: every region read {statistics.median(changed):.3f} s; "
              f"unchanged {statistics.median(unchanged) * 1000:.1f} ms")


def calibrate() -> None:
    """The gate's noise and change figures from the real dev webcam photos."""
    kernel = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float64)
    paths = sorted(glob.glob(str(REPO.parent / "shared/data/real-cards/dev/images/*.jpg")))
    if not paths:
        print("no dev photos found beside the project (../shared/data/real-cards/dev)")
        return
    sigmas, noise_counts, change_counts = [], [], []
    rng = np.random.default_rng(0)
    images = [cv2.imread(p) for p in paths]
    for image in images:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float64)
        h, w = grey.shape
        residual = np.abs(cv2.filter2D(grey, -1, kernel)[1:-1, 1:-1]).sum()
        sigma = float(np.sqrt(np.pi / 2) * residual / (6 * (w - 2) * (h - 2)))  # Immerkaer
        sigmas.append(sigma)
    worst = float(np.percentile(sigmas, 90))
    for image in images:  # two re-captures of one still scene: fresh noise, JPEG, drift
        takes = []
        for gain in (1.0, 1.03):
            noisy = image.astype(np.float32) * gain + rng.normal(0, worst, image.shape)
            _, data = cv2.imencode(".jpg", np.clip(noisy, 0, 255).astype(np.uint8),
                                   [cv2.IMWRITE_JPEG_QUALITY, 70])
            takes.append(Signature.of(cv2.imdecode(data, cv2.IMREAD_COLOR)).pixels)
        noise_counts.append(changed_pixels(takes[0], takes[1]))
    for a, b in itertools.pairwise(images):  # photos of a scene seconds apart
        change_counts.append(changed_pixels(Signature.of(a).pixels, Signature.of(b).pixels))
    print(f"dev photos: {len(images)}; sensor noise sigma (Immerkaer) min/median/p90/max: "
          + " / ".join(f"{v:.2f}" for v in np.percentile(sigmas, [0, 50, 90, 100])))
    print(f"gate: a signature pixel changed beyond {CHANGE_LEVEL:.0f} grey levels, "
          f"a region changed at {MIN_CHANGED} such pixels")
    print(f"still scene re-captured (noise sigma {worst:.2f}, JPEG 70, +3 % light): changed "
          f"pixels max {max(noise_counts)}, median {statistics.median(noise_counts)}; "
          f"regions called changed: {sum(c >= MIN_CHANGED for c in noise_counts)} of "
          f"{len(noise_counts)}")
    print(f"consecutive dev photos (cards moved between them): changed pixels min "
          f"{min(change_counts)}, median {statistics.median(change_counts)}; called changed: "
          f"{sum(c >= MIN_CHANGED for c in change_counts)} of {len(change_counts)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--footage", type=Path, help="a copy of the demo frames (same names)")
    parser.add_argument("--noisy", action="store_true", help="also the seeded noisy copy")
    parser.add_argument("--sizes", action="store_true", help="1280x720 against 4056x3040")
    parser.add_argument("--calibrate", action="store_true", help="the gate's noise figures")
    args = parser.parse_args(argv)
    print(f"CPU: {cpu_info().describe()}")
    if args.calibrate:
        calibrate()
        return 0
    report("demo footage", replay(args.footage or DEMO_DIR / "hand"))
    if args.noisy:
        with tempfile.TemporaryDirectory() as tmp:
            write_noisy_footage(Path(tmp), seed=1)
            report("noisy copy (vision.demo.noisy, seed 1)", replay(Path(tmp)))
    if args.sizes:
        sizes()
    return 0


if __name__ == "__main__":
    sys.exit(main())
