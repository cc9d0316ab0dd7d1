"""The 52 card codes in the models' class order, and class names read from a YOLO data.yaml."""

from __future__ import annotations

from pathlib import Path

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)

def yolo_class_names(path: Path) -> list[str]:
    """Class names of a YOLO data.yaml ('names:' mapping or list), without a YAML library."""
    names: dict[int, str] = {}
    in_names = False
    for line in path.read_text().splitlines():
        if line.startswith("names:"):
            in_names = True
            continue
        if in_names and line.startswith("  ") and ":" in line:
            key, value = line.split(":", 1)
            names[int(key)] = value.strip()
        elif in_names and line.lstrip().startswith("- "):
            names[len(names)] = line.lstrip()[2:].strip()
        elif in_names and line.strip() and not line.startswith(" "):
            break
    return [names[i] for i in range(len(names))]
