"""Teach the dev deck from the training photos' corners and read the dev photos with it.

Run:  GINTRAY_THREADS=1 .venv/bin/python benchmarks/bench_deck.py [--per-card 3] [--source phone]
          [--out /tmp/dev-deck.json] [--no-baseline]
      GINTRAY_THREADS=1 .venv/bin/python benchmarks/bench_deck.py --phone [--per-card 3]
          [--out /tmp/phone-deck.json]
      GINTRAY_THREADS=1 .venv/bin/python benchmarks/bench_deck.py --unseen-decks [--scenes 100]
          [--spreads 30] [--out /tmp/unseen-decks]

Teaching corners: for each of the 52 cards, its labelled corner boxes in the first `--per-card`
photos (sorted by name) of `../shared/data/real-cards/train` that show it (`--source phone`: the
phone close-ups IMG_*, `webcam`: the cards held to a webcam, `all`: both). Dev is never taught
from (the train and dev photos are separate sets). The profile is fitted by
`vision.deck.teach.teach_deck` (the same code as `gintray deck learn`), timed in CPU seconds
(one thread: GINTRAY_THREADS=1), and written to `--out`; then `gintray eval-detector`'s scoring
(`vision.training.evaluate.evaluate_folder`, labelled boxes too) reads dev without and with it.

`--unseen-decks`: the decks the namer never saw (`vision.training.synth.unseen_decks`: Berlin's
B/D/K, a four-colour deck, a jumbo-index deck). For each, one picture of the deck laid out in the
set order (`laid_out_picture`, then a table camera's light, focus, noise and JPEG by
`vision.training.perturb`) is taught as `gintray deck learn --layout` teaches it
(`vision.deck.layout.laid_out_photo`, `teach_deck`), and `--scenes` synthetic scenes of that
deck alone (`gintray synth`'s generator, 640 px, its cards `TABLE_CARD_WIDTH` wide as a table
camera sees them; `--training-sizes`: the training range, twice that) are read without and with
its profile. `--spreads N`: then N frames of two players' gin spreads of each deck (melds fanned
and stacked, loose cards, on the demo's felt at its card size: `vision.training.synth.spreads`)
read without and with the profile, beside the same spreads drawn with the deck it derives from
(`kde-standard`, trained).

`--phone`: the second deck (`../shared/data/real-cards-phone`), taught from its earlier scenes only
(`vision.training.phone_data.split_by_time`: whole scenes, the last 30 % held out, so photos
seconds apart are never on both sides), corners found in its whole-card boxes as
`vision.training.phone_corners` finds them, `--per-card` photos a card from different scenes;
then its held-out photos are read as `benchmarks/bench_melds_real.py` reads them (proposals
right: cards exact, melds, deadwood) without and with the profile.

Pi 5 estimate (the method of hardware/pi/detector_formats.md): the published Pi 5 time of one
YOLO11n ONNX pass at 640 (168.082 ms) over this CPU's one-thread time of a 640x640 pass of the
shipped corner finder (a YOLO11n) measured here, times the CPU seconds taught here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from vision.inference.cpu import cpu_info
from vision.training.evaluate import (
    cards_f1,
    evaluate_folder,
    labelled_frames,
    load_label_fixes,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "real-cards"
PI5_YOLO11N_ONNX_MS = 168.082  # Ultralytics' Raspberry Pi guide, Pi 5, FP32, 640
#: the scenes' card widths at 640 px (before the 16:9 squash some scenes get): the phone deck's
#: ~170 px cards (25-35 px indices) down to a far webcam's; the training generator's range at
#: 640 px is twice this (140-340 px cards, indices up to 120 px and more: closer than a table
#: camera sees, and where the finder misses most)
TABLE_CARD_WIDTH = (70.0, 170.0)


def is_phone_photo(path: Path) -> bool:
    """The train folder's phone close-ups are IMG_*; the webcam frames are named CARD-uuid."""
    return path.name.startswith("IMG_")


def teaching_corners(folder: Path, per_card: int, source: str):
    """TaughtCorners of every card from the first `per_card` photos that show it."""
    from vision.deck.teach import TaughtCorner

    photos: dict[str, int] = {}
    corners = []
    for path, frame, truth in labelled_frames(folder):
        if frame is None or (source != "all" and is_phone_photo(path) != (source == "phone")):
            continue
        for card in sorted(truth.cards):
            if photos.get(card, 0) >= per_card:
                continue
            photos[card] = photos.get(card, 0) + 1
            corners += [TaughtCorner(card, frame, box, path.name)
                        for code, box in truth.boxes if code == card]
    return corners


def finder_pass_ms(runs: int = 10) -> float:
    """Median one-thread time of one 640x640 pass of the shipped corner finder here."""
    from vision.inference.detector import DEFAULT_CORNERS_ONNX, OnnxCornerFinder

    finder = OnnxCornerFinder(DEFAULT_CORNERS_ONNX)
    image = np.random.default_rng(0).integers(0, 255, (640, 640, 3), np.uint8)
    finder.find(image)
    times = []
    for _ in range(runs):
        started = time.process_time()
        finder.find(image)
        times.append(time.process_time() - started)
    return float(np.median(times)) * 1000


def summary(report: dict) -> dict:
    alone = report.get("namer_on_labelled_boxes", {})
    return {"card_f1": report["card_f1"], "precision": report["card_precision"],
            "recall": report["card_recall"], "map50": report["map50"],
            "namer_alone": alone.get("card_accuracy"),
            "confusions": report.get("top_confusions", [])[:5]}


def camera_look(picture: np.ndarray, seed: int, light: float = 1.3,
                kelvin: float = 3800.0) -> np.ndarray:
    """A table camera's view of a laid-out deck: dim warm light (gamma `light`, `kelvin`), a
    little defocus, sensor noise and JPEG (`vision.training.perturb`)."""
    from vision.training import perturb

    rng = np.random.default_rng(seed)
    picture = perturb.white_balance(perturb.gamma(picture, light), kelvin)
    picture = perturb.defocus(picture, 1.2)
    picture = perturb.sensor_noise(picture, 3.0, 2.0, rng)
    return perturb.jpeg(picture, 80)


def spreads_f1(detector, frames) -> dict:
    """Card F1 over spread frames (the distinct cards read in each against the cards whose
    index shows there) and the frames read exactly."""
    pairs = [({d.card for d in detector.detect(f.image)}, f.visible) for f in frames]
    exact = sum(read == shown for read, shown in pairs)
    return {"card_f1": round(cards_f1(pairs), 4), "exact": f"{exact}/{len(frames)}"}


def unseen_spreads(deck: str, count: int, seed: int, out: Path, reference_deck: str) -> dict:
    """`count` frames of gin spreads of `deck` read without and with the profile taught by
    `--unseen-decks` (in `out`), and the same spreads drawn with `reference_deck`."""
    from vision.inference.detector import load_detector
    from vision.training.synth.spreads import spread_frames

    frames = spread_frames(deck, count, seed)
    detector = load_detector()
    return {"deck": deck, "frames": count,
            "before": spreads_f1(detector, frames),
            "after": spreads_f1(load_detector(deck=out / f"{deck}.json"), frames),
            "trained_deck_same_seed": spreads_f1(detector,
                                                 spread_frames(reference_deck, count, seed))}


def unseen_deck(deck: str, scenes: int, seed: int, out: Path,
                reference_deck: str | None = None,
                card_width: tuple[float, float] | None = TABLE_CARD_WIDTH) -> dict:
    """Teach `deck` from one laid-out picture, read `scenes` scenes of it without and with."""
    import tempfile

    import cv2

    from vision.deck.layout import laid_out_photo
    from vision.deck.teach import COPIES, teach_deck
    from vision.inference.detector import DEFAULT_NAMER_ONNX, Namer, load_detector
    from vision.training.synth.cards import CardFaces
    from vision.training.synth.laid_out import laid_out_picture
    from vision.training.synth.writer import write_dataset

    faces = CardFaces(width=240, deck=deck)
    usable = set(faces.codes)
    aspect = faces.face("KC").shape[0] / faces.face("KC").shape[1]
    picture, centres = laid_out_picture(
        lambda card: faces.face(card) if card in usable else None, (130, round(130 * aspect)),
        angle=2.5, keystone=0.05)
    picture = camera_look(picture, seed)
    cv2.imwrite(str(out / f"{deck}-laid-out.jpg"), picture)
    detector = load_detector()
    photo, problem = laid_out_photo(detector, f"{deck}-laid-out.jpg", picture)
    if problem:
        return {"deck": deck, "problem": problem}
    right = sum(1 for c in photo.cards if _outline_holds(c.outline, centres.get(c.card)))
    started = time.process_time()
    profile = teach_deck(photo.taught_corners(), Namer(DEFAULT_NAMER_ONNX, with_features=True),
                         COPIES, seed)
    taught_s = time.process_time() - started
    path = out / f"{deck}.json"
    profile.save(path)
    other, _ = laid_out_picture(  # another view of the deck: turned the other way, cool light
        lambda card: faces.face(card) if card in usable else None, (120, round(120 * aspect)),
        angle=-4.0, keystone=0.03)
    other = camera_look(other, seed + 1, light=0.8, kelvin=6500.0)
    held_out = {"before": _cards_f1(detector, other, usable),
                "after": _cards_f1(load_detector(deck=path), other, usable)}
    with tempfile.TemporaryDirectory() as folder:
        write_dataset(Path(folder), scenes, seed, size=640, workers=1, decks=[deck],
                      card_width=card_width)
        before = summary(evaluate_folder(Path(folder), detector, labelled_boxes=True))
        after = summary(evaluate_folder(Path(folder), load_detector(deck=path),
                                        labelled_boxes=True))
        reference = None
        if reference_deck:  # the same scenes' layout drawn with a deck the namer was trained on
            with tempfile.TemporaryDirectory() as known:
                write_dataset(Path(known), scenes, seed, size=640, workers=1,
                              decks=[reference_deck], card_width=card_width)
                reference = summary(evaluate_folder(Path(known), detector, labelled_boxes=True))
    return {"deck": deck, "laid_out": len(usable), "found": len(photo.cards),
            "named_by_place_right": right, "corners": sum(len(c.corners) for c in photo.cards),
            "teach_cpu_s": round(taught_s, 1), "scenes": scenes, "before": before,
            "after": after, "trained_deck_same_scenes": reference,
            "another_laid_out_view": held_out, "profile": str(path)}


def _cards_f1(detector, picture: np.ndarray, truth: set[str]) -> float:
    """Card F1 of one picture: the distinct cards read against the cards in it."""
    return round(cards_f1([({d.card for d in detector.detect(picture)}, truth)]), 4)


def _outline_holds(outline, centre) -> bool:
    if centre is None:
        return False
    x1, y1, x2, y2 = outline
    return x1 < centre[0] < x2 and y1 < centre[1] < y2


def phone_teaching_corners(frames, per_card: int, detector):
    """TaughtCorners of the phone deck from its earlier scenes (never the held-out ones): each
    photo's corners found and named after the labelled whole card that holds them, a photo the
    exporter may have mirrored kept the way round its corners agree better with the labels
    (`vision.training.phone_corners`, as the namer's phone data were made); for each card its
    corners in the first `per_card` photos that show it, each from another scene."""
    from vision.deck.teach import TaughtCorner
    from vision.training.phone_corners import frame_corners

    scenes: dict[str, set[int]] = {}
    corners = []
    for frame in frames:
        wanted = {c for c in frame.cards if frame.scene not in scenes.get(c, set())
                  and len(scenes.get(c, ())) < per_card}
        if not wanted:
            continue
        image, read, _flipped = frame_corners(detector, frame)
        for corner in read.corners:
            if corner.code in wanted:
                corners.append(TaughtCorner(corner.code, image, corner.box, frame.image.name))
        for card in {c.code for c in read.corners} & wanted:
            scenes.setdefault(card, set()).add(frame.scene)
    return corners


def phone_main(per_card: int, seed: int, out: Path) -> int:
    """Teach the phone deck from its earlier scenes; read its held-out photos without and with."""
    from bench_melds_real import score_held_out
    from bench_melds_real import summary as proposals

    from vision.deck.teach import COPIES, teach_deck
    from vision.inference.detector import DEFAULT_NAMER_ONNX, Namer, load_detector
    from vision.training.phone_data import load_frames, split_by_time

    print(f"CPU: {cpu_info().describe()}", flush=True)
    earlier, held = split_by_time(load_frames())
    _check_apart(earlier, held)
    corners = phone_teaching_corners(earlier, per_card, load_detector("onnx",
                                                                      normalise_light=False))
    cards = sorted({c.card for c in corners})
    print(f"teaching {len(corners)} corners of {len(cards)} cards from "
          f"{len({c.source for c in corners})} photos of the earlier scenes "
          f"({per_card} scenes a card at most); not taught: "
          f"{' '.join(sorted(set(_all_cards()) - set(cards)))}", flush=True)
    started = time.process_time()
    profile = teach_deck(corners, Namer(DEFAULT_NAMER_ONNX, with_features=True), COPIES, seed)
    taught_s = time.process_time() - started
    profile.save(out)
    result: dict = {"cpu": cpu_info().describe(), "corners": len(corners), "cards": len(cards),
                    "teach_cpu_s": round(taught_s, 1), "profile": str(out),
                    "held_out_photos": len(held)}
    for label, detector in (("without", load_detector()), ("with", load_detector(deck=out))):
        as_read, by_eye = score_held_out(held, detector)
        result[label] = {"all": proposals(as_read), "right_way_round": proposals(by_eye)}
        print(f"{label} a profile: held-out, all: {json.dumps(result[label]['all'])}; each the "
              f"right way round: {json.dumps(result[label]['right_way_round'])}", flush=True)
    print(json.dumps(result))
    return 0


def _all_cards() -> list[str]:
    return [r + s for s in "CDHS" for r in "A23456789TJQK"]


def _check_apart(earlier, held) -> None:
    """The teaching and held-out photos are whole scenes apart (near-duplicates, photos seconds
    apart, never on both sides): the first held-out photo is more than a scene gap after the
    last earlier one."""
    from vision.training.phone_data import SCENE_GAP_SECONDS

    gap = (held[0].taken - earlier[-1].taken).total_seconds()
    if gap <= SCENE_GAP_SECONDS or {f.scene for f in earlier} & {f.scene for f in held}:
        raise SystemExit(f"teaching and held-out photos are not scenes apart ({gap:.0f} s)")
    print(f"teaching photos: {len(earlier)} (earlier scenes), held out: {len(held)}; "
          f"{gap / 60:.0f} min between the last taught and the first held-out photo", flush=True)


def unseen_decks_main(scenes: int, seed: int, out: Path,
                      card_width: tuple[float, float] | None = TABLE_CARD_WIDTH,
                      spreads: int = 0) -> int:
    from vision.training.synth.unseen_decks import (
        DERIVED_FROM,
        UNSEEN_DECKS,
        ensure_unseen_decks,
    )

    print(f"CPU: {cpu_info().describe()}", flush=True)
    ensure_unseen_decks()
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for deck in UNSEEN_DECKS:
        result = unseen_deck(deck, scenes, seed, out,
                             DERIVED_FROM.get(deck, "kde-standard"), card_width)
        print(json.dumps(result), flush=True)
        results.append(result)
    for r in results:
        if "problem" in r:
            print(f"{r['deck']}: {r['problem']}")
            continue
        known = r["trained_deck_same_scenes"] or {}
        print(f"{r['deck']}: laid out {r['laid_out']}, found {r['found']} "
              f"({r['named_by_place_right']} named right by place), taught in "
              f"{r['teach_cpu_s']} s CPU; {r['scenes']} scenes: card F1 "
              f"{r['before']['card_f1']:.3f} -> {r['after']['card_f1']:.3f} (a trained deck: "
              f"{known.get('card_f1')}), namer alone on the labelled corners "
              f"{r['before']['namer_alone']} -> {r['after']['namer_alone']} (a trained deck: "
              f"{known.get('namer_alone')}); another laid-out view (cool light, turned the "
              f"other way): card F1 {r['another_laid_out_view']['before']:.3f} -> "
              f"{r['another_laid_out_view']['after']:.3f}")
    for deck in UNSEEN_DECKS if spreads else ():
        r = unseen_spreads(deck, spreads, seed, out, DERIVED_FROM.get(deck, "kde-standard"))
        print(json.dumps(r), flush=True)
        print(f"{deck}: {spreads} frames of gin spreads, card F1 {r['before']['card_f1']:.3f} "
              f"-> {r['after']['card_f1']:.3f}, frames exact {r['before']['exact']} -> "
              f"{r['after']['exact']} (the same spreads of a trained deck: "
              f"{r['trained_deck_same_seed']['card_f1']:.3f}, "
              f"{r['trained_deck_same_seed']['exact']})", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unseen-decks", action="store_true",
                    help="teach the unseen decks from a laid-out picture each and read scenes")
    ap.add_argument("--phone", action="store_true",
                    help="teach the phone deck from its earlier scenes and read its held-out "
                    "photos (bench_melds_real's proposals) without and with the profile")
    ap.add_argument("--scenes", type=int, default=100, help="scenes a deck (--unseen-decks)")
    ap.add_argument("--spreads", type=int, default=0,
                    help="--unseen-decks: also this many frames of gin spreads a deck "
                    "(`vision.training.synth.spreads`: the demo's table and card size)")
    ap.add_argument("--training-sizes", action="store_true",
                    help="scenes with the training generator's card sizes (up to half the "
                    "frame), not a table camera's (TABLE_CARD_WIDTH)")
    ap.add_argument("--per-card", type=int, default=3, help="photos a card (default 3)")
    ap.add_argument("--source", choices=["phone", "webcam", "all"], default="phone")
    ap.add_argument("--copies", type=int, default=None, help="crops a corner (default: teach's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/dev-deck.json"))
    ap.add_argument("--no-baseline", action="store_true", help="skip the read without a profile")
    ap.add_argument("--train", type=Path, default=DATA / "train")
    ap.add_argument("--dev", type=Path, default=DATA / "dev")
    ap.add_argument("--label-fixes", type=Path, default=None,
                    help="score dev against corrected labels (models/dev_label_fixes.csv: five "
                    "threes labelled as fours), as gintray eval-detector --label-fixes does")
    args = ap.parse_args(argv)
    if args.phone:
        out = args.out if args.out != Path("/tmp/dev-deck.json") else Path("/tmp/phone-deck.json")
        return phone_main(args.per_card, args.seed, out)
    if args.unseen_decks:
        out = args.out if args.out.suffix != ".json" else Path("/tmp/unseen-decks")
        return unseen_decks_main(args.scenes, args.seed, out,
                                 None if args.training_sizes else TABLE_CARD_WIDTH, args.spreads)

    from vision.deck.teach import COPIES, teach_deck
    from vision.inference.detector import DEFAULT_NAMER_ONNX, Namer, load_detector

    print(f"CPU: {cpu_info().describe()}", flush=True)
    corners = teaching_corners(args.train, args.per_card, args.source)
    cards = {c.card for c in corners}
    photos = {c.source for c in corners}
    print(f"teaching {len(corners)} corners of {len(cards)} cards from {len(photos)} photos "
          f"({args.source}, {args.per_card} a card)", flush=True)
    namer = Namer(DEFAULT_NAMER_ONNX, with_features=True)
    started = time.process_time()
    profile = teach_deck(corners, namer, args.copies or COPIES, args.seed)
    taught_s = time.process_time() - started
    profile.save(args.out)
    pass_ms = finder_pass_ms()
    pi_s = taught_s * PI5_YOLO11N_ONNX_MS / pass_ms
    result: dict = {"cpu": cpu_info().describe(), "corners": len(corners), "cards": len(cards),
                    "photos": len(photos), "teach_cpu_s": round(taught_s, 1),
                    "finder_pass_ms": round(pass_ms, 1), "pi5_estimate_s": round(pi_s, 1),
                    "profile": str(args.out)}
    print(f"taught in {taught_s:.1f} s of CPU (one thread); a 640 finder pass here "
          f"{pass_ms:.1f} ms, on a Pi 5 {PI5_YOLO11N_ONNX_MS} ms: Pi 5 about {pi_s:.0f} s",
          flush=True)
    fixes = load_label_fixes(args.label_fixes) if args.label_fixes else None
    if not args.no_baseline:
        result["without"] = summary(evaluate_folder(args.dev, load_detector(),
                                                    labelled_boxes=True, label_fixes=fixes))
        print("without a profile:", json.dumps(result["without"]), flush=True)
    result["with"] = summary(evaluate_folder(args.dev, load_detector(deck=args.out),
                                             labelled_boxes=True, label_fixes=fixes))
    print("with the profile:", json.dumps(result["with"]), flush=True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
