"""Shared helpers for the hardware tests: load the stand-alone scripts under hardware/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
HARDWARE = REPO / "hardware"


def load_script(relative: str, name: str) -> ModuleType:
    """Import a script under hardware/ (not a package) as a module named ``name``."""
    path = HARDWARE / relative
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
