"""Train the card namer: a small CNN that reads a corner-index crop (52 cards + "none").

Samples are cut on the fly from labelled YOLO folders (synthetic scenes and the real training
photos) with box jitter, quarter turns (a corner turned 180 degrees is still the same card),
squash, blur, noise and colour changes; "none" samples are random boxes away from any label.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import queue
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.inference.corner_crops import (
    CROP_SIZE,
    NAMER_CLASSES,
    crop_corner,
    namer_input,
    tilt_about_box,
)
from vision.training import perturb
from vision.training.evaluate import iou
from vision.training.perturb import TRUE_ASPECT
from vision.training.synth.index_glyphs import sample_index
from vision.training.synth.scene import CLASS_NAMES, class_name_to_code
from vision.training.train_device import add_device_option, training_device, write_run_notes
from vision.training.yolo_labels import read_label_boxes

NONE_INDEX = len(NAMER_CLASSES) - 1
# a training label BLACK_RANK + r: a club or a spade of rank r whose suit is not taught (a
# source with one black suit only would teach that every black index of its deck is that suit)
BLACK_RANK = 100
BLACK_SUITS = (0, 3)  # clubs and spades in NAMER_CLASSES' suit-major order (C, D, H, S)
ONE_BLACK_SUIT_SHARE = 0.1  # a source whose rarer black suit is under 10% of the other
N_RANK_OUT = 14  # 13 ranks + "not a corner"
NAMER_WIDTHS = (16, 32, 64, 128)  # channels of the four stages (checkpoints before "widths")
# crop side -> pooling window that brings the last feature map (side / 8) back to 6 x 6
CROP_SIZES = {48: 1, 56: 2, 64: 3, 72: 4}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """Command-line options of `gintray train classifier`."""
    ap.add_argument("--synth", nargs="*", default=["data/synth-v1"])
    ap.add_argument(
        "--real",
        nargs="*",
        default=[str(Path(__file__).resolve().parents[3] / "shared/data/real-cards/train")],
        help="real YOLO folders (backs and jokers are skipped), each drawn from equally often; "
        "none for no real crops (e.g. the real-cards train photos and data/phone-corners from "
        "vision/training/phone_corners.py)",
    )
    ap.add_argument("--minutes", type=float, default=40.0, help="training time budget")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--workers",
        type=int,
        default=0,
        help="processes that cut and augment batches while the model trains (0: the training "
        "loop cuts its own, batch for batch as before); worker k draws from seed (--seed, k). "
        "A GPU trains faster than one CPU core cuts crops, so give it the machine's cores",
    )
    ap.add_argument(
        "--export-every",
        type=int,
        default=0,
        help="also export the (EMA) namer every this many steps as namer-stepN.onnx (0: only "
        "at the end), to read a long run's checkpoints afterwards",
    )
    add_device_option(ap)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/namer", help="folder for checkpoints and ONNX")
    ap.add_argument("--real-share", type=float, default=0.35)
    ap.add_argument("--none-share", type=float, default=0.12)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--blur-max", type=float, default=1.2, help="largest blur sigma (pixels)")
    ap.add_argument(
        "--tilt-share",
        type=float,
        default=0.0,
        help="share of real crops turned by any angle (boxed again axis-aligned, like labels "
        "of cards lying askew), with JPEG at webcam scale",
    )
    ap.add_argument(
        "--glyph-share",
        type=float,
        default=0.0,
        help="share of procedural indices (vision/training/synth/index_glyphs.py) in each batch",
    )
    ap.add_argument(
        "--black-glyph-share",
        type=float,
        default=0.0,
        help="share of procedural indices drawn as clubs or spades (the pair a blurred webcam "
        "index confuses most); the rest are any of the 52 cards",
    )
    ap.add_argument(
        "--ema",
        type=float,
        default=0.0,
        help="keep an exponential moving average of the weights with this decay (e.g. 0.998) "
        "and export it instead of the last step's weights",
    )
    ap.add_argument(
        "--squash-share",
        type=float,
        default=0.0,
        help="share of tilted real and procedural crops squeezed sideways after the tilt "
        "(16:9 frames stretched to squares, like the shared photos)",
    )
    ap.add_argument(
        "--sharpen-share",
        type=float,
        default=0.0,
        help="share of webcam-scale crops sharpened (unsharp mask, as webcams do) before JPEG",
    )
    ap.add_argument("--motion-share", type=float, default=0.0,
                    help="share of crops shaken (a line blur 2-16 crop px long, any angle)")
    ap.add_argument("--defocus-share", type=float, default=0.0,
                    help="share of crops out of focus (a disk blur of radius 0.7-5 crop px)")
    ap.add_argument("--widen-share", type=float, default=0.0,
                    help="share of real crops cut from their photo widened 1-16/9x first (the "
                    "shared photos are 16:9 frames squeezed to squares)")
    ap.add_argument("--gamma-share", type=float, default=0.0,
                    help="share of crops under another exposure (tone curve gamma 0.4-2.5)")
    ap.add_argument("--small-share", type=float, default=0.0,
                    help="share of real and procedural crops seen as a cheap webcam over a "
                    "whole table sees them: the source shrunk so the index is 12-18 px wide, "
                    "then JPEG q25-85 and/or sensor noise at that scale, then cut and enlarged "
                    "as the detector's crop is")
    ap.add_argument(
        "--crop-size",
        type=int,
        choices=sorted(CROP_SIZES),
        default=None,
        help="side of the crop the namer reads (default: --init's or the checkpoint's, else "
        f"{CROP_SIZE}); bigger keeps more of a webcam index's pixels and costs more per corner",
    )
    ap.add_argument(
        "--init",
        default="",
        help="start from this namer.pt's weights (new optimiser), or from a float ONNX namer "
        "(vision/training/namer_from_onnx.py: its batch norms stay frozen)",
    )
    ap.add_argument(
        "--widths",
        type=parse_widths,
        default=None,
        help="channels of the four stages, e.g. 16,32,96,192 (default: --init's, else "
        + ",".join(map(str, NAMER_WIDTHS))
        + "); wider than --init's widens it without changing its output (namer_widen.py)",
    )


def parse_widths(text: str) -> tuple[int, ...]:
    """'16,32,64,128' -> (16, 32, 64, 128): channels of the namer's four stages."""
    widths = tuple(int(v) for v in text.split(","))
    if len(widths) != 4 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"--widths wants four positive channel counts: {text!r}")
    return widths


def build_model(
    widths: tuple[int, ...] = NAMER_WIDTHS, crop_size: int = CROP_SIZE
):  # -> torch.nn.Module
    """The namer CNN on a square RGB crop: 14 rank logits (13 ranks + "none"), 4 suit logits.

    `widths` are the channels of its four convolution stages; `crop_size` is one of
    `CROP_SIZES` (48 by default).

    The last feature map keeps its 6x6 layout (no global pooling) so that where the suit sits
    relative to the rank, which tells an upside-down 6 from a 9, reaches the classifier. Crops
    bigger than 48 end in a bigger map, averaged over a sliding window down to 6x6; the window
    sits with the ReLU at position 8 so that every size has the same parameter names (a 48-px
    namer's weights start a bigger one).
    """
    from torch import nn

    def stage(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(True),
        )

    w1, w2, w3, w4 = widths
    window = CROP_SIZES[crop_size]
    squeeze_act = (
        nn.ReLU(True)
        if window == 1
        else nn.Sequential(nn.ReLU(True), nn.AvgPool2d(window, stride=1))
    )
    return nn.Sequential(
        stage(3, w1),
        nn.MaxPool2d(2),
        stage(w1, w2),
        nn.MaxPool2d(2),
        stage(w2, w3),
        nn.MaxPool2d(2),
        stage(w3, w4),
        nn.Conv2d(w4, 32, 1),
        squeeze_act,
        nn.Flatten(),
        nn.Linear(32 * 6 * 6, 192),
        nn.ReLU(True),
        nn.Dropout(0.2),
        nn.Linear(192, N_RANK_OUT + 4),
    )


def card_probabilities(logits):  # torch.Tensor (N, 18) -> (N, 53)
    """Rank x suit probabilities in NAMER_CLASSES order (suit-major), then "none"."""
    import torch

    rank = torch.softmax(logits[:, :N_RANK_OUT], dim=1)
    suit = torch.softmax(logits[:, N_RANK_OUT:], dim=1)
    cards = (suit[:, :, None] * rank[:, None, :13]).reshape(-1, 52)
    return torch.cat([cards, rank[:, 13:]], dim=1)


class CornerSource:
    """Images of one YOLO folder kept in memory with their card boxes (pixels, namer index).

    A ``none/STEM.txt`` beside ``labels/`` lists boxes that are known not to be corners (pips
    and pictures the finder boxes, `vision/training/phone_corners.py`): they become "none" samples.
    """

    def __init__(self, folder: Path, limit: int | None = None) -> None:
        self.images: list[np.ndarray] = []
        self.boxes: list[tuple[int, tuple[float, float, float, float], int]] = []
        self.pips: list[tuple[int, tuple[float, float, float, float]]] = []
        paths = sorted((folder / "images").iterdir())[:limit]
        for path in paths:
            img = cv2.imread(str(path))
            if img is None:
                continue
            h, w = img.shape[:2]
            idx = len(self.images)
            self.images.append(img)
            for label in read_label_boxes(folder / "labels" / (path.stem + ".txt"), w, h):
                code = class_name_to_code(CLASS_NAMES[label.class_id])
                if code is not None:
                    self.boxes.append((idx, label.box, NAMER_CLASSES.index(code)))
            for pip in read_label_boxes(folder / "none" / (path.stem + ".txt"), w, h):
                self.pips.append((idx, pip.box))
        self.by_image: dict[int, list] = {}
        for i, box, _ in self.boxes:
            self.by_image.setdefault(i, []).append(box)
        clubs = sum(label // 13 == BLACK_SUITS[0] for *_, label in self.boxes)
        spades = sum(label // 13 == BLACK_SUITS[1] for *_, label in self.boxes)
        #: its clubs and spades teach rank and "black", not which black suit (see BLACK_RANK)
        self.one_black_suit = min(clubs, spades) < ONE_BLACK_SUIT_SHARE * max(clubs, spades)

    def training_label(self, label: int) -> int:
        """The label a crop of this source trains on (a black card's suit left out when the
        source has one black suit only)."""
        if self.one_black_suit and label < NONE_INDEX and label // 13 in BLACK_SUITS:
            return BLACK_RANK + label % 13
        return label


def _jpeg(patch: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", patch, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else patch


def _sharpen(patch: np.ndarray, sigma: float, amount: float) -> np.ndarray:
    """Unsharp mask: the halo a webcam's sharpening draws round dark strokes."""
    soft = cv2.GaussianBlur(patch, (0, 0), sigma)
    return cv2.addWeighted(patch, 1 + amount, soft, -amount, 0)


@dataclass(frozen=True)
class CropAugmentation:
    """How training crops are degraded; the shares are the command-line options of the same
    names (`add_arguments`)."""

    blur_max: float = 1.2
    tilt_share: float = 0.0
    squash_share: float = 0.0
    sharpen_share: float = 0.0
    motion_share: float = 0.0
    defocus_share: float = 0.0
    gamma_share: float = 0.0
    widen_share: float = 0.0
    small_share: float = 0.0

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CropAugmentation:
        """The policy the training options ask for."""
        return cls(args.blur_max, args.tilt_share, args.squash_share, args.sharpen_share,
                   args.motion_share, args.defocus_share, args.gamma_share, args.widen_share,
                   getattr(args, "small_share", 0.0))


#: a far, cheap webcam's corner indices (px wide) for `--small-share`: the robustness sweep's
#: small-jpeg and small-noise families read them at perturb.SMALL_INDEX (14 px)
SMALL_INDEX_RANGE = (12.0, 18.0)
SMALL_JPEG_QUALITY = (25, 85)


def shrink_to_index(img: np.ndarray, box, width: float) -> tuple[np.ndarray, tuple]:
    """The neighbourhood of `box` in `img` downscaled (``cv2.INTER_AREA``, as the sweep's
    `perturb.resize` shrinks a frame) so that the box is `width` px wide, and the box there.
    A box already narrower than `width` is not enlarged (its neighbourhood is cut as it is)."""
    x1, y1, x2, y2 = box
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    h, w = img.shape[:2]
    rx1, ry1 = max(0, int(np.floor(x1 - bw))), max(0, int(np.floor(y1 - bh)))
    rx2, ry2 = min(w, int(np.ceil(x2 + bw))), min(h, int(np.ceil(y2 + bh)))
    region = img[ry1:ry2, rx1:rx2]
    f = min(1.0, width / bw)
    if f < 1.0:
        nw = max(1, round(region.shape[1] * f))
        nh = max(1, round(region.shape[0] * f))
        fx, fy = nw / region.shape[1], nh / region.shape[0]
        region = cv2.resize(region, (nw, nh), interpolation=cv2.INTER_AREA)
    else:
        fx = fy = 1.0
    return region, ((x1 - rx1) * fx, (y1 - ry1) * fy, (x2 - rx1) * fx, (y2 - ry1) * fy)


def small_camera(rng: np.random.Generator, small: np.ndarray) -> np.ndarray:
    """What a cheap webcam does to a frame at that small scale: JPEG (q25-85, a real encode)
    and/or shot + read noise (`perturb.sensor_noise`, 0.7-6 electrons per DN, read sigma
    0.5-4 DN), each on about half the crops, neither on about a tenth."""
    r = rng.random()
    noisy, compressed = r < 0.45, 0.35 < r < 0.9
    if noisy:
        e = float(np.exp(rng.uniform(np.log(0.7), np.log(6.0))))
        small = perturb.sensor_noise(small, e, float(rng.uniform(0.5, 4.0)), rng)
    if compressed:
        small = _jpeg(small, int(rng.integers(SMALL_JPEG_QUALITY[0], SMALL_JPEG_QUALITY[1] + 1)))
    return small


def small_index_crop(rng: np.random.Generator, img: np.ndarray, box, jitter: float = 0.12,
                     size: int = CROP_SIZE) -> np.ndarray:
    """A crop of `box` as a far webcam's frame gives it to the namer: the index shrunk to
    12-18 px wide (`shrink_to_index`), JPEG and/or sensor noise at that scale
    (`small_camera`), then the box (jittered like a finder's) cut and enlarged by
    `crop_corner`, exactly as the detector cuts its crops from the frame."""
    width = float(rng.uniform(*SMALL_INDEX_RANGE))
    small, (x1, y1, x2, y2) = shrink_to_index(img, box, width)
    small = small_camera(rng, small)
    bw, bh = x2 - x1, y2 - y1
    x1 += rng.uniform(-jitter, jitter) * bw
    x2 += rng.uniform(-jitter, jitter) * bw
    y1 += rng.uniform(-jitter, jitter) * bh
    y2 += rng.uniform(-jitter, jitter) * bh
    return crop_corner(small, (x1, y1, x2, y2), size=size)


def widen_photo(rng: np.random.Generator, img: np.ndarray, box,
                policy: CropAugmentation) -> tuple[np.ndarray, tuple]:
    """A real photo (a camera frame its exporter stretched to a square) widened back towards
    its true aspect for `policy.widen_share` of the crops: x scaled by 1 to TRUE_ASPECT (the
    shared photos are 16:9 frames squeezed to 640x640; a table camera's are not squeezed), so
    a tilt afterwards turns a true-shaped index instead of shearing a squeezed one. A share of
    0 draws no random number."""
    if not policy.widen_share or rng.random() >= policy.widen_share:
        return img, box
    fx = float(rng.uniform(1.0, TRUE_ASPECT))
    img = cv2.resize(img, None, fx=fx, fy=1.0, interpolation=cv2.INTER_LINEAR)
    return img, (box[0] * fx, box[1], box[2] * fx, box[3])


def _camera_degradation(rng: np.random.Generator, patch: np.ndarray,
                        policy: CropAugmentation) -> np.ndarray:
    """Shake, focus and exposure a table camera meets, with the robustness sweep's own models
    (``vision.training.perturb``), in crop pixels (a 48 px crop is ~1.7x a webcam's index).
    A share of 0 draws no random number, so older runs' batches stay the same."""
    if policy.gamma_share and rng.random() < policy.gamma_share:
        patch = perturb.gamma(patch, float(np.exp(rng.uniform(np.log(0.4), np.log(2.5)))))
    if policy.motion_share and rng.random() < policy.motion_share:
        patch = perturb.motion_blur(patch, float(rng.uniform(2, 16)), float(rng.uniform(0, 180)))
    elif policy.defocus_share and rng.random() < policy.defocus_share:
        patch = perturb.defocus(patch, float(rng.uniform(0.7, 5)))
    return patch


def _augment(
    rng: np.random.Generator,
    img: np.ndarray,
    box,
    policy: CropAugmentation,
    real: bool,
    webcam: bool = False,
    size: int = CROP_SIZE,
) -> np.ndarray:
    """A training crop of `box` in `img`: real crops may be tilted, webcam-like ones squeezed,
    downscaled, sharpened and JPEG-compressed; then box jitter, turns, colour, blur, noise."""
    if real:
        img, box = widen_photo(rng, img, box, policy)
    if real and rng.random() < policy.tilt_share:
        img, box = tilt_about_box(img, box, float(rng.uniform(-180, 180)))
        webcam = True
    if webcam and rng.random() < policy.squash_share:  # a 16:9 frame stretched to a square, after
        fx = rng.uniform(0.5, 0.7)  # the card's tilt: a shear in the index's own axes
        img = cv2.resize(img, None, fx=fx, fy=1.0, interpolation=cv2.INTER_AREA)
        box = (box[0] * fx, box[1], box[2] * fx, box[3])
    if real and policy.small_share and rng.random() < policy.small_share:
        patch = small_index_crop(rng, img, box, size=size)  # a far webcam's 12-18 px index
        return _finish(rng, patch, policy, real)
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    j = 0.12
    x1 += rng.uniform(-j, j) * bw
    x2 += rng.uniform(-j, j) * bw
    y1 += rng.uniform(-j, j) * bh
    y2 += rng.uniform(-j, j) * bh
    patch = crop_corner(img, (x1, y1, x2, y2), size=size)
    if webcam or rng.random() < (0.6 if real else 0.3):  # lower the resolution (~22 px corners)
        side = int(rng.uniform(18, size))
        aspect = rng.uniform(0.55, 1.0) if rng.random() < 0.5 else 1.0
        small = cv2.resize(patch, (max(6, int(side * aspect)), side), interpolation=cv2.INTER_AREA)
        if webcam and rng.random() < policy.sharpen_share:
            small = _sharpen(small, float(rng.uniform(0.5, 1.5)), float(rng.uniform(0.5, 1.5)))
        if webcam and rng.random() < 0.6:
            small = _jpeg(small, int(rng.integers(35, 90)))
        patch = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
    return _finish(rng, patch, policy, real)


def _finish(rng: np.random.Generator, patch: np.ndarray, policy: CropAugmentation,
            real: bool) -> np.ndarray:
    """The rest of `_augment` on a cut crop: shake, focus, exposure, turns, colour, blur,
    noise."""
    patch = _camera_degradation(rng, patch, policy)
    patch = np.rot90(patch, int(rng.integers(4))) if real else patch
    if not real and rng.random() < 0.5:
        patch = np.rot90(patch, 2)
    patch = patch.astype(np.float32)
    patch = patch * rng.uniform(0.75, 1.25) + rng.uniform(-20, 20)
    patch = patch * rng.uniform(0.85, 1.15, 3)
    if rng.random() < (0.5 if real and policy.blur_max > 1.2 else 0.3):  # webcam focus blur
        patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(0.4, policy.blur_max))
    patch += rng.normal(0, rng.uniform(0, 8), patch.shape)
    return np.clip(patch, 0, 255).astype(np.uint8)


def _none_box(rng: np.random.Generator, src: CornerSource) -> tuple[int, tuple]:
    while True:
        i = int(rng.integers(len(src.images)))
        h, w = src.images[i].shape[:2]
        _, ref, _ = src.boxes[int(rng.integers(len(src.boxes)))]
        bw, bh = (
            (ref[2] - ref[0]) * rng.uniform(0.7, 1.5),
            (ref[3] - ref[1]) * rng.uniform(0.7, 1.5),
        )
        x1, y1 = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
        box = (x1, y1, x1 + bw, y1 + bh)
        if all(iou(box, b) < 0.15 for b in src.by_image.get(i, [])):
            return i, box


def sample_batch(rng, synth: list[CornerSource], reals: list[CornerSource], n: int, args):
    """A batch of (patch, namer index) pairs drawn from synthetic, real and "none" samples.

    Each real crop comes from one of `reals` picked with equal odds (a deck with fewer photos
    is not drowned by the other)."""
    policy = CropAugmentation.from_args(args)
    size = args.crop_size or CROP_SIZE
    glyph_policy = replace(policy, tilt_share=0.0, widen_share=0.0)  # any angle, true shape
    patches, labels = [], []
    for _ in range(n):
        r = rng.random()
        real = reals[int(rng.integers(len(reals)))] if reals else None
        if r < args.none_share:
            src = (
                synth[int(rng.integers(len(synth)))]
                if (real is None or rng.random() < 0.6)
                else real
            )
            if src.pips and rng.random() < 0.5:  # a pip or picture the finder boxes
                i, box = src.pips[int(rng.integers(len(src.pips)))]
            else:
                i, box = _none_box(rng, src)
            if policy.small_share and rng.random() < policy.small_share:  # a far webcam's
                patch = small_index_crop(rng, src.images[i], box, size=size)  # pip or table
                patches.append(_finish(rng, patch, CropAugmentation(), real=False))
            else:
                patches.append(
                    _augment(rng, src.images[i], box, CropAugmentation(), real=False, size=size)
                )
            labels.append(NONE_INDEX)
            continue
        if r > 1 - args.glyph_share:  # a procedural index, seen as a webcam sees it
            label = int(rng.integers(NONE_INDEX))
            if rng.random() < args.black_glyph_share:
                label = NAMER_CLASSES.index(NAMER_CLASSES[label][0] + "CS"[int(rng.integers(2))])
            img, box = sample_index(rng, NAMER_CLASSES[label])
            patches.append(_augment(rng, img, box, glyph_policy, real=True, webcam=True, size=size))
            labels.append(label)
            continue
        use_real = real is not None and r < args.none_share + args.real_share
        src = real if use_real else synth[int(rng.integers(len(synth)))]
        i, box, label = src.boxes[int(rng.integers(len(src.boxes)))]
        patches.append(_augment(rng, src.images[i], box, policy, real=use_real, size=size))
        labels.append(src.training_label(label))
    return namer_input(patches), np.array(labels, np.int64)


def _cut_batches(batches, synth, reals, args, worker: int) -> None:
    """A batch worker's loop: cut batches from its own seed into `batches` until stopped."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng([args.seed, worker])
    while True:
        batches.put(sample_batch(rng, synth, reals, args.batch, args))


class BatchWorkers:
    """`count` processes cutting training batches beside the training loop (`--workers`).

    They are started fresh ("spawn", each given a copy of the loaded sources) before torch
    touches a GPU: a process forked from one whose OpenCV and torch thread pools had run could
    hang on a lock no thread would ever free (seen: a test run alone waited for ever). The loop
    takes whichever batch is ready first, so the batches' order depends on timing, not on the
    seed alone."""

    def __init__(self, count: int, synth, reals, args) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.batches = ctx.Queue(maxsize=4 * count)
        self.processes = [
            ctx.Process(target=_cut_batches, args=(self.batches, synth, reals, args, k),
                        daemon=True)
            for k in range(count)
        ]
        for process in self.processes:
            process.start()

    def next(self) -> tuple[np.ndarray, np.ndarray]:
        """The next ready batch; a worker that died (bad data) stops training with its code."""
        while True:
            try:
                return self.batches.get(timeout=5)
            except queue.Empty:
                dead = [p.exitcode for p in self.processes if not p.is_alive()]
                if dead:
                    raise SystemExit(f"a batch worker stopped (exit code {dead[0]})") from None

    def close(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join()


def export_onnx(model, path: Path, crop_size: int = CROP_SIZE) -> None:
    """Export the namer (softmax probabilities, dynamic batch) to ONNX."""
    import torch

    class WithSoftmax(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return card_probabilities(self.inner(x))

    model.eval()
    dummy = torch.zeros(1, 3, crop_size, crop_size)
    torch.onnx.export(
        WithSoftmax(model),
        dummy,
        str(path),
        input_names=["crops"],
        output_names=["probs"],
        dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def train_classifier(args: argparse.Namespace) -> int:
    """Train for `args.minutes`, checkpointing every 200 steps; export ONNX at the end."""
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    device = training_device(args.device)
    write_run_notes(out, device, "classifier")
    print(f"training on {device}")
    synth = [CornerSource(Path(s)) for s in args.synth]
    reals = [CornerSource(Path(folder)) for folder in args.real if folder]
    print(
        f"synth corners {sum(len(s.boxes) for s in synth)}, "
        f"real {' + '.join(str(len(r.boxes)) for r in reals) or 0}"
    )
    for folder, source in zip([f for f in args.real if f], reals, strict=True):
        if source.one_black_suit:
            print(f"{folder}: one black suit only, its clubs and spades teach rank and colour")
    ckpt = out / "namer.pt"
    resumed = (
        torch.load(ckpt, map_location="cpu", weights_only=False)
        if args.resume and ckpt.exists()
        else None
    )
    start_state = None
    frozen_bn = bool(resumed.get("frozen_bn")) if resumed is not None else False
    if resumed is not None:
        widths, crop_size = _checkpoint_widths(resumed), _checkpoint_crop_size(resumed)
    elif args.init.endswith(".onnx"):
        from vision.training.namer_from_onnx import onnx_namer_weights

        onnx_widths, crop_size, onnx_state = onnx_namer_weights(Path(args.init))
        widths, frozen_bn = onnx_widths, True
        start_state = {"model": onnx_state, "widths": list(onnx_widths), "crop_size": crop_size}
        if args.widths not in (None, onnx_widths) or args.crop_size not in (None, crop_size):
            raise SystemExit("--init from ONNX keeps its widths and crop size")
    elif args.init:
        start_state = torch.load(args.init, map_location="cpu", weights_only=False)
        frozen_bn = bool(start_state.get("frozen_bn"))  # a run that started from ONNX
        widths = args.widths or _checkpoint_widths(start_state)
        crop_size = args.crop_size or _checkpoint_crop_size(start_state)
    else:
        widths, crop_size = args.widths or NAMER_WIDTHS, args.crop_size or CROP_SIZE
    args.crop_size = crop_size  # the batches are cut at the model's size
    # started before the model reaches the GPU, each with a copy of the loaded images
    workers = BatchWorkers(args.workers, synth, reals, args) if args.workers > 0 else None
    print(f"{args.workers} batch workers" if workers else "batches cut in the training loop")

    def next_batch() -> tuple[np.ndarray, np.ndarray]:
        return workers.next() if workers else sample_batch(rng, synth, reals, args.batch, args)

    try:
        model, ema, step = _fit(args, rng, next_batch, device, widths, crop_size,
                                start_state, resumed, frozen_bn, ckpt)
    finally:
        if workers is not None:
            workers.close()
    export_onnx((ema if ema is not None else model).cpu(), out / "namer.onnx", crop_size)
    print(f"trained {step} steps; wrote {ckpt} and {out / 'namer.onnx'}")
    return 0


def _fit(args, rng, next_batch, device: str, widths, crop_size: int, start_state, resumed,
         frozen_bn: bool, ckpt: Path):  # -> (model, ema or None, steps done)
    """The training loop of `train_classifier`: the model (from `start_state` or `resumed`),
    trained on `next_batch()` until the time budget ends, checkpointed to `ckpt`."""
    import torch

    out = ckpt.parent
    step = 0
    ema = None
    model = build_model(widths, crop_size)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    if start_state is not None:
        weights = start_state.get("ema") or start_state["model"]
        start_widths = _checkpoint_widths(start_state)
        if widths != start_widths:
            from vision.training.namer_widen import widen_state

            weights = widen_state(weights, start_widths, widths, rng, noise=0.01)
            print(f"widened {args.init} from {start_widths} to {widths}")
        if args.init.endswith(".onnx"):
            from vision.training.namer_from_onnx import load_into

            load_into(model, weights)
        else:
            model.load_state_dict(weights)
    model.to(device)
    if args.ema:
        ema = copy.deepcopy(model).eval()
    if resumed is not None:
        model.load_state_dict(resumed["model"])
        opt.load_state_dict(resumed["opt"])
        step = resumed["step"]
        if ema is not None:
            ema.load_state_dict(resumed.get("ema") or resumed["model"])

    def save() -> None:
        state = {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "step": step,
            "widths": list(widths),
            "crop_size": crop_size,
            "frozen_bn": frozen_bn,
        }
        if ema is not None:
            state["ema"] = ema.state_dict()
        torch.save(state, ckpt)

    budget = args.minutes * 60
    first_step = step
    start = time.time()
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    suit_loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.02)
    log = out / "log.jsonl"
    running = []
    model.train()
    if frozen_bn:
        from vision.training.namer_from_onnx import freeze_batch_norm

        freeze_batch_norm(model)
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:  # cosine decay over the time budget
            g["lr"] = args.lr * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * frac)))
        x, y = next_batch()
        logits = model(torch.from_numpy(x).to(device))
        target = torch.from_numpy(y).to(device)
        loss = namer_loss(logits, target, loss_fn, suit_loss_fn)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if ema is not None:
            done = step - first_step
            _update_ema(ema, model, min(args.ema, (1 + done) / (10 + done)))
        named = target < BLACK_RANK
        read = card_probabilities(logits.detach()).argmax(1)
        acc = float((read[named] == target[named]).float().mean()) if bool(named.any()) else 0.0
        running.append((float(loss.detach()), acc))
        if step % 50 == 0:
            lo, ac = np.mean(running, axis=0)
            running = []
            rate = (step - first_step) * args.batch / max(time.time() - start, 1e-6)
            with log.open("a") as fh:
                fh.write(json.dumps({"step": step, "loss": lo, "acc": ac, "crops_s": rate}) + "\n")
        if step % 200 == 0:
            save()
        if args.export_every and step % args.export_every == 0:
            snapshot = copy.deepcopy(ema if ema is not None else model).cpu()
            export_onnx(snapshot, out / f"namer-step{step}.onnx", crop_size)
    save()
    return model, ema, step


def namer_loss(logits, target, rank_loss_fn, suit_loss_fn):  # torch tensors -> scalar
    """Rank loss on every sample ("none" included) plus suit loss on the cards: the named suit,
    or for a `BLACK_RANK` label "clubs or spades" (-log of their summed probability)."""
    import torch

    black = target >= BLACK_RANK
    is_card = (target < NONE_INDEX) | black
    rank = torch.where(black, target - BLACK_RANK, target % 13)
    rank_t = torch.where(is_card, rank, torch.full_like(target, 13))
    loss = rank_loss_fn(logits[:, :N_RANK_OUT], rank_t)
    suits = logits[:, N_RANK_OUT:]
    named = is_card & ~black
    if bool(named.any()):
        loss = loss + suit_loss_fn(suits[named], target[named] // 13) * named.sum() / is_card.sum()
    if bool(black.any()):
        log_p = torch.log_softmax(suits[black], dim=1)
        either = torch.logsumexp(log_p[:, list(BLACK_SUITS)], dim=1)
        loss = loss - either.sum() / is_card.sum()
    return loss


def _update_ema(ema, model, decay: float) -> None:
    """ema <- decay * ema + (1 - decay) * model, for weights and batch-norm statistics."""
    import torch

    with torch.no_grad():
        for e, m in zip(ema.state_dict().values(), model.state_dict().values(), strict=True):
            if e.dtype.is_floating_point:
                e.mul_(decay).add_(m, alpha=1 - decay)
            else:
                e.copy_(m)


def export_checkpoint(ckpt: Path, onnx_path: Path) -> None:
    """Export a saved namer checkpoint (namer.pt) to ONNX, e.g. while training goes on.

    The weights' moving average is exported when the checkpoint has one (`--ema`).
    """
    import torch

    state = torch.load(ckpt, map_location="cpu", weights_only=False)
    crop_size = _checkpoint_crop_size(state)
    model = build_model(_checkpoint_widths(state), crop_size)
    model.load_state_dict(state.get("ema") or state["model"])
    export_onnx(model, Path(onnx_path), crop_size)


def _checkpoint_widths(state: dict) -> tuple[int, ...]:
    """The stage widths a namer checkpoint was saved with."""
    return tuple(state.get("widths") or NAMER_WIDTHS)


def _checkpoint_crop_size(state: dict) -> int:
    """The crop side a namer checkpoint was trained on (48 before "crop_size" was saved)."""
    return int(state.get("crop_size") or CROP_SIZE)
