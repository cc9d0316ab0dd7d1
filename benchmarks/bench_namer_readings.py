"""Naming choices on real and synthetic cards with the shipped finder held fixed.

The finder runs once per frame (`CardDetector.find_corners`); every candidate then names the
same corners, with the pair vote, and a corner is kept as the detector keeps it (finder score x
naming probability >= 0.25, named rather than "not a corner"). A candidate is a namer file or
an ensemble: members' probabilities averaged, each member reading the quarter turns given.
``--acceptance`` instead compares acceptance rules (`ACCEPTANCE_GRID`) on the first candidate.

Sets: the dev photos as shared; the same at their camera's true 16:9 aspect
(`perturb.unsqueeze`); the phone deck's held-out scenes (frames the exporter may have mirrored
are read both ways and the orientation with more confidence kept, as
``bench_melds_real.py`` does); optionally a synthetic folder (``gintray synth --out DIR --count 400
--seed 99``). Figures are card F1 (distinct cards per photo) and clubs read. Usage::

    .venv/bin/python benchmarks/bench_namer_readings.py --synth /tmp/synth-val \\
        --candidate shipped=models/gintray-namer.onnx \\
        --candidate pair=models/gintray-namer.onnx@0,2+/tmp/b2-namer.onnx@0,2
    .venv/bin/python benchmarks/bench_namer_readings.py --synth /tmp/synth-val --acceptance
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.inference.corner_crops import NAMER_CLASSES  # noqa: E402
from vision.inference.corner_pairing import vote_pairs  # noqa: E402
from vision.inference.detector import (  # noqa: E402
    CardDetector,
    Namer,
    load_detector,
    read_corner,
)
from vision.training.evaluate import (  # noqa: E402
    apply_label_fixes,
    labelled_frames,
    load_label_fixes,
)
from vision.training.perturb import unsqueeze  # noqa: E402
from vision.training.phone_data import load_frames, split_by_time  # noqa: E402

DEV = ROOT.parent / "shared" / "data" / "real-cards" / "dev"
LABEL_FIXES = ROOT / "models" / "dev_label_fixes.csv"


@dataclass(frozen=True)
class Member:
    """One namer file of a candidate and the quarter turns (0-3) at which it reads a crop."""

    path: Path
    turns: tuple[int, ...] = (0, 1, 2, 3)


@dataclass(frozen=True)
class Candidate:
    label: str
    members: tuple[Member, ...]


def parse_candidate(text: str) -> Candidate:
    """``LABEL=PATH[@K,K..][+PATH[@K,..]]`` -> Candidate (K: quarter turns, default all four)."""
    label, sep, spec = text.partition("=")
    if not sep or not label or not spec:
        raise argparse.ArgumentTypeError(f"want LABEL=PATH[@0,2][+PATH...], got {text!r}")
    members = []
    for part in spec.split("+"):
        path, at, turns = part.partition("@")
        try:
            ks = tuple(int(k) for k in turns.split(",")) if at else (0, 1, 2, 3)
        except ValueError:
            ks = ()
        if not path or not ks or any(k not in range(4) for k in ks):
            raise argparse.ArgumentTypeError(f"{part!r}: want PATH or PATH@K,K (K: 0-3)")
        members.append(Member(Path(path), ks))
    return Candidate(label, tuple(members))


@dataclass(frozen=True)
class AcceptanceRule:
    """Which corners that read a card (`detector.read_corner`) count as read: finder score x
    naming probability >= `product` (the detector's rule at 0.25), or finder >= `finder` and
    naming >= `naming`, or the geometric mean of the two >= `geometric`."""

    label: str
    product: float = 0.0
    finder: float = 0.0
    naming: float = 0.0
    geometric: float = 0.0

    def keeps(self, score: float, naming: float) -> bool:
        return (score * naming >= self.product and score >= self.finder
                and naming >= self.naming and (score * naming) ** 0.5 >= self.geometric)


SHIPPED_RULE = AcceptanceRule("product >= 0.25 (shipped)", product=0.25)
ACCEPTANCE_GRID = (
    SHIPPED_RULE,
    *(AcceptanceRule(f"product >= {t}", product=t) for t in (0.15, 0.20, 0.30)),
    *(AcceptanceRule(f"finder >= {a}, naming >= {b}", finder=a, naming=b)
      for a in (0.15, 0.25) for b in (0.4, 0.6)),
    *(AcceptanceRule(f"geometric mean >= {g}", geometric=g) for g in (0.45, 0.5)),
)


@dataclass(frozen=True)
class NamedCorners:
    """A frame's found corners, their finder scores and (pair-voted) naming probabilities."""

    boxes: np.ndarray
    scores: np.ndarray
    probs: np.ndarray

    def cards(self, rule: AcceptanceRule) -> tuple[set[str], float]:
        """The distinct cards read under `rule` and the sum of their confidences."""
        read, total = set(), 0.0
        for box, score, p in zip(self.boxes, self.scores, self.probs, strict=True):
            reading = read_corner(box, score, p)
            if reading is not None and rule.keeps(float(score), reading.naming):
                read.add(NAMER_CLASSES[reading.card_index])
                total += reading.confidence
        return read, total


class Reader:
    """Names found corners with each candidate (namer files loaded once)."""

    def __init__(self, detector: CardDetector, candidates: list[Candidate]) -> None:
        self.detector = detector
        self.candidates = candidates
        paths = {m.path for c in candidates for m in c.members}
        self.namers = {p: Namer(p, detector.namer.engine) for p in paths}
        crop_size = detector.namer.crop_size
        for path, namer in self.namers.items():
            if namer.crop_size != crop_size:
                raise SystemExit(f"{path} reads {namer.crop_size} px crops, the shipped namer "
                                 f"{crop_size} px: candidates must read the same crops")

    def read(self, frame: np.ndarray) -> dict[str, NamedCorners]:
        found = self.detector.find_corners(frame)
        patches = [self.detector.namer.crop(found.image, tuple(b)) for b in found.boxes]
        out = {}
        for candidate in self.candidates:
            probs = np.mean([self._member_probs(m, patches) for m in candidate.members], axis=0)
            if len(found.boxes) and self.detector.pair_vote:
                probs = vote_pairs(found.boxes, probs)
            out[candidate.label] = NamedCorners(found.boxes, found.scores, probs)
        return out

    def _member_probs(self, member: Member, patches: list[np.ndarray]) -> np.ndarray:
        namer = self.namers[member.path]
        turned = [namer.probabilities([np.rot90(p, k) for p in patches], turns=1)
                  for k in member.turns]
        return np.mean(turned, axis=0)


# (truth cards, readings of each view of the frame: one, or two for a maybe-mirrored photo)
Frame = tuple[set[str], list[dict[str, NamedCorners]]]


def dev_frames(read: Callable, true_aspect: bool) -> Iterator[Frame]:
    fixes = load_label_fixes(LABEL_FIXES)
    for _image, frame, truth in labelled_frames(DEV):
        apply_label_fixes(truth, fixes)
        if true_aspect:
            frame, _ = unsqueeze(frame, np.array([box for _, box in truth.boxes], float))
        yield set(truth.cards), [read(frame)]


def phone_frames(read: Callable) -> Iterator[Frame]:
    _earlier, held = split_by_time(load_frames())
    for frame in held:
        image = cv2.imread(str(frame.image), cv2.IMREAD_COLOR)
        views = [image, cv2.flip(image, 1)] if frame.may_be_mirrored else [image]
        yield set(frame.cards), [read(view) for view in views]


def synth_frames(read: Callable, folder: Path) -> Iterator[Frame]:
    for _image, frame, truth in labelled_frames(folder):
        yield set(truth.cards), [read(frame)]


@dataclass(frozen=True)
class Score:
    f1: float
    clubs_read: int
    clubs: int


def score(frames: list[Frame], label: str, rule: AcceptanceRule) -> Score:
    tp = n_read = n_true = clubs_read = clubs = 0
    for truth, views in frames:
        read = max((v[label].cards(rule) for v in views), key=lambda c: c[1])[0]
        tp += len(read & truth)
        n_read += len(read)
        n_true += len(truth)
        true_clubs = {c for c in truth if c.endswith("C")}
        clubs_read += len(true_clubs & read)
        clubs += len(true_clubs)
    p = tp / n_read if n_read else 0.0
    r = tp / n_true if n_true else 0.0
    return Score(2 * p * r / (p + r) if p + r else 0.0, clubs_read, clubs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", type=parse_candidate, action="append", default=[],
                        help="LABEL=PATH[@0,2][+PATH[@1,3]] (default: the shipped namer)")
    parser.add_argument("--acceptance", action="store_true",
                        help="compare the acceptance rules on the first candidate")
    parser.add_argument("--synth", type=Path, help="a synthetic YOLO folder to read too")
    parser.add_argument("--backend", default=None)
    args = parser.parse_args(argv)
    from vision.inference.cpu import cpu_info
    from vision.inference.detector import DEFAULT_NAMER_ONNX, default_backend

    candidates = args.candidate or [Candidate("shipped", (Member(DEFAULT_NAMER_ONNX),))]
    detector = load_detector(args.backend or default_backend())
    reader = Reader(detector, candidates[:1] if args.acceptance else candidates)
    print(f"CPU: {cpu_info().describe()} ({platform.node()}); finder "
          f"{Path(detector.model_paths[0]).name}")
    started = time.perf_counter()
    sets = {
        "dev": list(dev_frames(reader.read, true_aspect=False)),
        "dev at 16:9": list(dev_frames(reader.read, true_aspect=True)),
        "phone held-out": list(phone_frames(reader.read)),
    }
    if args.synth:
        sets["synthetic"] = list(synth_frames(reader.read, args.synth))
    rows = ([(r.label, candidates[0].label, r) for r in ACCEPTANCE_GRID] if args.acceptance
            else [(c.label, c.label, SHIPPED_RULE) for c in candidates])
    header = [*sets, "mean without dev"]
    print("| candidate | " + " | ".join(header) + " |")
    print("|" + " --- |" * (len(header) + 1))
    for title, label, rule in rows:
        scores = [score(frames, label, rule) for frames in sets.values()]
        mean = float(np.mean([s.f1 for s in scores[1:]]))
        cells = [f"{s.f1:.4f} (clubs {s.clubs_read}/{s.clubs})" for s in scores]
        print(f"| {title} | " + " | ".join(cells) + f" | {mean:.4f} |")
    print(f"{sum(len(f) for f in sets.values())} frames in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
