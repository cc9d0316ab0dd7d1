"""The detector options every command that reads photos takes (``gintray detect``, ``read``,
``eval-detector``), and the detector they ask for: one place for both."""

from __future__ import annotations

import argparse
from typing import Any

from vision.inference import detector as detector_module
from vision.inference.detector import BACKENDS, DEFAULT_TURNS, CardDetector


def add_detector_options(parser: argparse.ArgumentParser) -> None:
    """--backend, --weights, --namer, --turns, --no-pair-vote and --deck."""
    parser.add_argument("--backend", default=None, choices=BACKENDS,
                        help="default: GINTRAY_BACKEND, else onnx")
    parser.add_argument("--weights",
                        help="corner finder weights (default models/gintray-corners.*)")
    parser.add_argument("--namer", help="namer weights (default models/gintray-namer.onnx)")
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS, choices=[1, 2, 4],
                        help="namer quarter turns")
    parser.add_argument("--no-pair-vote", action="store_true",
                        help="name each corner alone (no corner-pair vote)")
    parser.add_argument("--deck", metavar="DECK.json",
                        help="read with this deck profile (gintray deck learn); without it the "
                             "shipped models read as they are")


def detector_from_options(args: argparse.Namespace, **settings: Any) -> CardDetector:
    """The detector the options ask for (raises DetectorUnavailable or ValueError). Called
    through its module, so a test can put a detector of its own there."""
    return detector_module.load_detector(args.backend, args.weights, args.namer, turns=args.turns,
                         pair_vote=not args.no_pair_vote, deck=args.deck, **settings)
