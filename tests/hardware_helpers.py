"""Shared helpers for the hardware tests: load the stand-alone scripts under hardware/."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from script_helpers import load_module

REPO = Path(__file__).resolve().parents[1]
HARDWARE = REPO / "hardware"


def load_script(relative: str, name: str) -> ModuleType:
    """Import a script under hardware/ (not a package) as a module named ``name``."""
    return load_module(HARDWARE / relative, name)
