"""Where training runs (CUDA when torch sees a GPU, else the CPU) and the run's notes.

Every training run writes ``run-notes.json`` beside its checkpoints: the device it trained on
(with the GPU's name or the CPU's), torch's version, the command line and when it started, so a
model card can say how each file was made.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

DEVICES = ("auto", "cpu", "cuda")


def add_device_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The ``--device`` option every training command takes."""
    parser.add_argument(
        "--device",
        default="auto",
        help="auto (CUDA when torch sees it, else CPU), cpu or cuda; written to run-notes.json",
    )


def training_device(requested: str = "auto") -> str:
    """``"cuda"`` or ``"cpu"``: ``auto`` takes CUDA when torch sees it; an explicit ``cuda``
    without one is refused with the reason."""
    import torch

    if requested not in DEVICES:
        raise SystemExit(f"--device wants one of {', '.join(DEVICES)}, not {requested!r}")
    available = torch.cuda.is_available()
    if requested == "cuda" and not available:
        raise SystemExit("--device cuda: torch sees no CUDA device here (use auto or cpu)")
    if requested == "auto":
        return "cuda" if available else "cpu"
    return requested


def device_name(device: str) -> str:
    """The GPU's name for ``cuda``, the CPU's model for ``cpu``."""
    import torch

    if device == "cuda":
        return torch.cuda.get_device_name(0)
    from vision.inference.cpu import cpu_info

    return cpu_info().describe()


def write_run_notes(folder: Path, device: str, stage: str) -> Path:
    """Write ``folder/run-notes.json`` (device, torch, command, start) and return its path."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    notes = {
        "stage": stage,
        "device": device,
        "device_name": device_name(device),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "command": sys.argv,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    path = folder / "run-notes.json"
    path.write_text(json.dumps(notes, indent=1) + "\n")
    return path
