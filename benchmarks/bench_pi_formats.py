"""Detector formats for the Raspberry Pi, side by side: ONNX (onnxruntime) against NCNN.

    .venv/bin/pip install -e '.[bench]'   # ncnn and pnnx
    .venv/bin/python benchmarks/bench_pi_formats.py [--weights models/gintray-corners.pt]
                                                    [--imgsz 640] [--runs 40] [--threads N]

Exports the ultralytics checkpoint to ONNX and to NCNN (the two formats ultralytics supports on
ARM that need no GPU; exports go to runs/pi_formats/, which git ignores), checks that both give
the same raw output on the same input, then times one forward pass of each on the same
1x3xSxS input, interleaved (ONNX, NCNN, ONNX, NCNN, ...) so that whatever else the machine is
doing weighs on both alike. Only the network is timed: letterbox, NMS and tiling are the same
whichever format runs. Prints a markdown table with the ratio, beside the published
Raspberry Pi 5 figures for YOLO11n at 640 (Ultralytics' Raspberry Pi guide).

    .venv/bin/python benchmarks/bench_pi_formats.py --shipped [--threads 1] [--runs 30]

times the run-time corner finders on the shipped files instead (no export, no pnnx needed):
`OnnxCornerFinder` on models/gintray-corners.onnx against `NcnnCornerFinder` on
models/gintray-corners.ncnn.param/.bin, one `find()` pass each in turn on the same two inputs
(demo frame 30 at the webcam work size, 640x360 -> 640x384, and a 640x640 tile of a dev photo),
after checking that both find the same boxes. It reports this process's CPU seconds a pass
(`time.process_time`, which other processes' load does not inflate) beside the wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# The detector's YOLO: the one-class corner finder (vision/inference/detector.py), or a 52-class
# card model.
DEFAULT_WEIGHTS = next((p for p in (REPO / "models" / "gintray-corners.pt",
                                    REPO / "models" / "gintray-cards.pt") if p.is_file()),
                       REPO / "models" / "gintray-corners.pt")
EXPORT_DIR = REPO / "runs" / "pi_formats"

# Published reference: Ultralytics docs, guides/raspberry-pi.md, "Raspberry Pi 5 YOLO11
# Benchmarks" (FP32, imgsz 640, ms per image), YOLO11n rows.
PUBLISHED_PI5_YOLO11N_MS = {"ONNX": 168.082, "NCNN": 88.026, "PyTorch": 405.238}


def export(weights: Path, imgsz: int) -> tuple[Path, Path]:
    """ONNX file and NCNN folder of ``weights`` (exported once per weights file and size)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    target = EXPORT_DIR / f"{weights.stem}-{imgsz}"
    onnx_path = target / f"{weights.stem}.onnx"
    ncnn_dir = target / f"{weights.stem}_ncnn_model"
    if onnx_path.is_file() and (ncnn_dir / "model.ncnn.param").is_file():
        return onnx_path, ncnn_dir
    target.mkdir(parents=True, exist_ok=True)
    local = target / weights.name
    shutil.copy2(weights, local)  # ultralytics writes exports beside the weights
    YOLO(str(local)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=False)
    YOLO(str(local)).export(format="ncnn", imgsz=imgsz)
    if not onnx_path.is_file() or not (ncnn_dir / "model.ncnn.param").is_file():
        raise RuntimeError(f"export did not produce {onnx_path} and {ncnn_dir}")
    return onnx_path, ncnn_dir


class OnnxNet:
    """The network through onnxruntime (the run-time detector's default backend)."""

    name = "ONNX"

    def __init__(self, path: Path, threads: int) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input: x})[0]


class NcnnNet:
    """The network through ncnn's Python binding, as ultralytics' AutoBackend drives it."""

    name = "NCNN"

    def __init__(self, folder: Path, threads: int) -> None:
        import ncnn

        self.ncnn = ncnn
        self.net = ncnn.Net()
        self.net.opt.num_threads = threads
        self.net.opt.use_vulkan_compute = False
        if self.net.load_param(str(folder / "model.ncnn.param")) != 0:
            raise RuntimeError(f"cannot load {folder / 'model.ncnn.param'}")
        if self.net.load_model(str(folder / "model.ncnn.bin")) != 0:
            raise RuntimeError(f"cannot load {folder / 'model.ncnn.bin'}")
        self.input = self.net.input_names()[0]
        self.output = sorted(self.net.output_names())[0]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        with self.net.create_extractor() as ex:
            ex.input(self.input, self.ncnn.Mat(np.ascontiguousarray(x[0])))
            return np.array(ex.extract(self.output)[1])[None]


def sample_input(imgsz: int) -> np.ndarray:
    """A real table picture from the dev set when present, else a fixed random image."""
    import cv2

    dev = Path("/work/shared/data/real-cards/dev/images")
    if not dev.is_dir():
        dev = REPO.parent / "shared" / "data" / "real-cards" / "dev" / "images"
    pictures = sorted(dev.glob("*.jpg")) if dev.is_dir() else []
    image = cv2.imread(str(pictures[0])) if pictures else None
    if image is None:
        image = np.random.default_rng(0).integers(0, 255, (imgsz, imgsz, 3), dtype=np.uint8)
    image = cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
    rgb = image[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0
    return np.ascontiguousarray(rgb[None])


def time_side_by_side(nets: list, x: np.ndarray, runs: int, warmup: int) -> dict[str, list[float]]:
    """Milliseconds per forward pass of each net, run in turn on the same input."""
    for _ in range(warmup):
        for net in nets:
            net(x)
    times: dict[str, list[float]] = {net.name: [] for net in nets}
    for i in range(runs):
        order = nets if i % 2 == 0 else list(reversed(nets))  # no net always goes first
        for net in order:
            start = time.perf_counter()
            net(x)
            times[net.name].append((time.perf_counter() - start) * 1000)
    return times


def shipped_inputs() -> dict[str, np.ndarray]:
    """The finder's two kinds of input: a webcam frame at work size and a 640x640 tile."""
    import cv2

    frame = cv2.imread(str(REPO / "vision" / "demo" / "hand" / "frame_030.jpg"))
    inputs = {"frame 640x360": cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)}
    dev = sorted((REPO.parent / "shared" / "data" / "real-cards" / "dev" / "images").glob("*.jpg"))
    tile = cv2.imread(str(dev[1])) if len(dev) > 1 else None
    if tile is None:
        tile = cv2.resize(frame, (1138, 640), interpolation=cv2.INTER_LINEAR)
    inputs["tile 640x640"] = np.ascontiguousarray(tile[:640, :640])
    return inputs


def time_finders(finders: dict, image: np.ndarray, runs: int, warmup: int) -> dict:
    """{name: (CPU seconds, wall seconds) a find() pass}, finders run in turn on `image`."""
    for _ in range(warmup):
        for finder in finders.values():
            finder.find(image)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in finders}
    names = list(finders)
    for i in range(runs):
        for name in names if i % 2 == 0 else reversed(names):  # no finder always goes first
            cpu, wall = time.process_time(), time.perf_counter()
            finders[name].find(image)
            times[name].append((time.process_time() - cpu, time.perf_counter() - wall))
    return times


def shipped(args: argparse.Namespace) -> int:
    """Time the shipped ONNX and NCNN corner finders side by side and print the table."""
    os.environ["GINTRAY_THREADS"] = str(args.threads)
    sys.path.insert(0, str(REPO))
    from vision.inference.cpu import cpu_info
    from vision.inference.detector import DEFAULT_CORNERS_ONNX, OnnxCornerFinder
    from vision.inference.ncnn_finder import DEFAULT_CORNERS_NCNN, NcnnCornerFinder

    finders = {"ONNX": OnnxCornerFinder(DEFAULT_CORNERS_ONNX),
               "NCNN": NcnnCornerFinder(DEFAULT_CORNERS_NCNN)}
    print(f"CPU: {cpu_info().describe()}")
    print(f"{args.threads} thread(s), {args.runs} interleaved passes per input, load average "
          f"{os.getloadavg()[0]:.2f} at start")
    print()
    print("| input | finder | CPU s a pass (median) | p90 | wall s a pass (median) | "
          "NCNN / ONNX (CPU) | boxes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, image in shipped_inputs().items():
        found = {name: f.find(image) for name, f in finders.items()}
        boxes = {name: len(b) for name, (b, _) in found.items()}
        if boxes["ONNX"] != boxes["NCNN"]:
            print(f"bench_pi_formats: {label}: {boxes} boxes differ", file=sys.stderr)
            return 1
        gap = float(np.max(np.abs(found["ONNX"][0] - found["NCNN"][0]), initial=0.0))
        times = time_finders(finders, image, args.runs, args.warmup)
        cpu = {name: statistics.median(c for c, _ in t) for name, t in times.items()}
        for name, t in times.items():
            p90 = statistics.quantiles([c for c, _ in t], n=10)[-1]
            wall = statistics.median(w for _, w in t)
            print(f"| {label} | {name} | {cpu[name]:.4f} | {p90:.4f} | {wall:.4f} | "
                  f"{cpu[name] / cpu['ONNX']:.2f} | {boxes[name]} (within {gap:.2g} px) |")
    print()
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Export, check agreement, time, and print the table (or `--shipped`: see the docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--shipped", action="store_true",
                        help="time the run-time finders on the shipped ONNX and NCNN files")
    args = parser.parse_args(argv)
    if args.shipped:
        return shipped(args)
    if not args.weights.is_file():
        print(f"bench_pi_formats: no weights at {args.weights}", file=sys.stderr)
        return 2
    onnx_path, ncnn_dir = export(args.weights, args.imgsz)
    nets = [OnnxNet(onnx_path, args.threads), NcnnNet(ncnn_dir, args.threads)]
    x = sample_input(args.imgsz)
    outputs = [net(x) for net in nets]
    if outputs[0].shape != outputs[1].shape:
        print(f"bench_pi_formats: output shapes differ {[o.shape for o in outputs]}",
              file=sys.stderr)
        return 1
    diff = float(np.max(np.abs(outputs[0] - outputs[1])))
    scale = float(np.max(np.abs(outputs[0])))
    load_before = os.getloadavg()[0]
    times = time_side_by_side(nets, x, args.runs, args.warmup)
    load_after = os.getloadavg()[0]
    median = {name: statistics.median(t) for name, t in times.items()}
    p90 = {name: statistics.quantiles(t, n=10)[-1] for name, t in times.items()}
    print(f"weights {args.weights.name}, input 1x3x{args.imgsz}x{args.imgsz}, {args.threads} "
          f"threads, {args.runs} interleaved runs, load average {load_before:.2f} -> "
          f"{load_after:.2f}; outputs agree to {diff:.2g} (largest output {scale:.3g})")
    print()
    print("| format | median ms | p90 ms | relative to ONNX | sizes on disk | "
          "published Pi 5, YOLO11n 640 (ms) |")
    print("| --- | --- | --- | --- | --- | --- |")
    sizes = {"ONNX": onnx_path.stat().st_size,
             "NCNN": sum(f.stat().st_size for f in ncnn_dir.glob("model.ncnn.*"))}
    for name in ("ONNX", "NCNN"):
        print(f"| {name} | {median[name]:.1f} | {p90[name]:.1f} | "
              f"{median[name] / median['ONNX']:.2f} | {sizes[name] / 1e6:.1f} MB | "
              f"{PUBLISHED_PI5_YOLO11N_MS[name]:g} |")
    published = PUBLISHED_PI5_YOLO11N_MS["NCNN"] / PUBLISHED_PI5_YOLO11N_MS["ONNX"]
    print()
    print(f"NCNN/ONNX here: {median['NCNN'] / median['ONNX']:.2f}; on a Pi 5 (published): "
          f"{published:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
