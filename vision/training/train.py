"""`gintray train detector|classifier`: fine-tune the corner finder and train the card namer.

The shipped model is two stages (see models/MODEL_CARD.md): a one-class YOLO that finds corner
indices, fine-tuned from COCO weights with ultralytics, and a small CNN that names each corner
crop (52 cards + "not a corner"). Both train on synthetic scenes (`gintray synth`) plus the real
training photos, never on the dev photos.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from vision.training.train_device import add_device_option, training_device, write_run_notes

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED = REPO_ROOT.parent / "shared"
DEFAULT_REAL = SHARED / "data" / "real-cards" / "train"
DEFAULT_START = SHARED / "pretrained" / "yolo11n-coco.pt"
NON_CARD_CLASSES = {40, 41, 54}  # BACK, BLACK JOKER, RED JOKER in the photos' data.yaml


def prepare_real(real_dir: Path, out: Path) -> Path:
    """Copy a real YOLO folder's labels without backs/jokers, images by symlink; return out."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    for img in sorted((real_dir / "images").iterdir()):
        link = out / "images" / img.name
        if not link.exists():
            link.symlink_to(img.resolve())
        src = real_dir / "labels" / (img.stem + ".txt")
        lines = src.read_text().splitlines() if src.exists() else []
        keep = [ln for ln in lines if ln.split() and int(ln.split()[0]) not in NON_CARD_CLASSES]
        (out / "labels" / (img.stem + ".txt")).write_text("".join(k + "\n" for k in keep))
    return out


def _small_val(src: Path, out: Path, n: int) -> str:
    """A small validation folder (symlinks to the first n labelled images of src)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    for img in sorted((src / "images").iterdir())[:n]:
        for link, target in (
            (out / "images" / img.name, img),
            (out / "labels" / (img.stem + ".txt"), src / "labels" / (img.stem + ".txt")),
        ):
            if not link.exists() and target.exists():
                link.symlink_to(target.resolve())
    return str((out / "images").resolve())


def train_detector(args: argparse.Namespace) -> int:
    """Fine-tune the one-class corner finder with ultralytics (resumable)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import torch
    from ultralytics import YOLO


    torch.set_num_threads(args.threads)
    run_dir = Path(args.project) / args.name
    device = training_device(args.device)
    write_run_notes(run_dir, device, "detector")
    print(f"training on {device}")
    last = run_dir / "weights" / "last.pt"
    if args.resume and last.exists():
        YOLO(str(last)).train(resume=True)
        return 0
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    real = prepare_real(Path(args.real), work / "real-train") if args.real else None
    train_dirs = [str(Path(s).resolve() / "images") for s in args.synth]
    if real is not None:
        train_dirs += [str(real.resolve() / "images")] * args.real_repeat
    val_dir = _small_val(Path(train_dirs[-1]).parent, work / "val", 60)
    data_yaml = work / "detector-data.yaml"
    lines = ["path: .", "train:"] + [f"  - {d}" for d in train_dirs]
    lines += [f"val: {val_dir}", "names:", "  0: corner"]
    data_yaml.write_text("\n".join(lines) + "\n")
    model = YOLO(str(args.start))
    model.train(
        data=str(data_yaml),
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        workers=args.workers,
        device=0 if device == "cuda" else "cpu",
        single_cls=True,
        optimizer="SGD",
        lr0=args.lr0,
        lrf=0.1,
        momentum=0.9,
        warmup_epochs=args.warmup,
        cos_lr=True,
        mosaic=1.0,
        close_mosaic=1,
        scale=0.35,
        translate=0.1,
        degrees=args.degrees,
        fliplr=0.0,
        flipud=0.0,
        hsv_h=0.02,
        hsv_s=0.6,
        hsv_v=0.4,
        cache=args.cache,
        val=False,
        plots=False,
        project=str(Path(args.project).resolve()),
        name=args.name,
        exist_ok=True,
        seed=args.seed,
        deterministic=False,
        amp=False,
        save_period=1,
    )
    return 0


def export_models(args: argparse.Namespace) -> int:
    """Copy the chosen checkpoints into models/: corner finder .pt and float ONNX, namer ONNX.

    The finder's ONNX stays float (its int8 copy reads differently on CPUs without VNNI); the
    namer is quantised with reduced range unless `--calibration ''`; `--namer ''` skips it.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO
    from ultralytics.utils.torch_utils import strip_optimizer

    from vision.training.train_classifier import export_checkpoint

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pt = out / "gintray-corners.pt"
    if Path(args.corners).resolve() != pt.resolve():
        shutil.copyfile(args.corners, pt)
        strip_optimizer(str(pt))
    onnx = Path(
        YOLO(str(pt)).export(
            format="onnx", imgsz=args.imgsz, dynamic=True, simplify=True, opset=17, device="cpu"
        )
    )
    print(f"corner finder: {pt} and {onnx} (float)")
    if not args.namer:
        return 0
    namer = out / "gintray-namer.onnx"
    if args.calibration:
        from vision.training.quantize import quantize_namer

        float_namer = namer.with_suffix(".float.onnx")
        export_checkpoint(Path(args.namer), float_namer)
        quantize_namer(float_namer, namer, Path(args.calibration).parent)
        float_namer.unlink()
    else:
        export_checkpoint(Path(args.namer), namer)
    print(f"namer: {namer}")
    return 0


def main(argv: list[str]) -> int:
    """Parse `gintray train ...` and run the chosen stage."""
    ap = argparse.ArgumentParser(prog="gintray train", description=__doc__)
    sub = ap.add_subparsers(dest="stage", required=True)
    det = sub.add_parser("detector", help="fine-tune the one-class YOLO corner finder")
    det.add_argument("--synth", nargs="*", default=["data/synth-v1"], help="gintray synth folders")
    det.add_argument("--real", default=str(DEFAULT_REAL), help="real YOLO folder ('' for none)")
    det.add_argument("--real-repeat", type=int, default=1, help="times the real frames are listed")
    det.add_argument("--start", default=str(DEFAULT_START), help="starting weights")
    det.add_argument("--epochs", type=int, default=6)
    det.add_argument("--imgsz", type=int, default=320)
    det.add_argument("--batch", type=int, default=16)
    det.add_argument("--lr0", type=float, default=0.01)
    det.add_argument("--warmup", type=float, default=0.3)
    det.add_argument(
        "--degrees",
        type=float,
        default=0.0,
        help="rotate training images by up to this many degrees either way (cards lie askew)",
    )
    det.add_argument("--workers", type=int, default=2)
    det.add_argument("--threads", type=int, default=2)
    add_device_option(det)
    det.add_argument("--cache", default="ram", help="ultralytics cache: ram, disk or False")
    det.add_argument("--seed", type=int, default=0)
    det.add_argument("--project", default="runs/detector")
    det.add_argument("--name", default="corner")
    det.add_argument("--work", default="data/train-work", help="scratch folder")
    det.add_argument("--resume", action="store_true", help="resume the run's last.pt")
    exp = sub.add_parser("export", help="export chosen checkpoints into models/")
    exp.add_argument("--corners", default="runs/detector/corner-v1/weights/last.pt")
    exp.add_argument("--namer", default="runs/namer-v1/namer.pt", help="('' leaves the namer)")
    exp.add_argument("--imgsz", type=int, default=640)
    exp.add_argument("--out", default=str(REPO_ROOT / "models"))
    exp.add_argument(
        "--calibration",
        default=str(DEFAULT_REAL / "images"),
        help="images (of a YOLO folder with labels/ beside them) to calibrate the int8 ONNX "
        "namer on ('' keeps it in float; the finder is always float)",
    )
    deq = sub.add_parser(
        "dequantize", help="float copy of an int8 (QDQ) ONNX model that reads alike on every CPU"
    )
    deq.add_argument("src", help="QDQ ONNX model, e.g. git show 52284d4:models/gintray-namer.onnx")
    deq.add_argument("out", help="where to write the float ONNX model")
    qn = sub.add_parser(
        "quantize-namer", help="reduced-range int8 copy of a float ONNX namer (portable)"
    )
    qn.add_argument("src", help="float ONNX namer")
    qn.add_argument("out", help="where to write the int8 namer")
    qn.add_argument(
        "--calibration", default=str(DEFAULT_REAL), help="YOLO folder (labelled crops calibrate)"
    )
    cls = sub.add_parser("classifier", help="train the corner-crop CNN that names the card")
    from vision.training.train_classifier import add_arguments

    add_arguments(cls)
    args = ap.parse_args(argv)
    if args.stage == "export":
        return export_models(args)
    if args.stage == "quantize-namer":
        from vision.training.quantize import quantize_namer

        namer = quantize_namer(Path(args.src), Path(args.out), Path(args.calibration))
        print(f"int8 namer: {namer}")
        return 0
    if args.stage == "dequantize":
        from vision.training.quantize import dequantize

        print(f"float model: {dequantize(Path(args.src), Path(args.out))}")
        return 0
    if args.stage == "detector":
        if args.cache == "False":
            args.cache = False
        return train_detector(args)
    from vision.training.train_classifier import train_classifier

    return train_classifier(args)


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
