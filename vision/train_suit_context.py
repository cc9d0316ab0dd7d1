"""Train the suit reader (vision/suit_context.py) on the card around each labelled index.

Samples come from the same labelled folders as the namer's (synthetic scenes from real deck
designs, the real training photos): a random index box, the square around it turned by any
angle, sometimes squeezed sideways like a 16:9 frame stretched to a square, lowered to webcam
resolution, JPEG-compressed, blurred, noised and recoloured. The label is the card's suit.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.corner_crops import to_tensor_layout
from vision.suit_context import CONTEXT_SCALE, CONTEXT_SIZE, build_suit_model, context_transform
from vision.train_classifier import CornerSource, _jpeg, _sharpen, _update_ema


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """Command-line options of `gintray train suit-context`."""
    ap.add_argument("--synth", nargs="*", default=["data/synth-v1"])
    ap.add_argument(
        "--real",
        default=str(Path(__file__).resolve().parents[2] / "shared/data/real-cards/train"),
        help="real YOLO folder (backs and jokers are skipped); '' for none",
    )
    ap.add_argument("--minutes", type=float, default=40.0, help="training time budget")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/suit", help="folder for checkpoints and ONNX")
    ap.add_argument("--real-share", type=float, default=0.4)
    ap.add_argument("--squash-share", type=float, default=0.5)
    ap.add_argument("--blur-max", type=float, default=2.0, help="largest blur sigma (pixels)")
    ap.add_argument("--ema", type=float, default=0.998, help="weight moving-average decay")
    ap.add_argument("--resume", action="store_true")


def context_sample(
    rng: np.random.Generator, img: np.ndarray, box, blur_max: float, squash_share: float
) -> np.ndarray:
    """One augmented CONTEXT_SIZE training patch around `box` in `img`."""
    x1, y1, x2, y2 = box
    dx, dy = rng.uniform(-0.15, 0.15, 2) * max(x2 - x1, y2 - y1)
    squash = rng.uniform(0.5, 0.7) if rng.random() < squash_share else 1.0
    m = context_transform(
        (x1 + dx, y1 + dy, x2 + dx, y2 + dy),
        angle=float(rng.uniform(-180, 180)),
        squash=squash,
        scale=CONTEXT_SCALE * rng.uniform(0.8, 1.25),
    )
    patch = cv2.warpAffine(
        img,
        m,
        (CONTEXT_SIZE, CONTEXT_SIZE),
        flags=cv2.INTER_AREA if abs(m[0, 0]) + abs(m[0, 1]) < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if rng.random() < 0.6:  # webcam resolution: the square seen at 36-64 pixels (an index
        side = int(rng.uniform(36, CONTEXT_SIZE))  # 12-21 px long; smaller is unreadable)
        small = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.3:
            small = _sharpen(small, float(rng.uniform(0.5, 1.5)), float(rng.uniform(0.5, 1.5)))
        if rng.random() < 0.6:
            small = _jpeg(small, int(rng.integers(35, 90)))
        patch = cv2.resize(small, (CONTEXT_SIZE, CONTEXT_SIZE), interpolation=cv2.INTER_LINEAR)
    patch = patch.astype(np.float32)
    patch = patch * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25)
    patch = patch * rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.4:
        patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(0.4, blur_max))
    patch += rng.normal(0, rng.uniform(0, 8), patch.shape)
    return np.clip(patch, 0, 255).astype(np.uint8)


def sample_batch(
    rng: np.random.Generator,
    synth: list[CornerSource],
    real: CornerSource | None,
    n: int,
    args: argparse.Namespace,
) -> tuple[np.ndarray, np.ndarray]:
    """A batch of (context patch, suit index in SUITS) pairs."""
    patches, suits = [], []
    for _ in range(n):
        use_real = real is not None and rng.random() < args.real_share
        src = real if use_real else synth[int(rng.integers(len(synth)))]
        i, box, label = src.boxes[int(rng.integers(len(src.boxes)))]
        patches.append(context_sample(rng, src.images[i], box, args.blur_max, args.squash_share))
        suits.append(label // 13)
    return to_tensor_layout(patches), np.array(suits, np.int64)


def export_onnx(model, path: Path) -> None:
    """Export the suit reader with softmax probabilities and a dynamic batch."""
    import torch

    model = torch.nn.Sequential(model, torch.nn.Softmax(dim=1)).eval()
    torch.onnx.export(
        model,
        torch.zeros(1, 3, CONTEXT_SIZE, CONTEXT_SIZE),
        str(path),
        input_names=["context"],
        output_names=["suits"],
        dynamic_axes={"context": {0: "n"}, "suits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def export_checkpoint(ckpt: Path, onnx_path: Path) -> None:
    """Export a saved suit-reader checkpoint (its weights' moving average) to ONNX."""
    import torch

    state = torch.load(ckpt, map_location="cpu", weights_only=False)
    model = build_suit_model()
    model.load_state_dict(state.get("ema") or state["model"])
    export_onnx(model, Path(onnx_path))


def train_suit_context(args: argparse.Namespace) -> int:
    """Train for `args.minutes`, checkpointing every 200 steps; export ONNX at the end."""
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    synth = [CornerSource(Path(s)) for s in args.synth]
    real = CornerSource(Path(args.real)) if args.real else None
    model = build_suit_model()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    ema = copy.deepcopy(model).eval()
    ckpt = out / "suit.pt"
    step = 0
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        ema.load_state_dict(state["ema"])
        step = state["step"]

    def save() -> None:
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step}
        torch.save({**state, "ema": ema.state_dict()}, ckpt)

    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    budget, start, first_step = args.minutes * 60, time.time(), step
    running: list[tuple[float, float]] = []
    model.train()
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:  # cosine decay over the time budget
            g["lr"] = args.lr * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * frac)))
        x, y = sample_batch(rng, synth, real, args.batch, args)
        logits = model(torch.from_numpy(x))
        target = torch.from_numpy(y)
        loss = loss_fn(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        done = step - first_step
        _update_ema(ema, model, min(args.ema, (1 + done) / (10 + done)))
        running.append((float(loss.detach()), float((logits.argmax(1) == target).float().mean())))
        if step % 50 == 0:
            lo, ac = np.mean(running, axis=0)
            running = []
            rate = (step - first_step) * args.batch / max(time.time() - start, 1e-6)
            with (out / "log.jsonl").open("a") as fh:
                fh.write(json.dumps({"step": step, "loss": lo, "acc": ac, "crops_s": rate}) + "\n")
        if step % 200 == 0:
            save()
    save()
    export_onnx(ema, out / "suit.onnx")
    print(f"trained {step} steps; wrote {ckpt} and {out / 'suit.onnx'}")
    return 0
