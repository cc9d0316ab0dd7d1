"""Shared fixtures for the detector tests: paths and skip conditions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEV = SHARED / "data" / "real-cards" / "dev"
MODELS = REPO / "models"


def decks_or_skip() -> None:
    """Skip when the SVG decks are neither rendered nor renderable (no rsvg-convert)."""
    from vision.training.synth.cards import available_decks

    if available_decks():
        return
    if shutil.which("rsvg-convert") is None or shutil.which("apt-get") is None:
        pytest.skip("card decks not rendered and rsvg-convert/apt-get unavailable")


def model_or_skip() -> None:
    """Skip when the committed model files are missing."""
    for name in ("gintray-corners.onnx", "gintray-namer.onnx"):
        if not (MODELS / name).exists():
            pytest.skip(f"models/{name} not present")


def dev_or_skip() -> None:
    """Skip when the shared dev photos are not mounted."""
    if not (DEV / "images").is_dir():
        pytest.skip("shared dev photos not available")


def pretrained_or_skip() -> None:
    """Skip when the shared COCO-pretrained YOLO weights (training's start) are not mounted."""
    from vision.training.train import DEFAULT_START

    if not Path(DEFAULT_START).exists():
        pytest.skip(f"pretrained start weights not available: {DEFAULT_START}")


def shipped_detector_or_skip():
    """The shipped detector (`load_detector()`); skip when its model is not installed."""
    from vision.inference.detector import DetectorUnavailable, load_detector

    try:
        return load_detector()
    except DetectorUnavailable as exc:
        pytest.skip(f"detector model not available: {exc}")
