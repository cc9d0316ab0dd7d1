"""`gintray deck learn DIR --out DECK.json`: teach the detector a deck from photos of its cards;
`gintray deck show DECK.json`: what a deck profile was taught, its checksums verified.

Each photo in DIR shows one card and is named after it (``KH.jpg``, ``TS.png``, ``10C.jpg``);
a folder may teach only some cards (say the court cards whose letters differ): the shipped namer
keeps reading the others. With ``--layout`` the photos (files or folders) show the whole deck
laid out in the set order (four rows of 13: clubs, diamonds, hearts, spades from top to bottom,
ace to king from left to right; `gintray deck sheet` prints it), each card named by its place
(a photo of only some rows says which in its name: ``rows-CD.jpg``); cards no photo showed are
named and left to the shipped namer. Any problem (a file name that is
no card, a card twice, a photo with no card or with two; a layout photo whose cards are not four
rows) is reported, naming the photo (and the card), and nothing is written.
`gintray detect|read|watch|eval-detector --deck DECK.json` and `gintray serve --deck DECK.json`
read with the profile.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vision.detector_options import add_detector_options

if TYPE_CHECKING:
    from vision.inference.deck import DeckProfile


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gintray deck", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    learn = commands.add_parser("learn", help="teach a deck from a folder of card photos")
    learn.add_argument("photos", type=Path, nargs="+", metavar="PHOTOS",
                       help="a folder of photos named after their cards (KH.jpg, ...), or with "
                            "--layout photos (or folders of them) of the laid-out deck")
    learn.add_argument("--layout", action="store_true",
                       help="the photos show the whole deck laid out in the set order")
    learn.add_argument("--out", type=Path, required=True, metavar="DECK.json",
                       help="the deck profile to write")
    learn.add_argument("--copies", type=int, default=None,
                       help="augmented crops a corner (default 24)")
    learn.add_argument("--seed", type=int, default=0, help="augmentation seed")
    add_detector_options(learn)
    sheet = commands.add_parser("sheet", help="write the set order as a printable sheet (SVG)")
    sheet.add_argument("--out", type=Path, required=True, metavar="ORDER.svg")
    show = commands.add_parser("show", help="what a deck profile was taught (checks it)")
    show.add_argument("profile", type=Path, metavar="DECK.json")
    return parser


def _fail(message: str, status: int = 2) -> int:
    print(f"gintray deck: {message}", file=sys.stderr)
    return status


def learn_main(args: argparse.Namespace) -> int:
    """Teach the folder's cards and write the profile; 1 when a photo is wrong, 2 when the
    detector cannot be had."""
    from vision.deck.layout import laid_out_deck
    from vision.deck.photos import teaching_photos
    from vision.deck.teach import COPIES, teach_deck
    from vision.inference.detector import DetectorUnavailable, Namer, load_detector

    if args.deck:
        return _fail("learn teaches the shipped namer a deck: leave out --deck")
    try:
        detector = load_detector(args.backend, args.weights, args.namer, turns=args.turns)
        namer = Namer(detector.model_paths[-1], with_features=True)
    except (DetectorUnavailable, ValueError) as exc:
        return _fail(f"detector unavailable: {exc}")
    if args.layout:
        deck = laid_out_deck(args.photos, detector)
        problems, corners, photo_count = deck.problems, deck.taught_corners(), len(deck.photos)
        if not problems and deck.missing:
            print(f"gintray deck learn: not found in any photo: {' '.join(deck.missing)} (the "
                  "shipped namer reads them)", file=sys.stderr)
    elif len(args.photos) != 1:
        return _fail("give one folder of photos named after their cards (or --layout)")
    else:
        photos = teaching_photos(args.photos[0], detector)
        problems, corners, photo_count = photos.problems, photos.corners, len(photos.cards)
    if problems or not corners:
        for problem in problems or ["no card found in any photo"]:
            print(f"gintray deck learn: {problem}", file=sys.stderr)
        return _fail(f"nothing written to {args.out}: fix the photos above and run it again", 1)
    profile = teach_deck(corners, namer, args.copies or COPIES, args.seed)
    try:
        profile.save(args.out)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc}")
    print(f"taught {len(profile.cards)} cards ({' '.join(profile.cards)}) from "
          f"{photo_count} photos, {len(corners)} corners, in "
          f"{profile.teaching['cpu_seconds']:.1f} s of CPU; wrote {args.out}\n"
          f"{_adapted_line(profile)}")
    return 0


def show_main(args: argparse.Namespace) -> int:
    """Print a profile's cards, namer and teaching; 2 when it is refused."""
    from vision.inference.deck import DeckProfileError, load_profile

    try:
        profile = load_profile(args.profile)
    except DeckProfileError as exc:
        return _fail(str(exc))
    teaching = profile.teaching or {}
    print(f"{args.profile}: {len(profile.cards)} cards taught: {' '.join(profile.cards)}\n"
          f"namer sha256 {profile.namer_sha256}\n"
          f"taught from {len(teaching.get('photos', []))} photos, {teaching.get('corners')} "
          f"corners x {teaching.get('copies')} copies, {teaching.get('cpu_seconds')} s of CPU\n"
          f"{_adapted_line(profile)}")
    return 0


def _adapted_line(profile: DeckProfile) -> str:
    """Which cards the profile reads otherwise than the shipped namer, and why the rest not."""
    if not profile.adapted:
        return ("the shipped namer read every taught corner right: this deck is read as "
                "shipped")
    return (f"read otherwise than the shipped namer: {' '.join(profile.adapted)} (the "
            "cards the shipped namer misread on the deck's own corners, and those it took them "
            "for); every other card as shipped")


def sheet_main(args: argparse.Namespace) -> int:
    """Write the printable sheet of the set order; 2 when it cannot be written."""
    from vision.deck.sheet import order_sheet_svg

    try:
        args.out.write_text(order_sheet_svg(), encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc}")
    print(f"wrote {args.out}: the set order of a laid-out deck, to print")
    return 0


def deck_main(argv: list[str]) -> int:
    """Entry point of `gintray deck`."""
    args = _parser().parse_args(argv)
    return {"learn": learn_main, "sheet": sheet_main, "show": show_main}[args.command](args)
