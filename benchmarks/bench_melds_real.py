"""Real-photo meld benchmark: is the camera's proposal for a laid-down spread right?

Frames: the real phone photos of a second deck (``vision.training.phone_data``: runs and sets laid
on tables, sofas and bedspreads; whole-card labels give each frame's true cards) and the dev
overhead frames (``../shared/data/real-cards/dev``, corner labels), each read as one player's
spread, exactly as ``gintray read`` reads a photo (``vision.table.reader.read_image``: ``detect``,
then ``read_detections``).

A frame is right only when all of these hold:
- the cards read are exactly the true cards (none missed, none extra, none twice);
- every group the reader fixes is a meld;
- no false meld problem (``invalid_meld``) is reported;
- the deadwood the read carries is the true cards' deadwood: the value of its loose cards, as
  ``gintray read --json`` gives them (no flag is trusted, so a run's fifth card left
  loose beside a four-card run counts as the 9 points it would cost).

Voting: consecutive photos of one scene with the same true cards (a spread photographed several
times, seconds apart) are also fed, in time order, to the live reader's vote
(``vision.table.voting.RegionVoter`` over all of them) and the voted cards grouped as one read.

The phone frames are split by time (``vision.training.phone_data.split_by_time``: whole scenes, the
last 30% held out); figures are given for the held-out side. Frames the exporter may have mirrored
(source split "train") are read as they are and mirrored back, keeping the orientation with more
corner evidence (the sum of the detections' confidences), which uses no label; frames never
mirrored are reported apart, and the held-out frames once more each the right way round as seen
by eye (``vision/training/phone_orientation.csv``; a mirrored camera is flipped back by its
layout, so this is what a table sees). Usage::

    .venv/bin/python benchmarks/bench_melds_real.py [--backend onnx] [--limit N] [--json OUT]
        [--deck DECK.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer import is_meld, min_deadwood, parse_cards  # noqa: E402
from vision.inference.mirror import MirrorSetting  # noqa: E402
from vision.table.events import SpreadRead, TableRead  # noqa: E402
from vision.table.grouping import SeenCard, group_cards  # noqa: E402
from vision.table.reader import read_image  # noqa: E402
from vision.table.spreads import spread_read  # noqa: E402
from vision.table.voting import RegionVoter  # noqa: E402
from vision.training.phone_data import PhoneFrame, load_frames, split_by_time  # noqa: E402

MIN_VOTE_PHOTOS = 3
DEV = ROOT.parent / "shared" / "data" / "real-cards" / "dev"


@dataclass(frozen=True)
class FrameScore:
    """One frame's verdict, each condition apart."""

    name: str
    side: str
    never_mirrored: bool
    cards_exact: bool
    groups_are_melds: bool
    deadwood_right: bool
    arranged_by_engine: bool
    missed: tuple[str, ...]
    extra: tuple[str, ...]
    truth: tuple[str, ...] = ()

    @property
    def right(self) -> bool:
        return self.cards_exact and self.groups_are_melds and self.deadwood_right


def proposal_deadwood(spread: SpreadRead) -> int | None:
    """The deadwood the read carries: its loose cards' value (None when a card is read twice)."""
    try:
        parse_cards(spread.cards)
        loose = parse_cards(spread.loose)
    except ValueError:
        return None
    return sum(card.value for card in loose)


def only_spread(read: TableRead) -> SpreadRead:
    """The one spread of a photo read without a layout."""
    return next(iter(read.spreads.values()))


def read_photo(path: Path, detector: object, unmirror: bool) -> TableRead:
    """Read a photo as ``gintray read`` does; with ``unmirror`` as ``gintray read`` does by
    default (``--mirror auto``: also its mirror image, keeping the view with more corner
    evidence, `vision.inference.mirror`), else only as it is."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return read_image(image, None, detector,
                      MirrorSetting.AUTO if unmirror else MirrorSetting.NO)


def read_as_seen(frame: PhoneFrame, read: TableRead, detector: object) -> TableRead:
    """The photo read the right way round as seen by eye (``frame.seen_mirrored``): ``read``
    when it already was (or nobody could tell), else the photo read again that way."""
    if frame.seen_mirrored is None or read.mirrored == frame.seen_mirrored:
        return read
    image = cv2.imread(str(frame.image), cv2.IMREAD_COLOR)
    return read_image(image, None, detector,
                      MirrorSetting.YES if frame.seen_mirrored else MirrorSetting.NO)


def score_held_out(frames: list[PhoneFrame], detector: object
                   ) -> tuple[list[FrameScore], list[FrameScore]]:
    """The held-out photos' verdicts (as `gintray read` reads them; each the right way round as
    seen by eye), the benchmark's "phone held-out" rows."""
    as_read, by_eye = [], []
    for frame in frames:
        read = read_photo(frame.image, detector, unmirror=frame.may_be_mirrored)
        as_read.append(score_frame(frame.image.stem, "held-out", not frame.may_be_mirrored,
                                   frame.cards, read))
        by_eye.append(score_by_eye(frame, read, detector))
    return as_read, by_eye


def score_by_eye(frame: PhoneFrame, read: TableRead, detector: object) -> FrameScore:
    """A held-out photo's verdict read the right way round as seen by eye."""
    return score_frame(frame.image.stem, "held-out by eye", True, frame.cards,
                       read_as_seen(frame, read, detector))


def score_frame(name: str, side: str, never_mirrored: bool, truth: tuple[str, ...],
                read: TableRead) -> FrameScore:
    spread = only_spread(read)
    seen = [card.code for card in spread.cards]
    truth_set = set(truth)
    deadwood = proposal_deadwood(spread)
    return FrameScore(
        name=name,
        side=side,
        never_mirrored=never_mirrored,
        cards_exact=sorted(seen) == sorted(truth_set) and len(seen) == len(set(seen)),
        groups_are_melds=all(is_meld(g) for g in spread.groups),
        deadwood_right=deadwood == min_deadwood(sorted(truth_set)),
        arranged_by_engine=getattr(spread, "arranged_by_engine", False),
        missed=tuple(sorted(truth_set - set(seen))),
        extra=tuple(sorted(set(seen) - truth_set)),
        truth=tuple(sorted(truth_set)),
    )


def card_figures(scores: list[FrameScore]) -> tuple[str, str]:
    """(card F1, clubs read right) over frames: each true card found once per frame counts."""
    true = sum(len(s.truth) for s in scores)
    found = true - sum(len(s.missed) for s in scores)
    read = found + sum(len(s.extra) for s in scores)
    f1 = 2 * found / (true + read) if true + read else 0.0
    clubs = sum(c.endswith("C") for s in scores for c in s.truth)
    clubs_found = clubs - sum(c.endswith("C") for s in scores for c in s.missed)
    return f"{f1:.3f}", f"{clubs_found}/{clubs}" if clubs else "-"


def seen_cards(read: TableRead) -> list[SeenCard]:
    """The cards of a read as the reader's SeenCard objects (for voting), rounded as the
    read's JSON writes them (as the figures were measured)."""
    return [SeenCard(c["card"], tuple(tuple(b) for b in c["boxes"]), c["confidence"],
                     tuple(c["center"]), c.get("alternative"))
            for c in (seen.to_json() for seen in read.cards)]


def vote_scene(reads: list[TableRead]) -> TableRead:
    """The live reader's vote over a scene's photos, then grouped as one spread."""
    voter = RegionVoter(window=len(reads))
    result = None
    for read in reads:
        result = voter.add(seen_cards(read))
    assert result is not None
    grouping = group_cards(result.cards)
    spread = spread_read("table", grouping, result.confidence)
    return TableRead(up_card=None, spreads={"table": spread}, problems=[],
                     confidence=result.confidence)


def dev_frames() -> list[tuple[str, Path, tuple[str, ...]]]:
    """Dev overhead frames with their labelled cards (corner labels, one code per card)."""
    from vision.inference.classes import yolo_class_names
    from vision.training.synth.scene import class_name_to_code

    names = yolo_class_names(DEV.parent / "data.yaml")
    out = []
    for image in sorted((DEV / "images").glob("*.jpg")):
        label = DEV / "labels" / f"{image.stem}.txt"
        codes = {class_name_to_code(names[int(line.split()[0])])
                 for line in label.read_text().splitlines() if line.strip()}
        out.append((image.stem, image, tuple(sorted(c for c in codes if c))))
    return out


def summary(scores: list[FrameScore]) -> dict[str, object]:
    n = len(scores)

    def share(attr: str) -> str:
        k = sum(getattr(s, attr) for s in scores)
        return f"{k}/{n} ({k / n:.0%})" if n else "-"

    f1, clubs = card_figures(scores)
    return {"frames": n, "card_f1": f1, "clubs_read": clubs, "right": share("right"),
            "cards_exact": share("cards_exact"),
            "groups_are_melds": share("groups_are_melds"),
            "deadwood_right": share("deadwood_right"),
            "arranged_by_engine": share("arranged_by_engine"),
            "right_when_cards_exact": (
                f"{sum(s.right for s in scores if s.cards_exact)}/"
                f"{sum(s.cards_exact for s in scores)}")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=None, help="detector backend (default: portable)")
    parser.add_argument("--limit", type=int, default=None, help="read only N frames a set")
    parser.add_argument("--json", type=Path, help="write every frame's verdict here")
    parser.add_argument("--namer", default=None, help="namer ONNX (default: the shipped one)")
    parser.add_argument("--weights", default=None, help="finder file (default: the shipped one)")
    parser.add_argument("--deck", type=Path, default=None,
                        help="read with this deck profile (gintray deck learn)")
    args = parser.parse_args(argv)
    from vision.inference.cpu import cpu_info
    from vision.inference.detector import default_backend, load_detector

    backend = args.backend or default_backend()
    detector = load_detector(backend, weights=args.weights, namer_weights=args.namer,
                             deck=args.deck)
    print(f"CPU: {cpu_info().describe()} ({platform.node()}); backend {backend}; models "
          f"{', '.join(Path(p).name for p in detector.model_paths)}")
    earlier, held = split_by_time(load_frames())
    scores: list[FrameScore] = []
    started = time.perf_counter()
    votes: list[FrameScore] = []
    for side, frames in (("held-out", held), ("earlier", earlier)):
        scene: list[tuple[object, TableRead]] = []
        for frame in [*frames[: args.limit], None]:
            if scene and (frame is None or (frame.scene, frame.cards) != (
                    scene[0][0].scene, scene[0][0].cards)):
                if len(scene) >= MIN_VOTE_PHOTOS:
                    first = scene[0][0]
                    votes.append(score_frame(f"{first.image.stem}+{len(scene) - 1}", side,
                                             all(not f.may_be_mirrored for f, _ in scene),
                                             first.cards, vote_scene([r for _, r in scene])))
                scene = []
            if frame is None:
                break
            read = read_photo(frame.image, detector, unmirror=frame.may_be_mirrored)
            scene.append((frame, read))
            scores.append(score_frame(frame.image.stem, side, not frame.may_be_mirrored,
                                      frame.cards, read))
            if side == "held-out":
                scores.append(score_by_eye(frame, read, detector))
    for stem, image, truth in dev_frames()[: args.limit]:
        scores.append(score_frame(stem, "dev", True, truth, read_photo(image, detector, False)))
    seconds = time.perf_counter() - started
    rows = {
        "phone held-out (last scenes), all": [s for s in scores if s.side == "held-out"],
        "phone held-out, never mirrored": [s for s in scores
                                           if s.side == "held-out" and s.never_mirrored],
        "phone held-out, each the right way round (by eye)": [
            s for s in scores if s.side == "held-out by eye"],
        "phone earlier scenes, all": [s for s in scores if s.side == "earlier"],
        "dev overhead frames (tuning set)": [s for s in scores if s.side == "dev"],
        "voted: phone held-out scenes (3+ photos)": [v for v in votes if v.side == "held-out"],
        "voted: phone earlier scenes (3+ photos)": [v for v in votes if v.side == "earlier"],
    }
    header = ["set", "frames", "card F1", "clubs read", "right", "cards exact", "groups are melds",
              "deadwood right", "arranged by engine", "right when cards exact"]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for label, group in rows.items():
        s = summary(group)
        print(f"| {label} | {s['frames']} | {s['card_f1']} | {s['clubs_read']} | {s['right']} | "
              f"{s['cards_exact']} | "
              f"{s['groups_are_melds']} | {s['deadwood_right']} | "
              f"{s['arranged_by_engine']} | {s['right_when_cards_exact']} |")
    print(f"{len(scores)} frames read in {seconds:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(
            [{**asdict(s), "right": s.right} for s in [*scores, *votes]], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
