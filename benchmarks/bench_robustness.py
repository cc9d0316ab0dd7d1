"""Card detector robustness sweep: dev card F1 under light, blur, JPEG, noise, rotation, tilt
and scale, side by side with the untouched photos.

Run:  .venv/bin/python benchmarks/bench_robustness.py                     (whole sweep, all dev)
      .venv/bin/python benchmarks/bench_robustness.py --limit 5 --conditions gamma jpeg
      .venv/bin/python benchmarks/bench_robustness.py --max-points 3        (fewer points a family)

Every dev photo (`../shared/data/real-cards/dev`, 640x640) is perturbed by each sweep point of
`vision.training.perturb` (deterministic: anything random is seeded by the photo's name and the
point), its labelled boxes moved with it where the geometry changes, and read by the whole detector
(`CardDetector.detect`, as `gintray eval-detector` runs it). Scores are the project's own:
`vision.training.evaluate.card_scores` (card-level precision / recall / F1 over distinct cards per
photo, threshold 0.25) and `vision.training.evaluate.map50(..., agnostic=True)` (corners found, at
IoU 0.5 with the moved boxes). Writes `robustness.md` (table), `robustness.png` (one panel a
family) and `robustness.json` (every figure, rewritten after each point) to `--out`. The first line
printed is the CPU.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from vision.inference.cpu import cpu_info
from vision.training import perturb
from vision.training.evaluate import ImageTruth, card_scores, labelled_frames, map50

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "real-cards" / "dev"
THRESHOLD = 0.25  # card-level score threshold, as `gintray eval-detector` defaults
MARGIN = 0.02  # the target: every point within 0.02 card F1 of untouched

UNITS = {
    "gamma": "gamma (out = in^gamma; >1 darkens)",
    "gain": "exposure gain (linear light)",
    "white-balance": "light colour temperature (K), camera at 6500 K",
    "defocus": "disk radius (px at 640)",
    "motion-blur": "blur length (px at 640)",
    "jpeg": "JPEG quality",
    "noise": "noise sigma at mid-grey (DN)",
    "rotation": "frame rotation (deg), squeezed 640x640 photo",
    "rotation-true-aspect": "frame rotation (deg), photo back at 16:9",
    "tilt-x": "tilt about x (deg, top recedes)",
    "tilt-y": "tilt about y (deg, left recedes)",
    "index-size": "median corner-index width (px)",
    "frame-size": "frame width (4:3 frame)",
}

# where each family's identity lies on its axis (the untouched figure is drawn there)
IDENTITY = {
    "gamma": 1.0,
    "gain": 0.0,
    "white-balance": perturb.KELVIN_REFERENCE,
    "defocus": 0.0,
    "motion-blur": 0.0,
    "noise": 0.0,
    "rotation": 0.0,
    "tilt-x": 0.0,
    "tilt-y": 0.0,
}

# --- run-time exposure normalisation: an experiment for item 2, not part of the detector ----

DEV_MEDIAN_LUMA = 136.0  # median of the dev photos' median luma (range 94-178)
DEV_LUMA_BAND = (94.0, 178.0)  # the dev photos' range of median luma


def clahe_l(image: np.ndarray) -> np.ndarray:
    """CLAHE (clip 2.0, 8x8 tiles) on the L channel of CIELAB."""
    import cv2

    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    lab[..., 0] = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(lab[..., 0])
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


def median_gamma(image: np.ndarray, band: tuple[float, float] | None = DEV_LUMA_BAND) -> np.ndarray:
    """A gamma that brings the frame's median luma to DEV_MEDIAN_LUMA (gamma kept in
    0.3-3); frames whose median already lies in `band` are left alone (None: every frame)."""
    import cv2

    m = float(np.median(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)))
    if band and band[0] <= m <= band[1]:
        return image
    m = min(max(m, 1.0), 254.0)
    g = float(np.clip(np.log(DEV_MEDIAN_LUMA / 255) / np.log(m / 255), 0.3, 3.0))
    return perturb.gamma(image, g)


NORMALISERS = {
    "clahe": clahe_l,
    "median-gamma": median_gamma,
    "median-gamma-always": lambda image: median_gamma(image, None),
}


class _NormalisedFinder:
    """A corner finder that sees normalised frames (the namer still reads the raw frame)."""

    def __init__(self, finder, fn) -> None:
        self.finder, self.fn = finder, fn

    def find(self, image: np.ndarray):
        return self.finder.find(self.fn(image))


class _NormalisedDetector:
    """A detector that reads the normalised frame (finder and namer alike)."""

    def __init__(self, detector, fn) -> None:
        self.detector, self.fn = detector, fn

    def detect(self, image: np.ndarray, min_confidence: float | None = None):
        return self.detector.detect(self.fn(image), min_confidence=min_confidence)


def normalised(detector, name: str, scope: str):
    """The detector with a run-time normaliser before the finder only, or the whole frame."""
    fn = NORMALISERS[name]
    if scope == "finder":
        detector.finder = _NormalisedFinder(detector.finder, fn)
        return detector
    return _NormalisedDetector(detector, fn)


def load_dev(folder: Path, limit: int | None) -> list[tuple[str, np.ndarray, ImageTruth]]:
    """(file name, BGR frame, labels) of the first `limit` (or all) labelled photos."""
    out = []
    for image, frame, truth in labelled_frames(folder):
        if frame is not None:
            out.append((image.name, frame, truth))
        if limit and len(out) >= limit:
            break
    return out


def run_point(detector, photos, cond: perturb.Condition) -> dict:
    """Perturb every photo by `cond`, read it, score it like `gintray eval-detector`."""
    results = []
    started = time.perf_counter()
    sizes: set[tuple[int, int]] = set()
    for name, frame, truth in photos:
        codes = [c for c, _ in truth.boxes]
        boxes = np.array([b for _, b in truth.boxes], np.float64).reshape(-1, 4)
        image, moved = cond.apply(frame, boxes, name)
        sizes.add((image.shape[1], image.shape[0]))
        moved_truth = ImageTruth(
            truth.path, [(c, tuple(float(v) for v in b)) for c, b in zip(codes, moved, strict=True)]
        )
        results.append((moved_truth, detector.detect(image, min_confidence=0.001)))
    elapsed = time.perf_counter() - started
    scores = card_scores(results, THRESHOLD)
    return {
        "family": cond.family,
        "label": cond.label,
        "value": cond.value,
        "card_f1": scores["card_f1"],
        "card_precision": scores["card_precision"],
        "card_recall": scores["card_recall"],
        "corners_map50": round(map50(results, agnostic=True), 4),
        "top_confusions": scores["top_confusions"][:3],
        "frame_sizes": [f"{w}x{h}" for w, h in (min(sizes), max(sizes))],
        "seconds": round(elapsed, 1),
    }


def methods_text() -> str:
    """How each perturbation is made (for the table's header)."""
    e = ", ".join(f"{e:g} e-/DN + read {r:g} DN" for e, r in perturb.NOISE_LEVELS)
    return "\n".join(
        [
            "- exposure: gamma on 8-bit values (out = 255 (in/255)^gamma); gain in linear light "
            "(sRGB decoded, x (1 + gain), clipped at white, encoded).",
            "- white balance: camera balanced for 6500 K under a Planckian light of T K (Tanner "
            "Helland's fit of Charity's blackbody sRGB table); per-channel gains = linear RGB(T) "
            "/ linear RGB(6500 K), scaled to keep white's Rec. 709 luminance, in linear light.",
            "- defocus: anti-aliased disk PSF; motion blur: anti-aliased line PSF at a seeded "
            "angle per photo; both convolved in linear light on the 640 px frames.",
            "- JPEG: real cv2.imencode/imdecode at the quality (the dev photos are JPEGs already).",
            f"- noise: Poisson shot noise + Gaussian read noise on 8-bit DN, seeded ({e}).",
            "- rotation: whole frame turned about its centre on a canvas grown to hold it (border "
            "filled with the frame's median border colour); the detector brings the bigger canvas "
            "back to 640 px, so a 45 deg frame's indices are 1/1.41 as big. The dev photos are "
            "16:9 frames squeezed to 640x640, so turning them as they are also shears every "
            "index (a squeeze along a turned axis, which no camera makes); rotation-true-aspect "
            "first widens the photo back to 1138x640 (cv2.INTER_LANCZOS4, no lens blur), as a "
            "webcam delivers it, then turns it; its 0 deg point is its own reference.",
            "- tilt: homography K R K^-1 of a camera turned by the angle (focal = frame's long "
            "side), output fitted to the frame's long side.",
            "- boxes under rotation/tilt: the box's inscribed ellipse mapped and bounded.",
            "- scale: down with cv2.INTER_AREA; up with cv2.INTER_LANCZOS4 then a Gaussian lens "
            f"blur of sigma = {perturb.LENS_SIGMA} x the upscale factor (output px; "
            f"{perturb.LENS_SIGMA} source px) along each enlarged axis, in linear light. "
            "index-size scales each photo evenly so its median labelled index box is that wide "
            f"(dev: {perturb.DEV_INDEX_WIDTH:g} px); frame-size resamples the 640x640 photo "
            "(itself squeezed from 16:9) to the 4:3 size.",
        ]
    )


def write_markdown(path: Path, report: dict) -> None:
    """The table: one row a point, with the untouched figure and the difference."""
    base = report["untouched"]["card_f1"]
    lines = [
        "# Card detector robustness sweep",
        "",
        f"- command: `{report['command']}`",
        f"- CPU: {report['cpu']}",
        f"- backend: {report['backend']}; photos: {report['photos']} from {report['folder']}; "
        f"card threshold {THRESHOLD}",
        f"- untouched: card F1 **{base:.3f}** (P {report['untouched']['card_precision']:.3f} / "
        f"R {report['untouched']['card_recall']:.3f}), corners found (class-agnostic mAP50) "
        f"{report['untouched']['corners_map50']:.3f}",
        f"- run time: {report['seconds'] / 60:.1f} min",
        "",
        methods_text(),
        "",
        "| family | point | card F1 | vs untouched | precision | recall | corners mAP50 | "
        "frames | s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p in report["points"]:
        delta = p["card_f1"] - base
        flag = " **(below)**" if round(delta, 4) < -MARGIN else ""
        size = " - ".join(dict.fromkeys(p["frame_sizes"]))
        lines.append(
            f"| {p['family']} | {p['label']} | {p['card_f1']:.3f} | {delta:+.4f}{flag} | "
            f"{p['card_precision']:.3f} | {p['card_recall']:.3f} | {p['corners_map50']:.3f} | "
            f"{size} | {p['seconds']:.0f} |"
        )
    failing = [p for p in report["points"] if round(p["card_f1"] - base, 4) < -MARGIN]
    lines += [
        "",
        f"Points more than {MARGIN} card F1 below untouched ({len(failing)} of "
        f"{len(report['points'])}): "
        + ("; ".join(f"{p['label']} ({p['card_f1']:.3f})" for p in failing) or "none"),
        "",
    ]
    path.write_text("\n".join(lines))


def write_plot(path: Path, report: dict) -> None:
    """One panel a family: card F1 against the parameter, untouched and the 0.02 band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base = report["untouched"]["card_f1"]
    families = list(dict.fromkeys(p["family"] for p in report["points"]))
    cols = min(4, max(1, len(families)))
    rows = (len(families) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, family in zip(axes.flat, families, strict=False):
        pts = [p for p in report["points"] if p["family"] == family]
        x = [p["value"] for p in pts]
        y = [p["card_f1"] for p in pts]
        ax.axhspan(base - MARGIN, base, color="tab:green", alpha=0.15, lw=0)
        ax.axhline(base, color="tab:green", lw=1, label=f"untouched {base:.3f}")
        if family in IDENTITY:  # the untouched photos are this family's identity point
            ax.plot([IDENTITY[family]], [base], "o", mfc="none", color="tab:green", ms=6)
            x, y = zip(*sorted([(IDENTITY[family], base), *zip(x, y, strict=True)]), strict=True)
        ax.plot(x, y, "o-", color="tab:blue", ms=4)
        bad = [(a, b) for a, b in zip(x, y, strict=True) if round(b - base, 4) < -MARGIN]
        if bad:
            ax.plot(*zip(*bad, strict=True), "o", color="tab:red", ms=5)
        if family == "frame-size":
            ax.set_xscale("log")
            ax.set_xticks(x, [p["label"].split()[-1] for p in pts], fontsize=7, rotation=30)
            ax.minorticks_off()
        elif family == "index-size":
            ax.set_xscale("log")
            ax.set_xticks(x, [f"{v:g}" for v in x], fontsize=7)
            ax.minorticks_off()
        ax.set_title(family, fontsize=10)
        ax.set_xlabel(UNITS.get(family, ""), fontsize=8)
        ax.set_ylim(max(0.0, min([*y, base - 0.1]) - 0.03), 1.0)  # each panel its own scale
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
    for ax in list(axes.flat)[len(families) :]:
        ax.axis("off")
    fig.suptitle(
        f"card F1 on {report['photos']} dev photos, {report['backend']} backend "
        f"(green band: within {MARGIN} of untouched; red: below)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default=None, help="onnx, opencv or ultralytics "
                    "(default: GINTRAY_BACKEND, else onnx)")  # fmt: skip
    ap.add_argument("--folder", type=Path, default=DEV, help="YOLO folder (default: dev)")
    ap.add_argument("--weights", default=None, help="corner finder file (default: the shipped one)")
    ap.add_argument("--namer", default=None, help="namer file (default: the shipped one)")
    ap.add_argument("--deck", default=None, help="read with this deck profile (gintray deck learn)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N photos")
    ap.add_argument(
        "--conditions",
        nargs="+",
        default=list(perturb.FAMILIES),
        choices=perturb.FAMILIES,
        metavar="FAMILY",
        help=f"families to sweep (default all: {' '.join(perturb.FAMILIES)})",
    )
    ap.add_argument("--max-points", type=int, default=None, help="at most N points a family")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument(
        "--from-json",
        type=Path,
        help="only rewrite the table and plot from a robustness.json of an earlier run",
    )
    ap.add_argument(
        "--normalise",
        choices=sorted(NORMALISERS),
        help="experiment: normalise exposure at run time before reading (not shipped)",
    )
    ap.add_argument(
        "--normalise-scope",
        choices=["finder", "frame"],
        default="frame",
        help="normalise what the finder sees only, or the frame both models read",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        report = json.loads(args.from_json.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_markdown(args.out / "robustness.md", report)
        write_plot(args.out / "robustness.png", report)
        print(f"wrote {args.out / 'robustness.md'}, {args.out / 'robustness.png'}")
        return 0

    from vision.inference.detector import DetectorUnavailable, default_backend, load_detector

    cpu = cpu_info().describe()
    print(f"CPU: {cpu}", flush=True)
    backend = args.backend or default_backend()
    try:
        detector = load_detector(backend, weights=args.weights, namer_weights=args.namer,
                                 deck=args.deck)
        if args.deck:
            backend += f", deck profile {args.deck}"
        if args.normalise:
            detector = normalised(detector, args.normalise, args.normalise_scope)
            backend += f" + {args.normalise} before the {args.normalise_scope} (experiment)"
    except DetectorUnavailable as exc:
        print(f"bench_robustness: {exc}", file=sys.stderr)
        return 2
    photos = load_dev(args.folder, args.limit)
    if not photos:
        print(f"bench_robustness: no labelled photos in {args.folder}", file=sys.stderr)
        return 2
    points = perturb.sweep(tuple(args.conditions), args.max_points)
    print(f"{len(photos)} photos x ({len(points)} points + untouched), backend {backend}")
    args.out.mkdir(parents=True, exist_ok=True)
    shown = argv if argv is not None else sys.argv[1:]
    report: dict = {
        "command": " ".join(
            [".venv/bin/python benchmarks/bench_robustness.py", *map(shlex.quote, shown)]
        ),
        "cpu": cpu,
        "backend": backend,
        "folder": str(args.folder),
        "photos": len(photos),
        "methods": methods_text(),
        "points": [],
    }
    started = time.perf_counter()
    report["untouched"] = run_point(detector, photos, perturb.untouched())
    base = report["untouched"]["card_f1"]
    print(
        f"  {'untouched':<50} F1 {base:.3f}  ({report['untouched']['seconds']:.0f} s)", flush=True
    )
    json_path = args.out / "robustness.json"
    for cond in points:
        point = run_point(detector, photos, cond)
        report["points"].append(point)
        report["seconds"] = round(time.perf_counter() - started, 1)
        json_path.write_text(json.dumps(report, indent=1))
        print(
            f"  {cond.label:<50} F1 {point['card_f1']:.3f} ({point['card_f1'] - base:+.3f})"
            f"  corners {point['corners_map50']:.3f}  ({point['seconds']:.0f} s)",
            flush=True,
        )
    report["seconds"] = round(time.perf_counter() - started, 1)
    json_path.write_text(json.dumps(report, indent=1))
    write_markdown(args.out / "robustness.md", report)
    write_plot(args.out / "robustness.png", report)
    print(f"wrote {args.out / 'robustness.md'}, {args.out / 'robustness.png'}, {json_path}")
    print(f"run time {report['seconds'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
