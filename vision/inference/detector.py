"""Find and name the cards in a camera frame: corner finder + card namer.

`load_detector("onnx")` (default, onnxruntime, no torch), `"opencv"` (OpenCV DNN on the same ONNX
files), `"ncnn"` (the corner finder's NCNN export, for ARM boards: vision/inference/ncnn_finder.py;
the namer stays on onnxruntime) or `"ultralytics"` (the .pt corner finder through
ultralytics/torch); GINTRAY_BACKEND picks the default. Both shipped ONNX files are float: int8
kernels read differently on CPUs with and without VNNI (models/MODEL_CARD.md, "Same cards on
every CPU"), float ones read the same cards.
The corner finder is a one-class YOLO that boxes every corner index; the namer is a small CNN
that reads each box's crop and names the card (or rejects it). Frames are brought to the model's
working scale (corner indices some 15-60 px) and read whole; when the indices come out small (or
a big photo shows none) a finer pass reads the frame enlarged, in overlapping tiles. A camera
that sees indices smaller than that is read in native-scale tiles instead (`DetectorSettings`,
`CardDetector.with_settings`). Both tiled reads are the one tiler of vision/inference/tiling.py
(`in_tiles`: one tile layout, one rule for merging overlapping boxes, `merge_overlaps`).
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

import cv2
import numpy as np

from vision.inference.card_face import on_card_faces
from vision.inference.corner_crops import CROP_SIZE, NAMER_CLASSES, crop_corner, namer_input
from vision.inference.corner_pairing import vote_pairs
from vision.inference.deck import (
    FEATURE_OUTPUT,
    DeckProfile,
    DeckProfileError,
    file_sha256,
    load_profile,
    with_extra_output,
)
from vision.inference.denoise import smooth_noise
from vision.inference.detection import Detection, Detections
from vision.inference.exposure import normalise_light
from vision.inference.tiling import DetectorSettings, in_tiles, merge_overlaps, read_in_tiles

REPO_ROOT = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO_ROOT / "models"
DEFAULT_CORNERS_ONNX = MODELS_DIR / "gintray-corners.onnx"
DEFAULT_CORNERS_PT = MODELS_DIR / "gintray-corners.pt"
DEFAULT_NAMER_ONNX = MODELS_DIR / "gintray-namer.onnx"
BACKENDS = ("onnx", "opencv", "ncnn", "ultralytics")
DEFAULT_BACKEND = "onnx"  # the same cards on x86 (with or without VNNI) and ARM64: measured
DEFAULT_TURNS = 4  # quarter turns at which the namer reads each crop (1, 2 or 4)
# a runner-up reading at least this share as likely as the best is reported as the alternative
ALTERNATIVE_SHARE = 0.1
# Scale policy (CardDetector._corners): corner indices under SMALL_INDEX work pixels (median
# sqrt(w x h) of the finder's boxes scoring SIZE_SCORE or more) get a finer second pass that
# brings them to about FINE_INDEX pixels (at least twice the first pass's scale), at most
# MAX_UPSCALE times the frame's native resolution.
SMALL_INDEX = 24.0
SIZE_SCORE = 0.3
SIZE_SAMPLES = 4  # fewer sure corners say nothing about the scale (a stray box, an edge tile)
FINE_TILE_OVERLAP = 0.2  # the finer pass's tiles overlap by a fifth of a tile
# The finer pass keeps a box cut by an inner tile edge (clipped to its tile) where the native
# tiles drop it: the shipped reading, which the doctor's reference (vision/demo/
# doctor_reference.json) pins. Dropping it here too (the same tiler rule for both) boxes no corner
# twice and reads dev and the phone photos the same (vision/README.md, "One tiler"); switch it
# together with `gintray doctor --record-reference` for every backend.
FINE_DROPS_CUT = False
FINE_INDEX = 32.0  # the finder's design minimum is 20 px; 16 px indices read best at 2x
MAX_UPSCALE = 3.0  # a far camera's 12 px indices enlarged with the frame (robustness sweep)


class DetectorUnavailable(RuntimeError):
    """The model files (or the backend's library) are missing."""


class CornerFinder(Protocol):
    """Boxes every corner index in an image already at the model's scale."""

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N x 4 boxes x1, y1, x2, y2 in image pixels, N scores)."""
        ...


def _letterbox(image: np.ndarray, imgsz: int, square: bool) -> tuple[np.ndarray, float]:
    """Resize to fit imgsz (never up), pad bottom/right to imgsz or to a multiple of 32."""
    h, w = image.shape[:2]
    r = min(imgsz / max(h, w), 1.0)
    if r < 1.0:
        image = cv2.resize(image, (round(w * r), round(h * r)), interpolation=cv2.INTER_AREA)
    h2, w2 = image.shape[:2]
    th, tw = (imgsz, imgsz) if square else (math.ceil(h2 / 32) * 32, math.ceil(w2 / 32) * 32)
    padded = np.full((th, tw, 3), 114, np.uint8)
    padded[:h2, :w2] = image
    return padded, r


def _resize(image: np.ndarray, scale: float) -> np.ndarray:
    if scale == 1.0:
        return image
    h, w = image.shape[:2]
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=interp)


def _blob(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image[:, :, ::-1].transpose(2, 0, 1)[None], np.float32) / 255.0


def _median_side(boxes: np.ndarray) -> float | None:
    """Median sqrt(width x height) of x1, y1, x2, y2 boxes (None for no box)."""
    if len(boxes) == 0:
        return None
    sides = np.sqrt(
        np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)
    )
    return float(np.median(sides))


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float = 0.5):
    """The finder's own non-maximum suppression of the x1, y1, x2, y2 boxes of one inference
    (as its YOLO export would do it, `iou` being the finder's setting); returns the kept boxes
    and scores. Passes and tiles are merged by `tiling.merge_overlaps`."""
    if len(scores) == 0:
        return boxes.reshape(-1, 4).astype(np.float32), scores.astype(np.float32)
    xywh = [[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes]
    idx = np.array(cv2.dnn.NMSBoxes(xywh, scores.tolist(), 0.0, iou), dtype=int).reshape(-1)
    return boxes[idx].astype(np.float32), scores[idx].astype(np.float32)


def _decode_yolo(out: np.ndarray, conf: float, iou: float, ratio: float):
    """Ultralytics YOLO head output (1, 4 + classes, N) -> NMS'd boxes and scores."""
    pred = out[0]
    scores = pred[4:].max(axis=0)
    keep = scores >= conf
    if not keep.any():
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    cx, cy, w, h = pred[:4, keep]
    scores = scores[keep]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1) / ratio
    return _nms(boxes, scores, iou)


def _threads() -> int:
    """Inference threads: GINTRAY_THREADS, else 1 (fastest on a busy 2-core box, measured)."""
    return max(1, int(os.environ.get("GINTRAY_THREADS", "1")))


class OnnxCornerFinder:
    """The corner finder's ONNX export run by onnxruntime."""

    def __init__(self, path: Path, imgsz: int = 640, conf: float = 0.1, iou: float = 0.5):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0]
        self.square = not isinstance(self.input.shape[2], str)
        self.imgsz, self.conf, self.iou = imgsz, conf, iou

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        padded, r = _letterbox(image, self.imgsz, self.square)
        out = self.session.run(None, {self.input.name: _blob(padded)})[0]
        return _decode_yolo(out, self.conf, self.iou, r)


class OpenCVCornerFinder:
    """The same ONNX corner finder run by OpenCV's DNN module."""

    def __init__(self, path: Path, imgsz: int = 640, conf: float = 0.1, iou: float = 0.5):
        cv2.setNumThreads(_threads())
        self.net = cv2.dnn.readNetFromONNX(str(path))
        self.imgsz, self.conf, self.iou = imgsz, conf, iou

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        padded, r = _letterbox(image, self.imgsz, square=True)
        self.net.setInput(_blob(padded))
        out = self.net.forward()
        return _decode_yolo(np.asarray(out), self.conf, self.iou, r)


class UltralyticsCornerFinder:
    """The corner finder's .pt checkpoint run by ultralytics (needs torch)."""

    def __init__(self, path: Path, imgsz: int = 640, conf: float = 0.1, iou: float = 0.5):
        os.environ.setdefault("YOLO_OFFLINE", "1")
        try:
            from ultralytics import YOLO
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise DetectorUnavailable(
                "the ultralytics backend needs `pip install .[train]`"
            ) from exc
        self.model = YOLO(str(path), task="detect")
        self.imgsz, self.conf, self.iou = imgsz, conf, iou

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        res = self.model.predict(
            image, imgsz=self.imgsz, conf=self.conf, iou=self.iou, verbose=False, device="cpu"
        )[0]
        return res.boxes.xyxy.numpy().astype(np.float32), res.boxes.conf.numpy().astype(np.float32)


def _namer_crop_size(session) -> int:
    """The crop side an ONNX namer reads, from its input's fixed height (48 if not fixed)."""
    side = session.get_inputs()[0].shape[2]
    return side if isinstance(side, int) and side > 0 else CROP_SIZE


class Namer:
    """Names a batch of corner crops with the namer CNN (onnxruntime or OpenCV DNN).

    `crop_size` is the side of the square crop the model reads, taken from the model file.
    With a `deck` profile (`vision.inference.deck`) its probabilities are read with that deck
    (on onnxruntime whatever the engine); `with_features` also gives the features a profile is
    fitted on (`features`). Without either the model file is run exactly as it is.
    """

    def __init__(self, path: Path, engine: str = "onnx", deck: DeckProfile | None = None,
                 with_features: bool = False):
        import onnxruntime as ort

        self.engine = engine
        self.path = Path(path)
        self.deck = deck
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        self.feature_output = deck.feature_output if deck is not None else FEATURE_OUTPUT
        self.with_features = deck is not None or with_features
        if self.with_features:
            model = self.path.read_bytes()
            self.sha256 = hashlib.sha256(model).hexdigest()
            if deck is not None:
                deck.check_namer(self.sha256, self.path)
            try:
                session = ort.InferenceSession(with_extra_output(model, self.feature_output),
                                               opts, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime's own error types
                raise DeckProfileError(f"namer {self.path} has no feature layer "
                                       f"{self.feature_output!r} ({exc})") from None
        else:
            session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.crop_size = _namer_crop_size(session)
        if engine == "opencv" and not self.with_features:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        else:
            self.session = session

    def crop(self, image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
        """The patch of `image` around a corner box, at the size this namer reads."""
        return crop_corner(image, box, size=self.crop_size)

    def probabilities(self, patches: list[np.ndarray], turns: int = 4) -> np.ndarray:
        """(N, 53) class probabilities, the last column being "not a corner".

        A corner index names the same card whichever way it is turned, so the crop is read at
        `turns` quarter turns (1, 2 or 4) and the probabilities averaged. With a deck profile
        each turn's reading is the deck's (`DeckProfile.adapt`).
        """
        if not patches:
            return np.zeros((0, len(NAMER_CLASSES)), np.float32)
        if self.deck is None:
            probs = self._run(namer_input(patches, turns))
        else:
            probs = self.deck.adapt(*self._run_with_features(namer_input(patches, turns)))
        return probs.reshape(turns, len(patches), -1).mean(axis=0)

    def features(self, patches: list[np.ndarray], turns: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The namer's own (turns, N, 53) probabilities and (turns, N, F) features of crops at
        `turns` quarter turns (needs `with_features` or a deck)."""
        probs, features = self._run_with_features(namer_input(patches, turns))
        n = len(patches)
        return probs.reshape(turns, n, -1), features.reshape(turns, n, -1)

    def _run_with_features(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not self.with_features:
            raise ValueError("this namer was loaded without its features (with_features=True)")
        probs, features = self.session.run(
            [self.session.get_outputs()[0].name, self.feature_output],
            {self.session.get_inputs()[0].name: x})
        return probs, features

    def _run(self, x: np.ndarray) -> np.ndarray:
        if self.engine == "opencv" and not self.with_features:
            out = []
            for i in range(len(x)):  # OpenCV DNN with a fixed batch of 1
                self.net.setInput(x[i : i + 1])
                out.append(np.asarray(self.net.forward()).reshape(1, -1))
            return np.concatenate(out)
        return self.session.run(None, {self.session.get_inputs()[0].name: x})[0]


class FinderBox(NamedTuple):
    """One box the corner finder drew, not yet named (``card`` None): what the tiler merges in
    the finer pass (`tiling.Boxed`)."""

    box: tuple[float, float, float, float]
    confidence: float
    card: None = None

    def moved(self, box) -> FinderBox:
        return self._replace(box=tuple(box))


def _finder_boxes(boxes: np.ndarray, scores: np.ndarray) -> list[FinderBox]:
    return [FinderBox(tuple(box), score) for box, score in zip(boxes, scores, strict=True)]


def _as_arrays(found: list[FinderBox], scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (float32, divided by ``scale``) and scores of finder boxes."""
    boxes = np.array([f.box for f in found], np.float32).reshape(-1, 4)
    scores = np.array([f.confidence for f in found], np.float32)
    return (boxes / scale if scale != 1.0 else boxes), scores


class CornerReading(NamedTuple):
    """What a found corner reads: the namer class, its probability, and the confidence (finder
    score x that probability, at most 1)."""

    card_index: int
    naming: float
    confidence: float


def read_corner(box, score: float, probs: np.ndarray) -> CornerReading | None:
    """The reading of one found corner from its (pair-voted) namer probabilities; None for a
    box clipped away at the frame's edge or a corner more likely "not a corner" than any card.
    The detector keeps it when the confidence reaches its threshold."""
    x1, y1, x2, y2 = (float(v) for v in box)
    k = int(np.argsort(probs[:-1])[-1])  # the order `detect` takes its runner-up from
    if x1 >= x2 or y1 >= y2 or probs[k] < probs[-1]:
        return None
    naming = float(probs[k])
    return CornerReading(k, naming, min(1.0, float(score) * naming))  # float32 rounding


@dataclass(frozen=True)
class FoundCorners:
    """The finder's corners in a frame, before they are named (`CardDetector.find_corners`)."""

    image: np.ndarray  # the frame both models read (light-normalised when the detector does)
    boxes: np.ndarray  # N x 4 float32 (x1, y1, x2, y2) in `image` pixels, clipped to it
    scores: np.ndarray  # N finder scores


class CardDetector:
    """Corner finder + namer with the frame-scale policy and tiling for big photos.

    ``settings`` (`DetectorSettings`): whole frames (default), or native-scale tiles each read
    as a frame (a layout's ``detector_scale``, `gintray read --tile`). It reads any crop of a
    frame as well as the whole (``reads_regions``: the live reader's changed regions).
    """

    reads_regions = True

    def __init__(
        self,
        finder: CornerFinder,
        namer: Namer,
        model_paths: tuple[Path, ...] = (),
        min_confidence: float = 0.25,
        work_side: int = 640,
        tile_above: int = 1600,
        max_corners: int = 120,
        max_upscale: float = MAX_UPSCALE,
        turns: int = DEFAULT_TURNS,
        pair_vote: bool = True,
        normalise_light: bool = True,
        settings: DetectorSettings | None = None,
        face_check: bool = True,
    ) -> None:
        self.finder = finder
        self.namer = namer
        self.model_paths = model_paths  # the files the finder and namer were loaded from
        self.min_confidence = min_confidence
        self.work_side = work_side
        self.tile_above = tile_above
        self.max_corners = max_corners
        self.max_upscale = max_upscale  # the finer pass enlarges the frame at most this much
        self.turns = turns
        self.pair_vote = pair_vote
        self.normalise_light = normalise_light  # exposure.py's light, then denoise.py
        self.settings = settings or DetectorSettings()
        self.face_check = face_check  # corners with no card face around them dropped
        self.finder_passes = 0  # finder passes run: a recorded clip's re-reads are paid in them

    def without_deck(self) -> CardDetector:
        """This detector (same models) reading as shipped, without its deck profile."""
        if getattr(self.namer, "deck", None) is None:
            return self
        other, namer = copy.copy(self), copy.copy(self.namer)
        namer.deck = None
        other.namer = namer
        return other

    def with_settings(self, settings: DetectorSettings) -> CardDetector:
        """This detector (the same loaded models) cutting frames as ``settings`` say."""
        other = copy.copy(self)
        other.settings = settings
        return other

    def _corners(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Corner boxes in `image` pixels and their scores: the scale policy.

        One pass with the long side at `work_side` (a 1280x720 webcam frame runs once at
        640x360). The corner indices that pass finds say whether it saw them at the finder's
        scale: when they are small (median side under `SMALL_INDEX` work pixels, judged on at
        least `SIZE_SAMPLES` sure corners) or when it found none in a big photo, a second pass
        reads the frame, cut into overlapping `work_side` tiles (`tiling.in_tiles`), at a finer
        scale, and the passes are merged by the tiler's rule (`tiling.merge_overlaps`). Small
        indices are brought to about `FINE_INDEX` pixels (at least twice the first pass's
        scale), a big photo without corners is read at twice the scale; the frame is enlarged
        at most `max_upscale` times (enough for a far camera's 12-16 px indices), and a pass capped
        under twice the first one's scale is not made. Indices already big enough get no second
        pass: at a finer scale pips and faces start to look like indices (figures in
        models/MODEL_CARD.md, "Robustness sweep").
        """
        h, w = image.shape[:2]
        scale = min(1.0, self.work_side / max(h, w))
        boxes, scores = self._find(_resize(image, scale))
        boxes = boxes / scale
        sure = boxes[scores >= SIZE_SCORE] * scale
        size = _median_side(sure) if len(sure) >= SIZE_SAMPLES else None
        small = size is not None and size < SMALL_INDEX
        lost = len(sure) == 0 and max(h, w) > self.tile_above
        if not (small or lost):
            return boxes, scores
        fine = min(scale * max(2.0, FINE_INDEX / size) if small else 2 * scale,
                   self.max_upscale)
        if fine < 2 * scale:  # capped: too little finer to be worth a pass
            return boxes, scores
        return _as_arrays(merge_overlaps(_finder_boxes(boxes, scores) + self._tiled(image, fine)))

    def _find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One corner-finder pass (counted in `finder_passes`)."""
        self.finder_passes += 1
        return self.finder.find(image)

    def _tiled(self, image: np.ndarray, scale: float) -> list[FinderBox]:
        """Corners found in overlapping `work_side` tiles of the image at `scale`, by the one
        tiler (`tiling.in_tiles`); boxes in `image` pixels (float32, as the first pass's)."""

        def find(tile: np.ndarray) -> list[FinderBox]:
            boxes, scores = self._find(tile)
            th, tw = tile.shape[:2]
            boxes = np.clip(boxes.reshape(-1, 4), 0, [tw, th, tw, th])  # boxes end at the tile
            return _finder_boxes(boxes, scores)

        found = in_tiles(_resize(image, scale), find, self.work_side, FINE_TILE_OVERLAP,
                         drop_cut=FINE_DROPS_CUT)
        return _finder_boxes(*_as_arrays(found, scale))

    def detect(self, image_bgr: np.ndarray, min_confidence: float | None = None) -> Detections:
        """Every named corner index in a BGR frame, best first (score = found x named).

        With `pair_vote`, two found corners that look like the two indices of one card are
        named together (`vision.inference.corner_pairing.vote_pairs`). A detection whose runner-up
        card is at least `ALTERNATIVE_SHARE` as likely as its card names it as its `alternative`.
        With tiled ``settings`` each native-scale tile is read so (`tiling.read_in_tiles`); the
        boxes are in the frame's pixels either way.
        """
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("detect() wants an H x W x 3 BGR image")
        if self.settings.tiled:
            return read_in_tiles(image_bgr, lambda tile: self._detect_frame(tile, min_confidence),
                                 self.settings)
        return self._detect_frame(image_bgr, min_confidence)

    def find_corners(self, image_bgr: np.ndarray, scale: float | None = None) -> FoundCorners:
        """The corners of one whole frame (or tile), unnamed: light normalisation and noise
        smoothing, the scale policy (`_corners`), boxes clipped to the frame, at most
        `max_corners` (best kept). A caller that knows how big the indices are (a photo of a
        laid-out deck) gives the `scale` to read the frame at, in tiles, instead of the policy."""
        if self.normalise_light:  # both models read the normalised frame
            image_bgr = smooth_noise(normalise_light(image_bgr))
        boxes, scores = (self._corners(image_bgr) if scale is None
                         else _as_arrays(self._tiled(image_bgr, scale)))
        h, w = image_bgr.shape[:2]
        boxes = np.clip(boxes, 0, [w, h, w, h]).astype(np.float32)
        return FoundCorners(image_bgr, *_best_corners(boxes, scores, self.max_corners))

    def _detect_frame(self, image_bgr: np.ndarray, min_confidence: float | None) -> Detections:
        """`detect` on one frame (or tile): light, scale policy, card faces, names, pair votes."""
        threshold = self.min_confidence if min_confidence is None else min_confidence
        corners = self.find_corners(image_bgr)
        boxes, scores = corners.boxes, corners.scores
        if self.face_check:  # a corner with no card face around it is no card's
            boxes, scores = on_card_faces(corners.image, boxes, scores)
        patches = [self.namer.crop(corners.image, tuple(b)) for b in boxes]
        probs = self.namer.probabilities(patches, self.turns)
        if self.pair_vote:  # a card's two indices vote on its name
            probs = vote_pairs(boxes, probs)
        found = (_named_corner(box, score, p, threshold)
                 for box, score, p in zip(boxes, scores, probs, strict=True))
        return Detections([d for d in found if d is not None]).best_first()


def _best_corners(boxes: np.ndarray, scores: np.ndarray,
                  most: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``most`` corners, the best scored kept."""
    if len(scores) <= most:
        return boxes, scores
    top = np.argsort(-scores)[:most]
    return boxes[top], scores[top]


def _named_corner(box: np.ndarray, score: float, probs: np.ndarray,
                  threshold: float) -> Detection | None:
    """One found corner as a detection (None: no card, or under ``threshold``); its runner-up
    card, when at least `ALTERNATIVE_SHARE` as likely, is its ``alternative`` (its score,
    found x named, the ``alternative_confidence``)."""
    reading = read_corner(box, score, probs)
    if reading is None or reading.confidence < threshold:
        return None
    k = reading.card_index
    runner_up = int(np.argsort(probs[:-1])[-2])
    doubt = probs[runner_up] >= ALTERNATIVE_SHARE * probs[k]
    share = min(1.0, float(probs[runner_up]) / max(float(probs[k]), 1e-9))
    return Detection(NAMER_CLASSES[k], tuple(float(v) for v in box), reading.confidence,
                     NAMER_CLASSES[runner_up] if doubt else None,
                     reading.confidence * share if doubt else None)


def default_backend() -> str:
    """GINTRAY_BACKEND when set (onnx, opencv, ncnn or ultralytics), else DEFAULT_BACKEND."""
    return os.environ.get("GINTRAY_BACKEND", "").strip() or DEFAULT_BACKEND


def load_detector(
    backend: str | None = None,
    weights: str | Path | None = None,
    namer_weights: str | Path | None = None,
    imgsz: int = 640,
    deck: str | Path | None = None,
    **kwargs,
) -> CardDetector:
    """A ready CardDetector (backend None: `default_backend()`), its namer reading with the
    deck profile file `deck` when one is given; raises DetectorUnavailable when a model file is
    missing or the profile cannot be used (edited, corrupt, for another namer: the message
    says which, `vision.inference.deck`) and ValueError for an unknown backend."""
    backend = backend or default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    default = DEFAULT_CORNERS_PT if backend == "ultralytics" else DEFAULT_CORNERS_ONNX
    if backend == "ncnn":  # imported here: ncnn_finder imports this module
        from vision.inference import ncnn_finder

        default = ncnn_finder.DEFAULT_CORNERS_NCNN
    corner_path = Path(weights) if weights else default
    namer_path = Path(namer_weights) if namer_weights else DEFAULT_NAMER_ONNX
    for path in (corner_path, namer_path):
        if not path.exists():
            raise DetectorUnavailable(f"model file missing: {path}")
    finder: CornerFinder
    finder_files: tuple[Path, ...] = (corner_path,)
    if backend == "onnx":
        finder = OnnxCornerFinder(corner_path, imgsz)
    elif backend == "opencv":
        finder = OpenCVCornerFinder(corner_path, imgsz)
    elif backend == "ncnn":
        ncnn = ncnn_finder.NcnnCornerFinder(corner_path, imgsz)
        finder, finder_files = ncnn, ncnn.files  # the graph and its weights
    else:
        finder = UltralyticsCornerFinder(corner_path, imgsz)
    try:  # a profile it cannot use is a detector that cannot be had as asked
        profile = load_profile(deck) if deck is not None else None
        namer = Namer(namer_path, "opencv" if backend == "opencv" else "onnx", deck=profile)
    except DeckProfileError as exc:
        raise DetectorUnavailable(str(exc)) from exc
    return CardDetector(finder, namer, (*finder_files, namer_path), **kwargs)


def check_shipped_namer(profile: DeckProfile) -> DeckProfile:
    """`profile` when it was fitted on the shipped namer, else DeckProfileError saying so."""
    profile.check_namer(file_sha256(DEFAULT_NAMER_ONNX), DEFAULT_NAMER_ONNX)
    return profile
