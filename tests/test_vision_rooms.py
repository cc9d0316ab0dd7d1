"""Issue 16 item 1: vision is in rooms, and what a table runs never imports training code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TABLE_IMPORTS = """
import sys
from webui import create_app
import vision.read_cli, vision.detect_cli
from vision.table import camera, grouping, layout, markers, reader, voting
from vision.inference import detector, doctor
print(sorted(m for m in sys.modules if m.startswith(("vision.training", "torch", "ultralytics"))))
"""


def test_the_table_app_and_the_reader_import_no_training_code():
    out = subprocess.run([sys.executable, "-c", TABLE_IMPORTS], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]", out


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_inference_imports_nothing_from_the_table_or_training_rooms():
    for room, forbidden in (("inference", ("vision.table", "vision.training", "vision.deck")),
                            ("table", ("vision.training", "vision.deck"))):
        for path in sorted((REPO / "vision" / room).glob("*.py")):
            bad = [m for m in imported_modules(path) if m.startswith(forbidden)]
            assert bad == [], (path.name, bad)
