"""`gintray doctor`: does the card detector read right on this machine?

It prints the CPU and the instruction sets that pick the inference kernels, the backend and the
model files in use, reads a bundled frame whose cards are known (demo frame 30: a knock with
layoffs, 20 cards), says pass or fail with the cards it got, and times one frame. Pass means
the same cards and boxes as the shipped models' reference reading (`doctor_reference.json`,
recorded with the float models, which read the same on every CPU we test). The table
app runs the same check (`check_detector`) when its camera starts and shows the result on the
table screen; `hardware/pi/setup.sh` runs the command at the end of an install.

Exit status: 0 pass, 1 the frame was misread, 2 the detector cannot be loaded at all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.inference.cpu import CpuInfo, cpu_info
from vision.inference.detection import iou

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO_ROOT / "vision" / "demo"
CHECK_FRAME = "frame_030.jpg"  # hand 1 laid down with layoffs: 20 cards, 29 corner indices
REFERENCE = DEMO_DIR / "doctor_reference.json"  # the shipped models' reading of CHECK_FRAME
MIN_IOU = 0.9  # a box read on another CPU must overlap the reference's this much
TIMED_RUNS = 3


@dataclass(frozen=True)
class ModelFile:
    """A model file the detector loaded."""

    path: Path
    size_bytes: int
    sha256: str  # first 16 hex digits


@dataclass(frozen=True)
class DoctorReport:
    """The result of reading the check frame on this machine.

    It passes when the detector reads on this CPU what the shipped models read on the machine
    that recorded the reference (`REFERENCE`): the same cards, every box within IoU `MIN_IOU`.
    `truth` says how many of the frame's true cards that is (a card covered in this one frame
    is missed on every CPU; the table reader votes over many frames).
    """

    cpu: CpuInfo
    backend: str
    model_files: tuple[ModelFile, ...]
    frame: str
    truth: tuple[str, ...]  # the frame's true cards, sorted
    read: tuple[str, ...]  # the cards read on this CPU, sorted
    differences: tuple[str, ...]  # from the reference reading; empty = pass
    frame_ms: float  # median of TIMED_RUNS reads of the frame
    advice: tuple[str, ...] = field(default=())
    # how fast a table will feel (`vision.table.speed.TableSpeed`, when measured): a
    # ``sentence()`` for the players and ``to_json()``
    speed: Any = None

    @property
    def passed(self) -> bool:
        return not self.differences

    @property
    def true_cards_read(self) -> int:
        return len(set(self.truth) & set(self.read))

    def summary(self) -> str:
        """One line for the table screen."""
        if self.passed:
            said = "Card reader self-check passed on this computer: it reads as it should."
            return said if self.speed is None else f"{said} {self.speed.sentence()}"
        return (
            f"Card reader self-check FAILED on this CPU ({self.backend}): "
            f"{'; '.join(self.differences[:4])}. " + " ".join(self.advice)
        )

    def to_json(self) -> dict:
        return {
            "passed": self.passed,
            "cpu": {
                "machine": self.cpu.machine,
                "model": self.cpu.model,
                "instruction_sets": list(self.cpu.instruction_sets),
            },
            "backend": self.backend,
            "model_files": [
                {"path": str(m.path), "bytes": m.size_bytes, "sha256": m.sha256}
                for m in self.model_files
            ],
            "frame": self.frame,
            "truth": list(self.truth),
            "read": list(self.read),
            "true_cards_read": self.true_cards_read,
            "differences": list(self.differences),
            "frame_ms": round(self.frame_ms, 1),
            "advice": list(self.advice),
            "table_speed": None if self.speed is None else self.speed.to_json(),
        }


@dataclass(frozen=True)
class Reading:
    """One detection as compared across machines: card and box."""

    card: str
    box: tuple[float, float, float, float]


def compare_readings(
    got: list[Reading], reference: list[Reading], min_iou: float = MIN_IOU
) -> list[str]:
    """How `got` differs from `reference`: each reference corner must be read as the same card
    with a box within IoU `min_iou`, and nothing else may be read. Empty list: the same."""
    unused = list(got)
    differences = []
    for ref in reference:
        same = [g for g in unused if g.card == ref.card]
        best = max(same, key=lambda g: iou(g.box, ref.box), default=None)
        if best is None or iou(best.box, ref.box) < min_iou:
            at = ", ".join(f"{v:.0f}" for v in ref.box)
            differences.append(f"{ref.card} at ({at}) not read")
            continue
        unused.remove(best)
    for extra in unused:
        at = ", ".join(f"{v:.0f}" for v in extra.box)
        differences.append(f"{extra.card} at ({at}) read, not in the reference")
    return differences


def readings(detections) -> list[Reading]:
    """Readings of Detection objects (card and box)."""
    return [Reading(d.card, tuple(float(v) for v in d.box)) for d in detections]


def check_frame() -> tuple[Path, tuple[str, ...]]:
    """The bundled check frame and its true cards (from the demo's ground truth)."""
    truth = json.loads((DEMO_DIR / "ground_truth.json").read_text())
    entry = next(f for f in truth["frames"] if f["frame"] == CHECK_FRAME)
    return DEMO_DIR / "hand" / CHECK_FRAME, tuple(sorted({d["card"] for d in entry["detections"]}))


def _model_file(path: Path) -> ModelFile:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return ModelFile(path, path.stat().st_size, digest)


def load_reference(model_files: tuple[ModelFile, ...], backend: str) -> list[Reading]:
    """The recorded reading of the check frame by `backend` with exactly these model files.

    :raises ValueError: none was recorded for that backend, or for other model files.
    """
    recorded_backends = json.loads(REFERENCE.read_text())["backends"]
    if backend not in recorded_backends:
        raise ValueError(f"no reference reading was recorded for the {backend} backend")
    data = recorded_backends[backend]
    recorded = data["models"]
    ours = {m.path.name: m.sha256 for m in model_files}
    if ours != recorded:
        raise ValueError(
            "the check frame's reference reading was recorded for other model files "
            f"({', '.join(f'{k} {v}' for k, v in recorded.items())}); record it again with "
            "`gintray doctor --record-reference` on a machine whose reading you trust"
        )
    return [Reading(d["card"], tuple(d["box"])) for d in data["detections"]]


def record_reference(detector, backend: str) -> Path:
    """Read the check frame with `detector` and store it as `backend`'s reference reading for
    its model files (the other backends' references are kept)."""
    import cv2

    path, _ = check_frame()
    found = readings(detector.detect(cv2.imread(str(path))))
    data = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {"backends": {}}
    data["frame"] = f"vision/demo/hand/{CHECK_FRAME}"
    data["backends"][backend] = {
        "made_on": cpu_info().describe(),
        "models": {m.path.name: m.sha256 for m in map(_model_file, detector.model_paths)},
        "detections": [{"card": r.card, "box": [round(v, 2) for v in r.box]} for r in found],
    }
    REFERENCE.write_text(json.dumps(data, indent=1) + "\n")
    return REFERENCE


def advice_for(backend: str) -> tuple[str, ...]:
    """What a user can do when the check fails with `backend`."""
    other = "opencv" if backend == "onnx" else "onnx"  # onnx is the default; opencv its twin
    return (
        "Cards read on this machine cannot be trusted yet.",
        f"Try another backend: `gintray doctor --backend {other}`; if it passes, start the "
        f"app with GINTRAY_BACKEND={other} (on a Pi: `sudo hardware/pi/setup.sh --backend "
        f"{other}`).",
        "If the model files were changed, restore them (`git checkout models/`); otherwise "
        "report the CPU line above with the issue.",
    )


SpeedMeter = Callable[[Any], Any]  # detector -> a TableSpeed (vision.table.speed)


def check_detector(detector, backend: str, measure_speed: SpeedMeter | None = None
                   ) -> DoctorReport:
    """Read the check frame with `detector`, compare it with the reference and time it;
    ``measure_speed`` (`vision.table.speed.measure_table_speed`) says how fast a table feels."""
    import cv2

    path, truth = check_frame()
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"the check frame {path} is missing or unreadable")
    model_files = tuple(_model_file(p) for p in detector.model_paths if p.exists())
    times, runs = [], []
    for _ in range(TIMED_RUNS):  # every run is timed; the first one's reading is compared
        start = time.perf_counter()
        runs.append(detector.detect(image))
        times.append((time.perf_counter() - start) * 1000)
    got = readings(runs[0])
    try:
        differences = compare_readings(got, load_reference(model_files, backend))
    except (OSError, ValueError, KeyError) as exc:
        differences = [f"no reference to compare with: {exc}"]
    return DoctorReport(
        cpu=cpu_info(),
        backend=backend,
        model_files=model_files,
        frame=f"vision/demo/hand/{CHECK_FRAME}",
        truth=truth,
        read=tuple(sorted({r.card for r in got})),
        differences=tuple(differences),
        frame_ms=statistics.median(times),
        advice=() if not differences else advice_for(backend),
        # a detector that misreads is not timed: it must be mended first
        speed=measure_speed(detector) if measure_speed and not differences else None,
    )


def _print_report(report: DoctorReport) -> None:
    print(f"CPU: {report.cpu.describe()}")
    print(f"backend: {report.backend}")
    for m in report.model_files:
        print(f"model: {m.path} ({m.size_bytes / 1e6:.1f} MB, sha256 {m.sha256})")
    print(f"check frame: {report.frame}")
    print(f"read: {' '.join(report.read) or 'nothing'} "
          f"({report.true_cards_read} of its {len(report.truth)} true cards)")
    print(f"one check frame read whole: {report.frame_ms:.0f} ms (median of {TIMED_RUNS})")
    if report.speed is not None:
        print(f"live table: {report.speed.sentence()}")
    if report.passed:
        print("PASS: the same cards and boxes as the reference reading of the shipped models")
    else:
        print("FAIL: " + "; ".join(report.differences))
        for line in report.advice:
            print(f"  {line}")


def main(argv: list[str], measure_speed: SpeedMeter | None = None) -> int:
    """`gintray doctor [--backend B] [--json]` (``measure_speed``: see `check_detector`)."""
    from vision.inference.detector import (
        BACKENDS,
        DetectorUnavailable,
        default_backend,
        load_detector,
    )

    ap = argparse.ArgumentParser(prog="gintray doctor", description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=BACKENDS, default=None,
                    help="detector backend (default: GINTRAY_BACKEND, else onnx)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--record-reference", action="store_true",
                    help="store this machine's reading as the reference (after changing models)")
    args = ap.parse_args(argv)
    backend = args.backend or default_backend()
    try:
        detector = load_detector(backend)
    except (DetectorUnavailable, ImportError, OSError, ValueError) as exc:
        message = f"the detector cannot be loaded ({backend}): {exc}"
        if args.json:
            print(json.dumps({"passed": False, "error": message}))
        else:
            print(f"CPU: {cpu_info().describe()}\nFAIL: {message}", file=sys.stderr)
        return 2
    if args.record_reference:
        print(f"recorded {record_reference(detector, backend)}")
        return 0
    report = check_detector(detector, backend, measure_speed)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        _print_report(report)
    return 0 if report.passed else 1
